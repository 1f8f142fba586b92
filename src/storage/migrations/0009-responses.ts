import type { Kysely, Migration } from 'kysely';

/**
 * Stored responses of the Responses API (docs/api.md, Responses): each answer with the input items it was made from,
 * so that `previous_response_id` can continue the conversation and `GET /responses/{id}` can give it back. Rows are
 * the owner's alone and expire (MODELPORT_RESPONSES_RETENTION_DAYS); the index on `expires_at` serves the sweep.
 */
export const responsesMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('responses')
      // `resp_…`: the request id's random part, unguessable.
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull())
      .addColumn('key_id', 'text')
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('expires_at', 'bigint', (column) => column.notNull())
      // The response object as it was answered, JSON.
      .addColumn('response', 'text', (column) => column.notNull())
      // Every item the response was made from (earlier turns included), JSON array.
      .addColumn('input_items', 'text', (column) => column.notNull())
      // UTF-8 bytes of `response` and `input_items` together.
      .addColumn('size_bytes', 'integer', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('responses_expires_at').on('responses').column('expires_at').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('responses').execute();
  },
};
