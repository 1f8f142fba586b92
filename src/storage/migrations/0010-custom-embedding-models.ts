import type { Kysely, Migration } from 'kysely';

/**
 * Owners may declare embedding models (docs/catalog.md#owners-models-and-prices): a model's kind, and for an
 * embedding model its vector length, whether requests may shorten it, and its vector space. Existing rows are
 * chat models, as every declared model was.
 */
export const customEmbeddingModelsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('custom_models').addColumn('kind', 'text', (column) => column.notNull().defaultTo('chat')).execute();
    await db.schema.alterTable('custom_models').addColumn('embedding_dimensions', 'integer').execute();
    await db.schema.alterTable('custom_models').addColumn('embedding_shortenable', 'integer').execute();
    await db.schema.alterTable('custom_models').addColumn('embedding_space', 'text').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('custom_models').dropColumn('embedding_space').execute();
    await db.schema.alterTable('custom_models').dropColumn('embedding_shortenable').execute();
    await db.schema.alterTable('custom_models').dropColumn('embedding_dimensions').execute();
    await db.schema.alterTable('custom_models').dropColumn('kind').execute();
  },
};
