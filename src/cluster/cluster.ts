import type { Logger } from 'pino';
import { createFleetWindowStore } from '../limits/fleet-window-store.js';
import type { WindowStore } from '../limits/window-store.js';
import { createMemoryWindowStore } from '../limits/memory-window-store.js';
import { createRateLimits, type RateLimits, type RateLimitSettings } from '../limits/rate-limits.js';
import { createRedisWindowStore } from '../limits/redis-window-store.js';
import type { ProcessModelHealth } from '../routing/health/model-health.js';
import type { ChangeWatcher } from '../storage/change-watcher.js';
import type { Storage } from '../storage/database.js';
import { startHealthSync, type HealthSync } from './health-sync.js';
import { startInstanceRegistry, type InstanceRegistry } from './instance-registry.js';
import { startInvalidationBus } from './invalidation-bus.js';
import type { RedisLink } from './redis-link.js';

export interface ClusterOptions {
  /** REDIS_URL; undefined: everything in process (the embedded default). */
  readonly redisUrl: string | undefined;
  readonly redisPrefix: string;
  /** MODELPORT_REDIS_TIMEOUT_MS. @default 250 */
  readonly redisTimeoutMs?: number;
  /** MODELPORT_HEARTBEAT_MS. @default 1000 */
  readonly heartbeatMs?: number;
  readonly limits: RateLimitSettings;
  readonly storage: Storage;
  readonly changes: ChangeWatcher;
  readonly logger: Logger;
  readonly now: () => number;
  /** Where the logs live without Redis (the workers' primary process, src/workers/). @default this process's memory */
  readonly localStore?: WindowStore;
}

export interface Cluster {
  readonly rateLimiter: RateLimits;
  /** The Redis link, when REDIS_URL is set. */
  readonly link: RedisLink | undefined;
  readonly instances: InstanceRegistry | undefined;
  /** Shares this health (back-offs, circuit openings, latency) with the other instances through Redis; without Redis, nothing. */
  shareHealth(health: ProcessModelHealth): void;
  close(): Promise<void>;
}

/**
 * What instances share (docs/limits.md): rate-limit logs in Redis with a safe
 * mode, the instance registry in the database, and pub/sub invalidation. Without
 * REDIS_URL, rate limits live in this process and nothing else is started.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { logger, now } = options;
  const onError = (error: unknown) => logger.warn({ err: error }, 'rate limit bookkeeping failed');
  if (options.redisUrl === undefined) {
    // Without Redis the logs live here, or in the workers' primary process when it provides the store.
    const local = options.localStore ?? createMemoryWindowStore();
    return { rateLimiter: createRateLimits(local, options.limits, now, onError), link: undefined, instances: undefined, shareHealth: () => {}, close: async () => {} };
  }
  // Loaded only when Redis is configured: ioredis is about 9 MiB of an idle gateway's memory (docs/performance.md).
  const { createRedisLink } = await import('./redis-link.js');
  const link = createRedisLink({ url: options.redisUrl, commandTimeoutMs: options.redisTimeoutMs ?? 250, logger, now });
  const instances = await startInstanceRegistry(options.storage.db, {
    heartbeatMs: options.heartbeatMs ?? 1000,
    now,
    onError: (error) => logger.warn({ err: error }, 'instance heartbeat failed'),
  });
  // The safe mode's own counts: each instance (each worker too) admits its share of every limit.
  const local = createMemoryWindowStore();
  const store = createFleetWindowStore({
    shared: createRedisWindowStore(link.client, options.redisPrefix),
    local,
    link,
    fleetSize: (spanMs) => instances.maxLiveWithin(spanMs),
    now,
  });
  const bus = startInvalidationBus(link, `${options.redisPrefix}changes`, () => options.changes.poll(), (error) => logger.warn({ err: error }, 'redis subscribe failed'));
  options.changes.onChange(() => bus.publish());
  // Starting while Redis is away is allowed: the instance starts in safe mode.
  await link.ready(Math.max(1000, (options.redisTimeoutMs ?? 250) * 8));
  let healthSync: HealthSync | undefined;
  return {
    rateLimiter: createRateLimits(store, options.limits, now, onError),
    link,
    instances,
    shareHealth(health) {
      healthSync ??= startHealthSync({ link, health, prefix: options.redisPrefix, instanceId: instances.id, logger, now });
    },
    async close() {
      await healthSync?.close();
      await bus.close();
      await instances.close();
      await link.close();
    },
  };
}
