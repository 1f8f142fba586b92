import type { Kysely, Migration } from 'kysely';

/**
 * Spend caps in USD per key or per router, per UTC day or month. One row per
 * subject; a subject without a row has no budget. An index on usage records by
 * key and router and time lets a spend counter be rebuilt from them.
 */
export const budgetsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('budgets')
      // 'key' or 'router'.
      .addColumn('subject_kind', 'text', (column) => column.notNull())
      .addColumn('subject_id', 'text', (column) => column.notNull())
      .addColumn('amount_usd', 'double precision', (column) => column.notNull())
      // 'day' or 'month' (UTC calendar periods).
      .addColumn('period', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('updated_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('budgets_pkey', ['subject_kind', 'subject_id'])
      .execute();
    await db.schema.createIndex('usage_records_key_time').ifNotExists().on('usage_records').columns(['key_id', 'created_at']).execute();
    await db.schema.createIndex('usage_records_router_time').ifNotExists().on('usage_records').columns(['router_id', 'created_at']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('usage_records_router_time').ifExists().execute();
    await db.schema.dropIndex('usage_records_key_time').ifExists().execute();
    await db.schema.dropTable('budgets').execute();
  },
};
