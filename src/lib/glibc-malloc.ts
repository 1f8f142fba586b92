import { createRequire } from 'node:module';

/** glibc's allocator controls that Node does not expose (native/glibc-malloc/glibc_malloc.c). */
export interface GlibcMalloc {
  /**
   * malloc_trim(0): gives back to the system the whole free pages inside glibc's arenas, which glibc otherwise returns
   * only from the top of an arena: after a load, what the sockets, HTTP parsers and buffers outside V8's heap freed
   * stays resident without it (docs/performance.md). True when memory was released.
   */
  readonly mallocTrim: () => boolean;
  /** mallopt(M_ARENA_MAX, max): what MALLOC_ARENA_MAX does, for the arenas made from now on. True when glibc took it. */
  readonly limitArenas: (max: number) => boolean;
}

/**
 * The optional addon in native/glibc-malloc (built by `npm run build`; see scripts/build-native.mjs), or undefined
 * where it was not built (no compiler, not Linux). Found from this file: src/lib or dist/lib, both two levels under
 * the project.
 */
export function loadGlibcMalloc(): GlibcMalloc | undefined {
  try {
    const addon = createRequire(import.meta.url)('../../native/glibc-malloc/build/Release/glibc_malloc.node') as Partial<Record<keyof GlibcMalloc, unknown>>;
    const { mallocTrim, limitArenas } = addon;
    if (typeof mallocTrim !== 'function' || typeof limitArenas !== 'function') return undefined;
    return { mallocTrim: mallocTrim as GlibcMalloc['mallocTrim'], limitArenas: limitArenas as GlibcMalloc['limitArenas'] };
  } catch {
    return undefined;
  }
}
