import type { Logger } from 'pino';
import { z } from 'zod';
import type { ProcessModelHealth } from '../routing/health/model-health.js';
import type { HealthEvent, LatencyFigures, LatencyTable } from '../routing/health/shared-health-state.js';
import type { RedisLink } from '../storage/redis-link.js';

export interface HealthSyncOptions {
  readonly link: RedisLink;
  readonly health: ProcessModelHealth;
  /** MODELPORT_REDIS_PREFIX: the channel and both hashes are named under it. */
  readonly prefix: string;
  /** This instance's id (the instance registry's): its latency table's name, and how it ignores its own messages. */
  readonly instanceId: string;
  /** How often this instance publishes its latency averages, ms. @default 1000 */
  readonly latencyIntervalMs?: number;
  /** Another instance's averages not refreshed for this long are forgotten, ms. @default 10000 */
  readonly latencyStaleAfterMs?: number;
  /** Most events waiting to be published (one per provider or model); beyond it the oldest is dropped. @default 1000 */
  readonly maxQueued?: number;
  readonly logger: Logger;
  readonly now: () => number;
}

export interface HealthSync {
  /** Publishes what is queued now (tests; it is otherwise published on the next turn of the event loop). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const eventSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('backoff'), provider: z.string().min(1), until: z.number() }),
  z.object({ kind: z.literal('open'), model: z.string().min(1), until: z.number() }),
]);
const figuresSchema = z.object({
  key: z.string().min(1),
  ttftMs: z.number().nonnegative().nullable(),
  ttftSamples: z.number().int().nonnegative(),
  tokensPerSecond: z.number().nonnegative().nullable(),
  speedSamples: z.number().int().nonnegative(),
  samples: z.number().int().nonnegative(),
});
const latencySchema = z.object({ at: z.number(), models: z.array(figuresSchema) });
const messageSchema = z.object({ from: z.string().min(1), events: z.array(eventSchema).optional(), latency: latencySchema.optional() });
type LatencyWire = z.infer<typeof latencySchema>;

/** Raises each field to the given time unless it already holds a later one; keeps the hash alive at least `ttl` ms. */
const RAISE_SCRIPT = `
for i = 1, #ARGV - 1, 2 do
  local current = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0') or 0
  if tonumber(ARGV[i + 1]) > current then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
local ttl = tonumber(ARGV[#ARGV])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`;

const fieldOf = (event: HealthEvent) => (event.kind === 'backoff' ? `backoff ${event.provider}` : `open ${event.model}`);

function eventOfField(field: string, value: string): HealthEvent | undefined {
  const space = field.indexOf(' ');
  const until = Number(value);
  if (space === -1 || !Number.isFinite(until)) return undefined;
  const kind = field.slice(0, space);
  const key = field.slice(space + 1);
  if (kind === 'backoff') return { kind, provider: key, until };
  if (kind === 'open') return { kind, model: key, until };
  return undefined;
}

const finiteOrNull = (value: number) => (Number.isFinite(value) ? value : null);

function latencyToWire(table: LatencyTable, at: number): LatencyWire {
  return {
    at,
    models: [...table].map(([key, figures]) => ({ key, ...figures, ttftMs: finiteOrNull(figures.ttftMs), tokensPerSecond: finiteOrNull(figures.tokensPerSecond) })),
  };
}

function latencyFromWire(wire: LatencyWire): LatencyTable {
  const table = new Map<string, LatencyFigures>();
  for (const { key, ...figures } of wire.models) {
    table.set(key, { ...figures, ttftMs: figures.ttftMs ?? Number.NaN, tokensPerSecond: figures.tokensPerSecond ?? Number.NaN });
  }
  return table;
}

/**
 * Shares model health over Redis (docs/routing.md, "Shared health"): the
 * provider back-offs and circuit openings this instance learns are queued and
 * published on the next turn of the event loop (pub/sub for the instances
 * running, a hash of running back-offs and openings for those that start
 * later), and every instance adopts what others publish. Each instance also
 * publishes its latency averages every `latencyIntervalMs`; readers blend them
 * by sample count. Requests only ever read the local health object: nothing on
 * the request path waits on Redis. While Redis is down the queue is dropped and
 * health is local; when the subscriber is ready again this instance reloads the
 * shared state and republishes what it knows, so nothing learned meanwhile is lost.
 */
export function startHealthSync(options: HealthSyncOptions): HealthSync {
  const { link, health, instanceId, logger, now } = options;
  const channel = `${options.prefix}health`;
  const stateKey = `${options.prefix}health:state`;
  const latencyKey = `${options.prefix}health:latency`;
  const latencyIntervalMs = options.latencyIntervalMs ?? 1000;
  const staleAfterMs = options.latencyStaleAfterMs ?? 10_000;
  const maxQueued = options.maxQueued ?? 1000;
  // No instance may shut a model or provider for longer than this gateway's own settings would.
  const longestMs = Math.max(health.options.maxRetryAfterMs, health.options.maxCooldownMs);
  const queue = new Map<string, HealthEvent>();
  let scheduled: NodeJS.Immediate | undefined;
  let closed = false;

  const failed = (error: unknown) => link.reportFailure(error);

  const publishEvents = async (events: readonly HealthEvent[]): Promise<void> => {
    if (events.length === 0 || !link.isUp()) return;
    const pairs = events.flatMap((event) => [fieldOf(event), String(event.until)]);
    await Promise.all([
      link.client.eval(RAISE_SCRIPT, 1, stateKey, ...pairs, String(longestMs + 60_000)),
      link.client.publish(channel, JSON.stringify({ from: instanceId, events })),
    ]).catch(failed);
  };

  const flush = async (): Promise<void> => {
    scheduled = undefined;
    const events = [...queue.values()];
    queue.clear();
    await publishEvents(events);
  };

  health.onEvent((event) => {
    if (closed || !link.isUp()) return;
    const field = fieldOf(event);
    queue.delete(field);
    queue.set(field, event);
    if (queue.size > maxQueued) {
      const oldest = queue.keys().next();
      if (oldest.done !== true) queue.delete(oldest.value);
    }
    scheduled ??= setImmediate(() => void flush());
  });

  const adopt = (event: HealthEvent) => {
    const at = now();
    health.adopt({ ...event, until: Math.min(event.until, at + longestMs) }, at);
  };

  const onMessage = (received: string, message: string) => {
    if (received !== channel) return;
    let parsed: z.infer<typeof messageSchema>;
    try {
      parsed = messageSchema.parse(JSON.parse(message));
    } catch {
      logger.warn({ channel }, 'ignored a malformed shared-health message');
      return;
    }
    if (parsed.from === instanceId) return;
    for (const event of parsed.events ?? []) adopt(event);
    if (parsed.latency !== undefined) health.remoteLatency.put(parsed.from, latencyFromWire(parsed.latency), now());
  };
  link.subscriber.on('message', onMessage);

  /** Loads what others shared while this instance was away (or before it started), then shares what it knows. */
  const resync = async (): Promise<void> => {
    const [state, latency] = await Promise.all([link.client.hgetall(stateKey), link.client.hgetall(latencyKey)]);
    for (const [field, value] of Object.entries(state)) {
      const event = eventOfField(field, value);
      if (event !== undefined) adopt(event);
    }
    const at = now();
    for (const [source, value] of Object.entries(latency)) {
      if (source === instanceId) continue;
      const parsed = latencySchema.safeParse(safeJson(value));
      // The publisher's clock says how old it is; a table from an instance that left stays out.
      if (parsed.success && at - parsed.data.at <= staleAfterMs) health.remoteLatency.put(source, latencyFromWire(parsed.data), at);
    }
    await publishEvents(health.activeEvents(at));
  };

  // Commands are never queued while disconnected: subscribe whenever the connection is (again) ready.
  const subscribe = () => {
    if (closed) return;
    link.subscriber.subscribe(channel).then(
      () => resync().catch(failed),
      (error: unknown) => logger.warn({ err: error }, 'redis subscribe failed'),
    );
  };
  link.subscriber.on('ready', subscribe);
  if (link.subscriber.status === 'ready') subscribe();
  // The link's recover hooks run before it counts as up; resync just after.
  link.onRecover(async () => {
    setImmediate(() => void resync().catch(failed));
  });

  const publishLatency = async (): Promise<void> => {
    const at = now();
    health.remoteLatency.prune(at - staleAfterMs);
    if (!link.isUp()) return;
    const table = health.localLatency();
    if (table.size === 0) return;
    const latency = JSON.stringify(latencyToWire(table, at));
    await Promise.all([
      link.client.hset(latencyKey, instanceId, latency),
      link.client.pexpire(latencyKey, staleAfterMs * 6),
      link.client.publish(channel, `{"from":${JSON.stringify(instanceId)},"latency":${latency}}`),
    ]).catch(failed);
  };
  const timer = setInterval(() => void publishLatency(), latencyIntervalMs);
  timer.unref();

  return {
    flush,
    async close() {
      closed = true;
      clearInterval(timer);
      if (scheduled !== undefined) clearImmediate(scheduled);
      link.subscriber.off('message', onMessage);
      link.subscriber.off('ready', subscribe);
      if (link.isUp()) await link.client.hdel(latencyKey, instanceId).catch(() => undefined);
      await link.subscriber.unsubscribe(channel).catch(() => undefined);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
