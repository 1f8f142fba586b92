import type { Kysely, Migration } from 'kysely';

/**
 * Per-router settings (RouterSettings in src/routing/routing-contract.ts):
 * balanced weights, the auto quality target, the cost ceiling. JSON text; null
 * for routers that use every default.
 */
export const routerSettingsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('routers').addColumn('settings', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('routers').dropColumn('settings').execute();
  },
};
