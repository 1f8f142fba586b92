/*
 * mallocTrim(): glibc's malloc_trim(0), which returns free memory at the top of every arena and, since glibc 2.8,
 * the free whole pages in the middle of them (madvise(MADV_DONTNEED)). Node's own allocations (sockets, HTTP
 * parsers, buffers outside V8's heap) leave such pages behind a load, and glibc gives them back on its own only
 * from the top of an arena. Returns true when memory was released; false where there is no glibc (musl, macOS).
 */
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value MallocTrim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if defined(__GLIBC__)
  released = malloc_trim(0);
#endif
  napi_value result;
  napi_get_boolean(env, released != 0, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "mallocTrim", NAPI_AUTO_LENGTH, MallocTrim, NULL, &fn);
  napi_set_named_property(env, exports, "mallocTrim", fn);
  return exports;
}
