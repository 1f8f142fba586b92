import type { Kysely, Migration } from 'kysely';

/**
 * 0007 created `usage_records_key_time` on (key_id, created_at), the columns of 0001's `usage_records_key_time_idx`:
 * every usage row updated two identical indexes. The duplicate goes.
 */
export const usageIndexDuplicateMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropIndex('usage_records_key_time').ifExists().execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.createIndex('usage_records_key_time').ifNotExists().on('usage_records').columns(['key_id', 'created_at']).execute();
  },
};
