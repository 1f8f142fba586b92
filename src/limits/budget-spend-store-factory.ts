import type { Redis } from 'ioredis';
import { createFallbackSpendStore, createInProcessSpendStore, createRedisSpendStore, type SpendSource, type SpendStore } from './budget-spend-store.js';

export interface BudgetSpendStoreOptions {
  /** The cluster's Redis connection (src/storage/redis-link.ts); undefined without REDIS_URL: spend is counted in process. */
  readonly redis: Redis | undefined;
  readonly keyPrefix: string;
  readonly source: SpendSource;
  readonly onError: (error: unknown) => void;
  /** @default Date.now */
  readonly now?: () => number;
}

/**
 * The spend store the gateway runs with: in process without Redis; with Redis,
 * shared over the cluster's connection (its command timeout, no offline queue),
 * falling back to in process whenever a Redis command fails.
 */
export function createBudgetSpendStore(options: BudgetSpendStoreOptions): SpendStore {
  const local = createInProcessSpendStore(options.source);
  if (options.redis === undefined) return local;
  const now = options.now ?? Date.now;
  let lastReport = 0;
  // One warning a minute at most while Redis is down.
  const report = (error: unknown) => {
    if (now() - lastReport < 60_000) return;
    lastReport = now();
    options.onError(error);
  };
  const shared = createRedisSpendStore({ redis: options.redis, keyPrefix: options.keyPrefix, source: options.source });
  return createFallbackSpendStore(shared, local, report);
}
