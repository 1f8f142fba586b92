import type { Kysely, Migration } from 'kysely';

/**
 * What an `auto` router learns from (docs/routing.md): per auto-routed request, the prompt's features and the model
 * that answered (`routing_samples`, bounded per router and pruned off the request path), so that feedback on the
 * request can become a label without the prompt's text being kept; the labels themselves (`routing_labels`: an
 * owner's calibration examples and feedback); which instance is fitting which router (`router_refit_leases`); and,
 * per usage record, what the same tokens would have cost on the router's strongest model.
 */
export const routingLabelsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('routing_samples')
      .addColumn('request_id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull())
      .addColumn('router_id', 'text', (column) => column.notNull())
      // The model that answered.
      .addColumn('model_id', 'text', (column) => column.notNull())
      // The prompt vector (src/routing/auto/prompt-vector.ts), base64 of little-endian float32.
      .addColumn('vector', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .execute();
    // Pruning keeps the newest per router: walked by router, newest first.
    await db.schema.createIndex('routing_samples_router_time').on('routing_samples').columns(['router_id', 'created_at']).execute();

    await db.schema
      .createTable('routing_labels')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull())
      .addColumn('router_id', 'text', (column) => column.notNull())
      .addColumn('model_id', 'text', (column) => column.notNull())
      .addColumn('vector', 'text', (column) => column.notNull())
      // 0..1: how good the model's answer was.
      .addColumn('score', 'double precision', (column) => column.notNull())
      // 'calibration' or 'feedback'.
      .addColumn('source', 'text', (column) => column.notNull())
      // Feedback only: the request it scores, and who scored it (a key id, or `session:<userId>` from the dashboard).
      .addColumn('request_id', 'text')
      .addColumn('key_id', 'text')
      .addColumn('comment', 'text')
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      // A repeated feedback replaces the score: the refit worker sees the change by this time.
      .addColumn('updated_at', 'bigint', (column) => column.notNull())
      .execute();
    // NULLs are distinct in both engines: calibration labels (no request) never collide.
    await db.schema.createIndex('routing_labels_request_rater').unique().on('routing_labels').columns(['request_id', 'key_id']).execute();
    await db.schema.createIndex('routing_labels_router_time').on('routing_labels').columns(['router_id', 'created_at']).execute();
    await db.schema.createIndex('routing_labels_router_updated').on('routing_labels').columns(['router_id', 'updated_at']).execute();

    await db.schema
      .createTable('router_refit_leases')
      .addColumn('router_id', 'text', (column) => column.primaryKey())
      .addColumn('holder', 'text', (column) => column.notNull())
      .addColumn('expires_at', 'bigint', (column) => column.notNull())
      .execute();

    await db.schema.alterTable('usage_records').addColumn('counterfactual_cost_usd', 'double precision').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('usage_records').dropColumn('counterfactual_cost_usd').execute();
    await db.schema.dropTable('router_refit_leases').execute();
    await db.schema.dropTable('routing_labels').execute();
    await db.schema.dropTable('routing_samples').execute();
  },
};
