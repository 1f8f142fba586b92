import type { Kysely } from 'kysely';
import type { Database, UsageRecordRow } from './schema.js';

/** The columns usage charts need. */
export type UsagePoint = Pick<
  UsageRecordRow,
  'created_at' | 'router_id' | 'model' | 'key_id' | 'status' | 'prompt_tokens' | 'completion_tokens' | 'total_tokens' | 'cost_usd' | 'latency_ms' | 'carbon_grams' | 'energy_wh'
>;

export interface RequestPageQuery {
  readonly ownerId: string;
  readonly limit: number;
  /** Records strictly older than this (time, then id) position. */
  readonly before?: { readonly time: number; readonly id: string } | undefined;
  readonly routerId?: string | undefined;
  readonly keyId?: string | undefined;
  readonly model?: string | undefined;
  /** `ok`: below 400; `error`: 400 and above; a number: that status. */
  readonly status?: 'ok' | 'error' | number | undefined;
  /** Records created in [from, to). */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
}

/** Reads of one owner's usage records for the dashboard, the same on SQLite and Postgres. */
export function createUsageAnalyticsRepository(db: Kysely<Database>) {
  return {
    /** Records in [from, to), newest first, at most `limit`. */
    points(ownerId: string, from: number, to: number, limit: number, routerId?: string): Promise<UsagePoint[]> {
      let query = db
        .selectFrom('usage_records')
        .select(['created_at', 'router_id', 'model', 'key_id', 'status', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd', 'latency_ms', 'carbon_grams', 'energy_wh'])
        .where('owner_id', '=', ownerId)
        .where('created_at', '>=', from)
        .where('created_at', '<', to);
      if (routerId !== undefined) query = query.where('router_id', '=', routerId);
      return query.orderBy('created_at', 'desc').limit(limit).execute();
    },
    page(query: RequestPageQuery): Promise<UsageRecordRow[]> {
      let select = db.selectFrom('usage_records').selectAll().where('owner_id', '=', query.ownerId);
      if (query.routerId !== undefined) select = select.where('router_id', '=', query.routerId);
      if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
      if (query.model !== undefined) select = select.where('model', '=', query.model);
      if (query.status === 'ok') select = select.where('status', '<', 400);
      else if (query.status === 'error') select = select.where('status', '>=', 400);
      else if (query.status !== undefined) select = select.where('status', '=', query.status);
      if (query.from !== undefined) select = select.where('created_at', '>=', query.from);
      if (query.to !== undefined) select = select.where('created_at', '<', query.to);
      const before = query.before;
      if (before !== undefined) {
        select = select.where((eb) => eb.or([eb('created_at', '<', before.time), eb.and([eb('created_at', '=', before.time), eb('id', '<', before.id)])]));
      }
      return select.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(query.limit).execute();
    },
    /** One of the owner's records, by request id. */
    find(ownerId: string, id: string): Promise<UsageRecordRow | undefined> {
      return db.selectFrom('usage_records').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    },
    /** Names of every router the owner ever had, deleted ones included (old records name them). */
    async routerNames(ownerId: string): Promise<Map<string, string>> {
      const rows = await db.selectFrom('routers').select(['id', 'name']).where('owner_id', '=', ownerId).execute();
      return new Map(rows.map((row) => [row.id, row.name]));
    },
  };
}

export type UsageAnalyticsRepository = ReturnType<typeof createUsageAnalyticsRepository>;
