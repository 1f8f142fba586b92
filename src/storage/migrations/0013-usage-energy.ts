import type { Kysely, Migration } from 'kysely';

/**
 * What each usage record keeps beside its cost and carbon (docs/carbon.md): the call's energy, from which its
 * carbon was computed, and the prompt tokens read from and written to the provider's cache and the reasoning tokens
 * inside the completion, each billed at its own price. Older records read as 0: they were not counted apart.
 */
export const usageEnergyMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const column of ['energy_wh', 'cached_prompt_tokens', 'cache_write_prompt_tokens', 'reasoning_tokens']) {
      await db.schema
        .alterTable('usage_records')
        .addColumn(column, column === 'energy_wh' ? 'double precision' : 'integer', (definition) => definition.notNull().defaultTo(0))
        .execute();
    }
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const column of ['reasoning_tokens', 'cache_write_prompt_tokens', 'cached_prompt_tokens', 'energy_wh']) {
      await db.schema.alterTable('usage_records').dropColumn(column).execute();
    }
  },
};
