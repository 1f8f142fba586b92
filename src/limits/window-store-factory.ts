import type { RedisLink } from '../storage/redis-link.js';
import { createFleetWindowStore } from './fleet-window-store.js';
import { createMemoryWindowStore } from './memory-window-store.js';
import { createRedisWindowStore } from './redis-window-store.js';
import type { WindowStore } from './window-store.js';

export interface WindowStoreOptions {
  /** The Redis link (src/storage/redis-link.ts); undefined without REDIS_URL: the logs live in `local`. */
  readonly link: RedisLink | undefined;
  readonly redisPrefix: string;
  /** The most instances live at any moment within the last `spanMs` (cluster/instance-registry.ts); used with Redis. */
  readonly fleetSize: (spanMs: number) => number;
  /** Where the logs live without Redis (the workers' primary process, src/workers/). @default this process's memory */
  readonly local?: WindowStore | undefined;
  readonly now: () => number;
}

/**
 * The rate-limit logs the gateway runs with (docs/limits.md): without Redis in this process (or the
 * workers' primary); with Redis shared by every instance, with the safe mode of fleet-window-store.ts.
 */
export function createWindowStore(options: WindowStoreOptions): WindowStore {
  if (options.link === undefined) return options.local ?? createMemoryWindowStore();
  // The safe mode's own counts: each instance (each worker too) admits its share of every limit.
  return createFleetWindowStore({
    shared: createRedisWindowStore(options.link.client, options.redisPrefix),
    local: createMemoryWindowStore(),
    link: options.link,
    fleetSize: options.fleetSize,
    now: options.now,
  });
}
