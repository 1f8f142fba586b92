import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RedisLinkOptions {
  readonly url: string;
  /** Longest a command may take before the link counts Redis as down (MODELPORT_REDIS_TIMEOUT_MS). @default 250 */
  readonly commandTimeoutMs?: number;
  /** How often a down link checks whether Redis is back. @default 500 */
  readonly probeIntervalMs?: number;
  readonly logger: Logger;
  readonly now: () => number;
}

/**
 * One Redis connection and whether it may be used. A command that fails for any
 * reason but Redis's own refusal (a script error) marks the link down at once;
 * while down no request touches Redis (commands are never queued: ioredis's
 * offline queue is off), and a probe (PING, same timeout) brings it back.
 * Before it is up again, `onRecover` hooks run (replaying what this instance
 * did meanwhile), so shared state is whole when instances use it again.
 */
export interface RedisLink {
  readonly client: Redis;
  /** A second connection for subscriptions (a subscribed connection cannot run other commands). */
  readonly subscriber: Redis;
  isUp(): boolean;
  /** When the link went down (epoch ms); undefined while up. */
  downSince(): number | undefined;
  /** Counts Redis as down after a failed command (no-op for script errors). */
  reportFailure(error: unknown): void;
  /** Runs before the link is up again; a hook that throws keeps it down until the next probe. */
  onRecover(hook: () => Promise<void>): void;
  onDown(listener: () => void): void;
  /** Resolves once up, or after `timeoutMs` (the link stays down and keeps probing). */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createRedisLink(options: RedisLinkOptions): RedisLink {
  const commandTimeoutMs = options.commandTimeoutMs ?? 250;
  const connection = (name: string) =>
    new Redis(options.url, {
      connectionName: name,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: commandTimeoutMs,
      connectTimeout: Math.max(1000, commandTimeoutMs * 4),
      // Reconnect quickly so a returning Redis is used again within seconds.
      retryStrategy: (attempt) => Math.min(attempt * 100, 500),
      autoResubscribe: true,
    });
  const client = connection('modelport');
  const subscriber = connection('modelport-sub');
  const recoverHooks: Array<() => Promise<void>> = [];
  const downListeners: Array<() => void> = [];
  const upWaiters: Array<() => void> = [];
  let up = false;
  let down: number | undefined = options.now();
  let probing = false;
  let closed = false;
  let lastWarning = 0;

  const markDown = (reason: unknown) => {
    if (!up || closed) return;
    up = false;
    down = options.now();
    options.logger.warn({ reason: reason instanceof Error ? reason.message : String(reason) }, 'redis unreachable: rate limits in safe mode (docs/limits.md)');
    for (const listener of downListeners) listener();
  };

  const probe = async () => {
    if (up || probing || closed || client.status !== 'ready') return;
    probing = true;
    try {
      await client.ping();
      for (const hook of recoverHooks) await hook();
      if (closed) return;
      up = true;
      down = undefined;
      options.logger.info('redis reachable: shared rate limits and invalidation resumed');
      for (const resolve of upWaiters.splice(0)) resolve();
    } catch (error) {
      if (options.now() - lastWarning > 10_000) {
        lastWarning = options.now();
        options.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'redis recovery failed; retrying');
      }
    } finally {
      probing = false;
    }
  };

  const timer = setInterval(() => void probe(), options.probeIntervalMs ?? 500);
  timer.unref();
  client.on('ready', () => void probe());
  client.on('close', () => markDown(new Error('connection closed')));
  // ioredis reports every failed reconnect; the link logs its own transitions instead.
  client.on('error', () => undefined);
  subscriber.on('error', () => undefined);

  return {
    client,
    subscriber,
    isUp: () => up,
    downSince: () => down,
    reportFailure(error) {
      if (error instanceof Error && error.name === 'ReplyError') return;
      markDown(error);
    },
    onRecover: (hook) => recoverHooks.push(hook),
    onDown: (listener) => downListeners.push(listener),
    ready(timeoutMs) {
      if (up) return Promise.resolve(true);
      return new Promise((resolve) => {
        const timeout = setTimeout(() => resolve(false), timeoutMs);
        upWaiters.push(() => {
          clearTimeout(timeout);
          resolve(true);
        });
      });
    },
    async close() {
      closed = true;
      clearInterval(timer);
      for (const resolve of upWaiters.splice(0)) resolve();
      client.disconnect();
      subscriber.disconnect();
    },
  };
}
