import { sql, type Kysely } from 'kysely';
import type { DialectName } from './database.js';
import type { Database } from './schema.js';

/** Times before which usage is expired: raw records (with their request logs and minute rollups), and hour rollups. */
export interface RetentionCutoffs {
  readonly records: number;
  readonly hourRollups: number;
}

/**
 * Deletes expired usage a small batch at a time, so no statement holds a lock, or SQLite's single writer, for long.
 * On Postgres raw records are not deleted here: their day partitions are dropped whole (usage-partitions.ts).
 */
export function createUsageRetentionRepository(db: Kysely<Database>, dialect: DialectName) {
  // A row's physical address: the cheapest way to name a batch of rows to delete on each engine.
  const address = sql.raw(dialect === 'postgres' ? 'ctid' : 'rowid');
  const deleteWhere = async (table: string, condition: ReturnType<typeof sql>, batch: number): Promise<number> => {
    const result = await sql`delete from ${sql.table(table)} where ${address} in (select ${address} from ${sql.table(table)} where ${condition} limit ${sql.lit(batch)})`.execute(db);
    return Number(result.numAffectedRows ?? 0n);
  };
  return {
    /** Deletes at most `batch` expired rows of each kind; `done` once every kind had fewer left than that. */
    async deleteExpiredBatch(cutoffs: RetentionCutoffs, batch: number): Promise<{ deleted: number; done: boolean }> {
      const records = sql.lit(Math.trunc(cutoffs.records));
      const hours = sql.lit(Math.trunc(cutoffs.hourRollups));
      const counts: number[] = [];
      if (dialect === 'sqlite') counts.push(await deleteWhere('usage_records', sql`created_at < ${records}`, batch));
      counts.push(await deleteWhere('request_logs', sql`created_at < ${records}`, batch));
      for (const table of ['usage_rollups', 'usage_latency_rollups']) {
        counts.push(await deleteWhere(table, sql`grain = 'minute' and bucket_start < ${records}`, batch));
        counts.push(await deleteWhere(table, sql`grain = 'hour' and bucket_start < ${hours}`, batch));
      }
      return { deleted: counts.reduce((sum, count) => sum + count, 0), done: counts.every((count) => count < batch) };
    },
  };
}

export type UsageRetentionRepository = ReturnType<typeof createUsageRetentionRepository>;
