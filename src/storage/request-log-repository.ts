import { sql, type Kysely } from 'kysely';
import type { Database, NewUsageRecord, RequestLogRow } from './schema.js';

/** Every column of a request log row, in the order a batch INSERT lists them. */
const LOG_COLUMNS = [
  'request_id',
  'owner_id',
  'router_id',
  'created_at',
  'routing',
  'attempts',
  'carbon',
  'prices',
  'request_body',
  'response_body',
  'bodies_truncated',
  'bodies_expire_at',
  'bodies_expired',
] as const satisfies readonly (keyof RequestLogRow)[];

const DAY_MS = 86_400_000;

/**
 * The request logs that ride with the records, flat as LOG_COLUMNS (empty when none): `_meta`'s parts as JSON and the
 * bodies, when kept, redacted and capped. Runs when the batch is written, not while the request is answered.
 */
export function requestLogValues(records: readonly NewUsageRecord[]): unknown[] {
  const values: unknown[] = [];
  for (const record of records) {
    const log = record.request_log;
    if (log === undefined || record.owner_id === null || record.owner_id === undefined) continue;
    const bodies = log.bodies;
    const request = bodies === undefined ? undefined : capped(bodies.redact(asText(bodies.request)), bodies.maxBytes);
    const response = bodies === undefined || bodies.response === undefined ? undefined : capped(bodies.redact(asText(bodies.response)), bodies.maxBytes);
    values.push(
      record.id,
      record.owner_id,
      log.router_id,
      record.created_at,
      JSON.stringify(log.routing ?? null),
      JSON.stringify(log.attempts),
      log.carbon === undefined || log.carbon === null ? null : JSON.stringify(log.carbon),
      log.prices === undefined || log.prices === null ? null : JSON.stringify(log.prices),
      request?.text ?? null,
      response?.text ?? null,
      request?.truncated === true || response?.truncated === true ? 1 : 0,
      bodies === undefined ? null : record.created_at + bodies.retentionDays * DAY_MS,
      0,
    );
  }
  return values;
}

function asText(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body ?? null);
}

/** Text cut to at most `maxBytes` of UTF-8, never inside a character. */
export function capped(text: string, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return { text, truncated: false };
  const cut = Buffer.from(text).subarray(0, maxBytes).toString('utf8');
  // A character cut in half decodes as U+FFFD: dropped.
  return { text: cut.endsWith('\uFFFD') ? cut.slice(0, -1) : cut, truncated: true };
}

/** Inserts request logs given as requestLogValues; one already written (same request id) is skipped. */
export async function insertRequestLogValues(executor: Kysely<Database>, values: readonly unknown[]): Promise<void> {
  const rows: RequestLogRow[] = [];
  for (let start = 0; start < values.length; start += LOG_COLUMNS.length) {
    rows.push(Object.fromEntries(LOG_COLUMNS.map((column, index) => [column, values[start + index]])) as unknown as RequestLogRow);
  }
  if (rows.length === 0) return;
  await executor.insertInto('request_logs').values(rows).onConflict((conflict) => conflict.column('request_id').doNothing()).execute();
}

/** Deletes a router's stored bodies (logging turned off, the router deleted); the rest of each row stays. */
export async function deleteRouterBodies(executor: Kysely<Database>, routerId: string): Promise<void> {
  await executor
    .updateTable('request_logs')
    .set({ request_body: null, response_body: null, bodies_truncated: 0, bodies_expire_at: null })
    .where('router_id', '=', routerId)
    .where('bodies_expire_at', 'is not', null)
    .execute();
}

export function createRequestLogRepository(db: Kysely<Database>) {
  return {
    /** An owner's request log row, by request id. */
    find(ownerId: string, requestId: string): Promise<RequestLogRow | undefined> {
      return db.selectFrom('request_logs').selectAll().where('request_id', '=', requestId).where('owner_id', '=', ownerId).executeTakeFirst();
    },
    deleteBodies: (routerId: string): Promise<void> => deleteRouterBodies(db, routerId),
    /** Deletes up to `batch` rows' bodies whose retention ended before `now`; how many rows it changed. */
    async expireBodies(now: number, batch: number): Promise<number> {
      const due = db.selectFrom('request_logs').select('request_id').where('bodies_expire_at', '<=', now).limit(batch);
      const ids = (await due.execute()).map((row) => row.request_id);
      if (ids.length === 0) return 0;
      await db
        .updateTable('request_logs')
        .set({ request_body: null, response_body: null, bodies_expire_at: null, bodies_expired: 1 })
        .where('request_id', 'in', ids)
        // Only rows still due: a concurrent sweep (another instance) may have taken them.
        .where('bodies_expire_at', '<=', now)
        .execute();
      return ids.length;
    },
    /** Test support: moves a row's time back, as if it had been written `ms` earlier. */
    async age(requestId: string, ms: number): Promise<void> {
      await db
        .updateTable('request_logs')
        .set({ created_at: sql`created_at - ${ms}`, bodies_expire_at: sql`bodies_expire_at - ${ms}` })
        .where('request_id', '=', requestId)
        .execute();
    },
  };
}

export type RequestLogRepository = ReturnType<typeof createRequestLogRepository>;
