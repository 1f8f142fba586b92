import type { GlibcMalloc } from './glibc-malloc.js';

/**
 * How many arenas glibc's allocator keeps for the gateway unless the operator says otherwise. glibc's own limit is 8
 * per core; each thread that allocates (V8's helper threads, libuv's pool, the usage writer's worker) gets an arena
 * of its own up to it, and each arena keeps the pages its thread's peak left. 2 is the value Heroku recommends for
 * its Ruby servers (MALLOC_ARENA_MAX=2); measured here, see docs/performance.md.
 */
export const DEFAULT_MALLOC_ARENA_MAX = 2;

export type ArenaLimit =
  | { readonly by: 'environment' }
  | { readonly by: 'gateway'; readonly max: number }
  | { readonly by: 'none'; readonly why: string };

/**
 * Limits glibc's arenas to DEFAULT_MALLOC_ARENA_MAX, unless the environment already set a limit (MALLOC_ARENA_MAX,
 * or glibc.malloc.arena_max in GLIBC_TUNABLES: glibc read it at the process's start, and the operator's word wins).
 * Call it before the gateway's modules load and its threads start: arenas made before stay.
 */
export function limitMallocArenas(env: NodeJS.ProcessEnv, glibc: GlibcMalloc | undefined): ArenaLimit {
  if (env.MALLOC_ARENA_MAX !== undefined || (env.GLIBC_TUNABLES ?? '').includes('glibc.malloc.arena_max')) return { by: 'environment' };
  if (glibc === undefined) return { by: 'none', why: 'native/glibc-malloc is not built' };
  if (!glibc.limitArenas(DEFAULT_MALLOC_ARENA_MAX)) return { by: 'none', why: 'glibc did not take it' };
  return { by: 'gateway', max: DEFAULT_MALLOC_ARENA_MAX };
}
