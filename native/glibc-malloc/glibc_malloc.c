/*
 * Two controls of glibc's allocator that Node does not expose (src/lib/glibc-malloc.ts):
 *
 * mallocTrim(): malloc_trim(0), which returns free memory at the top of every arena and, since glibc 2.8, the free
 * whole pages in the middle of them (madvise(MADV_DONTNEED)). Node's own allocations (sockets, HTTP parsers, buffers
 * outside V8's heap) leave such pages behind a load, and glibc gives them back on its own only from the top of an
 * arena. Returns true when memory was released.
 *
 * limitArenas(n): mallopt(M_ARENA_MAX, n), what MALLOC_ARENA_MAX does from the environment. glibc otherwise gives
 * each thread that allocates an arena of its own, up to 8 per core; each keeps the pages its thread's peak left.
 * Takes effect for arenas made after the call (glibc fixes its limit when it next needs a new one). Returns true when
 * glibc took the value.
 *
 * Both return false where there is no glibc (musl, macOS).
 */
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value Boolean(napi_env env, int value) {
  napi_value result;
  napi_get_boolean(env, value != 0, &result);
  return result;
}

static napi_value MallocTrim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if defined(__GLIBC__)
  released = malloc_trim(0);
#endif
  return Boolean(env, released);
}

static napi_value LimitArenas(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t max = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &max) != napi_ok || max < 1) {
    napi_throw_range_error(env, NULL, "limitArenas takes a whole number of arenas, 1 or more");
    return NULL;
  }
  int taken = 0;
#if defined(__GLIBC__)
  taken = mallopt(M_ARENA_MAX, max);
#endif
  return Boolean(env, taken);
}

static void Export(napi_env env, napi_value exports, const char *name, napi_callback callback) {
  napi_value fn;
  napi_create_function(env, name, NAPI_AUTO_LENGTH, callback, NULL, &fn);
  napi_set_named_property(env, exports, name, fn);
}

NAPI_MODULE_INIT() {
  Export(env, exports, "mallocTrim", MallocTrim);
  Export(env, exports, "limitArenas", LimitArenas);
  return exports;
}
