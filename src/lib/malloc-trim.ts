import { createRequire } from 'node:module';

/**
 * glibc's malloc_trim(0) through the optional addon in native/malloc-trim (built by `npm run build`; see
 * scripts/build-native.mjs), or undefined where it was not built (no compiler, not Linux). It gives back to the
 * system the whole free pages inside glibc's arenas, which glibc otherwise returns only from the top of an arena:
 * after a load, what the sockets, HTTP parsers and buffers outside V8's heap freed stays resident without it
 * (docs/performance.md). Found from this file: src/lib or dist/lib, both two levels under the project.
 */
export function loadMallocTrim(): (() => boolean) | undefined {
  try {
    const addon = createRequire(import.meta.url)('../../native/malloc-trim/build/Release/malloc_trim.node') as { mallocTrim?: unknown };
    return typeof addon.mallocTrim === 'function' ? (addon.mallocTrim as () => boolean) : undefined;
  } catch {
    return undefined;
  }
}
