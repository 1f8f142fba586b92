import type { Kysely } from 'kysely';
import type { Database, NewUsageRecord, UsageRecordRow } from './schema.js';

export interface UsageQuery {
  readonly ownerId?: string;
  readonly keyId?: string;
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
      if (query.since !== undefined) select = select.where('created_at', '>=', query.since);
      return select.orderBy('created_at', 'desc').limit(query.limit ?? 1000).execute();
    },
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;
