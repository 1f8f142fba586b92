import { createFallbackSpendStore, createInProcessSpendStore, createRedisSpendStore, type SpendSource, type SpendStore } from './budget-spend-store.js';

export interface BudgetSpendStoreOptions {
  /** REDIS_URL; undefined: spend is counted in process. */
  readonly redisUrl: string | undefined;
  readonly keyPrefix: string;
  readonly source: SpendSource;
  readonly onError: (error: unknown) => void;
}

/**
 * The spend store the gateway runs with: in process without Redis; with Redis,
 * shared, falling back to in process whenever a Redis command fails (commands
 * time out after 1 s and are never queued while Redis is down).
 */
export async function createBudgetSpendStore(options: BudgetSpendStoreOptions): Promise<{ store: SpendStore; close(): Promise<void> }> {
  const local = createInProcessSpendStore(options.source);
  if (options.redisUrl === undefined) return { store: local, close: async () => {} };
  // Loaded only when Redis is configured: ioredis is about 9 MiB of an idle gateway's memory (docs/performance.md).
  const { Redis } = await import('ioredis');
  const redis = new Redis(options.redisUrl, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 1000),
  });
  let lastReport = 0;
  // One warning a minute at most while Redis is down; ioredis reconnects by itself.
  const report = (error: unknown) => {
    if (Date.now() - lastReport < 60_000) return;
    lastReport = Date.now();
    options.onError(error);
  };
  redis.on('error', report);
  // Starting without Redis is allowed: spend is counted in process until it answers.
  await redis.connect().catch(report);
  const shared = createRedisSpendStore({ redis, keyPrefix: options.keyPrefix, source: options.source });
  return {
    store: createFallbackSpendStore(shared, local, report),
    async close() {
      redis.disconnect();
    },
  };
}
