import { sql, type Kysely } from 'kysely';
import type { Database, NewUsageRecord, UsageRecordRow } from './schema.js';

export interface UsageQuery {
  readonly ownerId?: string;
  readonly keyId?: string;
  readonly routerId?: string;
  readonly since?: number;
  readonly limit?: number;
}

export function createUsageRepository(db: Kysely<Database>) {
  return {
    /** Inserts a batch; a record already written (same request id) is skipped, never counted twice. */
    async insertMany(records: readonly NewUsageRecord[]): Promise<void> {
      if (records.length === 0) return;
      await db
        .insertInto('usage_records')
        .values(records as NewUsageRecord[])
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();
    },
    list(query: UsageQuery = {}): Promise<UsageRecordRow[]> {
      let select = db.selectFrom('usage_records').selectAll();
      if (query.ownerId !== undefined) select = select.where('owner_id', '=', query.ownerId);
      if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
      if (query.routerId !== undefined) select = select.where('router_id', '=', query.routerId);
      if (query.since !== undefined) select = select.where('created_at', '>=', query.since);
      return select.orderBy('created_at', 'desc').limit(query.limit ?? 1000).execute();
    },
    /** What a key or a router has spent (USD) in records created at or after `since`. */
    async spentSince(subject: { readonly kind: 'key' | 'router'; readonly id: string }, since: number): Promise<number> {
      const column = subject.kind === 'key' ? 'key_id' : 'router_id';
      const row = await db
        .selectFrom('usage_records')
        .select(sql<number | string | null>`sum(cost_usd)`.as('spent'))
        .where(column, '=', subject.id)
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(row?.spent ?? 0);
    },
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;
