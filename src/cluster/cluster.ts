import type { Logger } from 'pino';
import type { ProcessModelHealth } from '../routing/health/model-health.js';
import type { ChangeWatcher } from '../storage/change-watcher.js';
import type { Storage } from '../storage/database.js';
import type { RedisLink } from '../storage/redis-link.js';
import { startHealthSync, type HealthSync } from './health-sync.js';
import { startInstanceRegistry, type InstanceRegistry } from './instance-registry.js';
import { startInvalidationBus } from './invalidation-bus.js';

export interface ClusterOptions {
  /** REDIS_URL; undefined: everything in process (the embedded default). */
  readonly redisUrl: string | undefined;
  readonly redisPrefix: string;
  /** MODELPORT_REDIS_TIMEOUT_MS. @default 250 */
  readonly redisTimeoutMs?: number;
  /** MODELPORT_HEARTBEAT_MS. @default 1000 */
  readonly heartbeatMs?: number;
  readonly storage: Storage;
  readonly changes: ChangeWatcher;
  readonly logger: Logger;
  readonly now: () => number;
}

export interface Cluster {
  /** The Redis link, when REDIS_URL is set: the rate-limit logs and budget spend are shared over it (app.ts). */
  readonly link: RedisLink | undefined;
  readonly instances: InstanceRegistry | undefined;
  /** The most instances live at any moment within the last `spanMs`; 1 without Redis. */
  fleetSize(spanMs: number): number;
  /** Shares this health (back-offs, circuit openings, latency) with the other instances through Redis; without Redis, nothing. */
  shareHealth(health: ProcessModelHealth): void;
  close(): Promise<void>;
}

/**
 * What instances share (docs/limits.md): the Redis link (over which app.ts shares the
 * rate-limit logs, with a safe mode, and budget spend), the instance registry in the
 * database, and pub/sub invalidation. Without REDIS_URL nothing is started.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { logger, now } = options;
  if (options.redisUrl === undefined) {
    return { link: undefined, instances: undefined, fleetSize: () => 1, shareHealth: () => {}, close: async () => {} };
  }
  // Loaded only when Redis is configured: ioredis is about 9 MiB of an idle gateway's memory (docs/performance.md).
  const { createRedisLink } = await import('../storage/redis-link.js');
  const link = createRedisLink({ url: options.redisUrl, commandTimeoutMs: options.redisTimeoutMs ?? 250, logger, now });
  const instances = await startInstanceRegistry(options.storage.db, {
    heartbeatMs: options.heartbeatMs ?? 1000,
    now,
    onError: (error) => logger.warn({ err: error }, 'instance heartbeat failed'),
  });
  const bus = startInvalidationBus(link, `${options.redisPrefix}changes`, () => options.changes.poll(), (error) => logger.warn({ err: error }, 'redis subscribe failed'));
  options.changes.onChange(() => bus.publish());
  // Starting while Redis is away is allowed: the instance starts in safe mode.
  await link.ready(Math.max(1000, (options.redisTimeoutMs ?? 250) * 8));
  let healthSync: HealthSync | undefined;
  return {
    link,
    instances,
    fleetSize: (spanMs) => instances.maxLiveWithin(spanMs),
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
