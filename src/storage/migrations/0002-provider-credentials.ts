import type { Kysely, Migration } from 'kysely';

/**
 * Owners' own provider credentials (bring your own key) and the models and
 * prices they declare. Keys are stored only sealed with AES-256-GCM
 * (src/lib/secret-box.ts); `key_hint` is what people see.
 */
export const providerCredentialsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('provider_credentials')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull().references('users.id'))
      // A preset name (openai, anthropic…) or the owner's name for a custom OpenAI-compatible provider.
      .addColumn('provider', 'text', (column) => column.notNull())
      .addColumn('base_url', 'text')
      // `v1:<iv>:<ciphertext>:<tag>`, base64; null for a custom provider that needs no key.
      .addColumn('encrypted_key', 'text')
      .addColumn('key_hint', 'text')
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('updated_at', 'bigint', (column) => column.notNull())
      .addUniqueConstraint('provider_credentials_owner_provider_key', ['owner_id', 'provider'])
      .execute();

    await db.schema
      .createTable('custom_models')
      .addColumn('owner_id', 'text', (column) => column.notNull().references('users.id'))
      .addColumn('provider', 'text', (column) => column.notNull())
      .addColumn('model', 'text', (column) => column.notNull())
      .addColumn('input_per_mtok', 'double precision', (column) => column.notNull())
      .addColumn('output_per_mtok', 'double precision', (column) => column.notNull())
      .addColumn('cached_input_per_mtok', 'double precision')
      .addColumn('context_window', 'integer', (column) => column.notNull())
      .addColumn('max_output_tokens', 'integer', (column) => column.notNull())
      .addColumn('supports_tools', 'integer', (column) => column.notNull())
      .addColumn('supports_vision', 'integer', (column) => column.notNull())
      .addColumn('quality_score', 'double precision')
      .addColumn('active_params_b', 'double precision')
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('updated_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('custom_models_pkey', ['owner_id', 'provider', 'model'])
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('custom_models').execute();
    await db.schema.dropTable('provider_credentials').execute();
  },
};
