import type { Kysely, Migration } from 'kysely';

/**
 * Rate limits beyond requests per minute (docs/limits.md): per key tokens per
 * minute and a cap on concurrent requests; per router requests and tokens per
 * minute (null: no router limit). And the registry of live gateway instances,
 * whose heartbeats tell each instance its share of a limit while Redis is down.
 */
export const keyLimitsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('api_keys').addColumn('tpm_limit', 'integer').execute();
    await db.schema.alterTable('api_keys').addColumn('max_concurrency', 'integer').execute();
    await db.schema.alterTable('routers').addColumn('rpm_limit', 'integer').execute();
    await db.schema.alterTable('routers').addColumn('tpm_limit', 'integer').execute();
    await db.schema
      .createTable('gateway_instances')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('started_at', 'bigint', (column) => column.notNull())
      .addColumn('heartbeat_at', 'bigint', (column) => column.notNull())
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('gateway_instances').execute();
    await db.schema.alterTable('routers').dropColumn('tpm_limit').execute();
    await db.schema.alterTable('routers').dropColumn('rpm_limit').execute();
    await db.schema.alterTable('api_keys').dropColumn('max_concurrency').execute();
    await db.schema.alterTable('api_keys').dropColumn('tpm_limit').execute();
  },
};
