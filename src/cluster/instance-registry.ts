import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import type { Database } from '../storage/schema.js';

export interface InstanceRegistryOptions {
  /** How often this instance writes its heartbeat (MODELPORT_HEARTBEAT_MS). @default 1000 */
  readonly heartbeatMs?: number;
  /** A heartbeat older than this no longer counts the instance as live. @default 3 × heartbeatMs */
  readonly staleAfterMs?: number;
  readonly now: () => number;
  readonly onError: (error: unknown) => void;
}

export interface InstanceRegistry {
  readonly id: string;
  /** Live instances at the last heartbeat (this one included, so at least 1). */
  liveCount(): number;
  /**
   * The most instances seen live at any heartbeat within the last `spanMs`: a
   * safe divisor for a limit, since an instance that just left may still have
   * admitted its share inside the window.
   */
  maxLiveWithin(spanMs: number): number;
  close(): Promise<void>;
}

/**
 * Every gateway process heartbeats a row in `gateway_instances`, so each knows
 * how many share the fleet without Redis (docs/limits.md, safe mode).
 */
export async function startInstanceRegistry(db: Kysely<Database>, options: InstanceRegistryOptions): Promise<InstanceRegistry> {
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const staleAfterMs = options.staleAfterMs ?? heartbeatMs * 3;
  const id = createId('gw', 16);
  const startedAt = options.now();
  const history: Array<{ at: number; count: number }> = [];
  let live = 1;

  const beat = async (): Promise<void> => {
    const now = options.now();
    await db
      .insertInto('gateway_instances')
      .values({ id, started_at: startedAt, heartbeat_at: now })
      .onConflict((conflict) => conflict.column('id').doUpdateSet({ heartbeat_at: now }))
      .execute();
    const row = await db.selectFrom('gateway_instances').select((eb) => eb.fn.countAll<number>().as('count')).where('heartbeat_at', '>', now - staleAfterMs).executeTakeFirst();
    live = Math.max(1, Number(row?.count ?? 1));
    history.push({ at: now, count: live });
    while (history.length > 0 && (history[0]?.at ?? now) < now - 10 * 60_000) history.shift();
    // Rows of instances gone for an hour are only clutter.
    if (Math.random() < 0.01) await db.deleteFrom('gateway_instances').where('heartbeat_at', '<', now - 3_600_000).execute();
  };

  await beat();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    beat()
      .catch(options.onError)
      .finally(() => {
        running = false;
      });
  }, heartbeatMs);
  timer.unref();

  return {
    id,
    liveCount: () => live,
    maxLiveWithin(spanMs) {
      const since = options.now() - spanMs - staleAfterMs;
      let most = live;
      for (const entry of history) if (entry.at >= since && entry.count > most) most = entry.count;
      return most;
    },
    async close() {
      clearInterval(timer);
      await db.deleteFrom('gateway_instances').where('id', '=', id).execute().catch(options.onError);
    },
  };
}
