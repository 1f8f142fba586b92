import { PostgresAdapter, sql, type Kysely, type Migration } from 'kysely';
import type { Database } from '../schema.js';
import { createUsagePartitionInTransaction, USAGE_ARCHIVE_PARTITION, USAGE_PARTITION_DAYS_AHEAD } from '../usage-partitions.js';
import { addRollups, rollupRowsOf, type RollupSource } from '../usage-rollup-writer.js';

const DAY = 86_400_000;
const BACKFILL_PAGE = 5000;

/**
 * Usage analytics that stay exact at any volume (docs/usage-analytics.md): rollups per owner and minute, hour and day,
 * written with the records from now on and summed here from the records already kept; and raw records that can expire.
 * On Postgres `usage_records` becomes a table partitioned by day (the records already kept move to one archive
 * partition, dropped once all of them are past the retention), so expired days are dropped, not deleted row by row.
 * On SQLite an index on the time lets the sweep delete expired rows in small batches.
 */
export const usageRollupsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
    await db.schema
      .createTable('usage_rollups')
      .addColumn('owner_id', 'text', (column) => column.notNull())
      .addColumn('grain', 'text', (column) => column.notNull())
      .addColumn('bucket_start', 'bigint', (column) => column.notNull())
      .addColumn('router_id', 'text', (column) => column.notNull())
      .addColumn('model', 'text', (column) => column.notNull())
      .addColumn('key_id', 'text', (column) => column.notNull())
      .addColumn('status', 'integer', (column) => column.notNull())
      .addColumn('requests', 'bigint', (column) => column.notNull())
      .addColumn('streamed', 'bigint', (column) => column.notNull())
      .addColumn('prompt_tokens', 'bigint', (column) => column.notNull())
      .addColumn('completion_tokens', 'bigint', (column) => column.notNull())
      .addColumn('total_tokens', 'bigint', (column) => column.notNull())
      .addColumn('cached_prompt_tokens', 'bigint', (column) => column.notNull())
      .addColumn('cache_write_prompt_tokens', 'bigint', (column) => column.notNull())
      .addColumn('reasoning_tokens', 'bigint', (column) => column.notNull())
      .addColumn('cost_units', 'bigint', (column) => column.notNull())
      .addColumn('counterfactual_cost_units', 'bigint', (column) => column.notNull())
      .addColumn('carbon_grams', 'double precision', (column) => column.notNull())
      .addColumn('energy_wh', 'double precision', (column) => column.notNull())
      .addColumn('latency_ms_sum', 'double precision', (column) => column.notNull())
      .addPrimaryKeyConstraint('usage_rollups_pk', ['owner_id', 'grain', 'bucket_start', 'router_id', 'model', 'key_id', 'status'])
      .execute();
    // Budgets read a key's or a router's spend without its owner.
    await db.schema.createIndex('usage_rollups_router').on('usage_rollups').columns(['router_id', 'grain', 'bucket_start']).execute();
    await db.schema.createIndex('usage_rollups_key').on('usage_rollups').columns(['key_id', 'grain', 'bucket_start']).execute();
    await db.schema
      .createTable('usage_latency_rollups')
      .addColumn('owner_id', 'text', (column) => column.notNull())
      .addColumn('grain', 'text', (column) => column.notNull())
      .addColumn('bucket_start', 'bigint', (column) => column.notNull())
      .addColumn('router_id', 'text', (column) => column.notNull())
      .addColumn('model', 'text', (column) => column.notNull())
      .addColumn('latency_bucket', 'integer', (column) => column.notNull())
      .addColumn('requests', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('usage_latency_rollups_pk', ['owner_id', 'grain', 'bucket_start', 'router_id', 'model', 'latency_bucket'])
      .execute();
    // The retention sweep deletes expired minutes and hours by these.
    await db.schema.createIndex('usage_rollups_expiry').on('usage_rollups').columns(['grain', 'bucket_start']).execute();
    await db.schema.createIndex('usage_latency_rollups_expiry').on('usage_latency_rollups').columns(['grain', 'bucket_start']).execute();
    await db.schema.createIndex('request_logs_time').on('request_logs').column('created_at').execute();

    if (postgres) await partitionUsageRecords(db);
    else await db.schema.createIndex('usage_records_time').on('usage_records').column('created_at').execute();
    await backfillRollups(db as unknown as Kysely<Database>);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('request_logs_time').ifExists().execute();
    await db.schema.dropTable('usage_latency_rollups').execute();
    await db.schema.dropTable('usage_rollups').execute();
  },
};

/**
 * Recreates `usage_records` partitioned by `created_at`: the rows already kept go to one archive partition (everything
 * before today), and a partition per day from today on is created ahead. The primary key includes the partition key,
 * as Postgres requires; a request id is still written once (a record is always written with the time it was made).
 */
async function partitionUsageRecords(db: Kysely<unknown>): Promise<void> {
  const today = Math.floor(Date.now() / DAY) * DAY;
  await sql`alter table usage_records rename to usage_records_unpartitioned`.execute(db);
  await sql`create table usage_records (like usage_records_unpartitioned including defaults) partition by range (created_at)`.execute(db);
  await sql`alter table usage_records add constraint usage_records_pk primary key (id, created_at)`.execute(db);
  await sql`create table ${sql.id(USAGE_ARCHIVE_PARTITION)} partition of usage_records for values from (minvalue) to (${sql.lit(today)})`.execute(db);
  for (let day = 0; day <= USAGE_PARTITION_DAYS_AHEAD; day += 1) await createUsagePartitionInTransaction(db, today + day * DAY);
  await sql`insert into usage_records select * from usage_records_unpartitioned`.execute(db);
  await sql`drop table usage_records_unpartitioned`.execute(db);
  await db.schema.createIndex('usage_records_key_time_idx').on('usage_records').columns(['key_id', 'created_at']).execute();
  await db.schema.createIndex('usage_records_owner_time_idx').on('usage_records').columns(['owner_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('usage_records_router_time').on('usage_records').columns(['router_id', 'created_at']).execute();
}

/** Sums the records already kept into the rollups, a page at a time. */
async function backfillRollups(db: Kysely<Database>): Promise<void> {
  let after: { time: number; id: string } | undefined;
  for (;;) {
    let query = db.selectFrom('usage_records').selectAll();
    const cursor = after;
    if (cursor !== undefined) {
      query = query.where((eb) => eb.or([eb('created_at', '>', cursor.time), eb.and([eb('created_at', '=', cursor.time), eb('id', '>', cursor.id)])]));
    }
    const rows = await query.orderBy('created_at').orderBy('id').limit(BACKFILL_PAGE).execute();
    if (rows.length === 0) return;
    await addRollups(db, rollupRowsOf(rows as unknown as RollupSource[]));
    const last = rows[rows.length - 1];
    if (last === undefined || rows.length < BACKFILL_PAGE) return;
    after = { time: last.created_at, id: last.id };
  }
}
