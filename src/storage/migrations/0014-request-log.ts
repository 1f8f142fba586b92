import type { Kysely, Migration } from 'kysely';

/**
 * The request log a user can open (docs/dashboard.md): per routed call, what its `_meta` said (the routing decision
 * and candidates, every attempt, the carbon inputs, the prices), written with its usage record; and, only for routers
 * that log bodies, the request and the answer (secrets redacted, each capped), deleted after the router's retention.
 */
export const requestLogMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('request_logs')
      .addColumn('request_id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull())
      .addColumn('router_id', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      // JSON, as `_meta` reported them: `routing`, `attempts`, `carbon` and `prices` (the last two null when no model answered).
      .addColumn('routing', 'text', (column) => column.notNull())
      .addColumn('attempts', 'text', (column) => column.notNull())
      .addColumn('carbon', 'text')
      .addColumn('prices', 'text')
      // Body logging only: the bodies, redacted and capped at the router's maximum size.
      .addColumn('request_body', 'text')
      .addColumn('response_body', 'text')
      .addColumn('bodies_truncated', 'integer', (column) => column.notNull().defaultTo(0))
      // When the retention sweep deletes the bodies; NULL once none are held.
      .addColumn('bodies_expire_at', 'bigint')
      // 1 once the sweep deleted them (the dashboard says so), 0 when none were kept or they were deleted otherwise.
      .addColumn('bodies_expired', 'integer', (column) => column.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('request_logs_owner_time').on('request_logs').columns(['owner_id', 'created_at']).execute();
    await db.schema.createIndex('request_logs_router').on('request_logs').columns(['router_id']).execute();
    await db.schema.createIndex('request_logs_bodies_expire').on('request_logs').columns(['bodies_expire_at']).execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('request_logs').execute();
  },
};
