import { sql, type Kysely, type Migration } from 'kysely';

/** Users, routers, API keys, usage records and the change counter. */
export const initialMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('email', 'text', (column) => column.notNull().unique())
      .addColumn('password_hash', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .execute();

    await db.schema
      .createTable('routers')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull().references('users.id'))
      .addColumn('name', 'text', (column) => column.notNull())
      .addColumn('strategy', 'text', (column) => column.notNull())
      .addColumn('models', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('updated_at', 'bigint', (column) => column.notNull())
      .addColumn('deleted_at', 'bigint')
      .execute();
    await db.schema.createIndex('routers_owner_idx').on('routers').column('owner_id').execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('owner_id', 'text', (column) => column.notNull().references('users.id'))
      .addColumn('name', 'text', (column) => column.notNull())
      .addColumn('key_hash', 'text', (column) => column.notNull().unique())
      .addColumn('display_prefix', 'text', (column) => column.notNull())
      .addColumn('router_ids', 'text')
      .addColumn('rpm_limit', 'integer')
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('last_used_at', 'bigint')
      .addColumn('expires_at', 'bigint')
      .addColumn('revoked_at', 'bigint')
      .execute();
    await db.schema.createIndex('api_keys_owner_idx').on('api_keys').column('owner_id').execute();

    await db.schema
      .createTable('usage_records')
      .addColumn('id', 'text', (column) => column.primaryKey())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('owner_id', 'text')
      .addColumn('key_id', 'text')
      .addColumn('router_id', 'text')
      .addColumn('model', 'text')
      .addColumn('status', 'integer', (column) => column.notNull())
      .addColumn('error_code', 'text')
      .addColumn('streamed', 'integer', (column) => column.notNull())
      .addColumn('prompt_tokens', 'integer', (column) => column.notNull())
      .addColumn('completion_tokens', 'integer', (column) => column.notNull())
      .addColumn('total_tokens', 'integer', (column) => column.notNull())
      .addColumn('cost_usd', 'double precision', (column) => column.notNull())
      .addColumn('latency_ms', 'double precision', (column) => column.notNull())
      .addColumn('carbon_grams', 'double precision', (column) => column.notNull())
      .addColumn('attempts', 'integer', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('usage_records_key_time_idx').on('usage_records').columns(['key_id', 'created_at']).execute();
    await db.schema.createIndex('usage_records_owner_time_idx').on('usage_records').columns(['owner_id', 'created_at']).execute();

    await db.schema
      .createTable('change_counter')
      .addColumn('id', 'integer', (column) => column.primaryKey())
      .addColumn('version', 'bigint', (column) => column.notNull())
      .execute();
    await sql`insert into change_counter (id, version) values (1, 0)`.execute(db);
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['change_counter', 'usage_records', 'api_keys', 'routers', 'users']) {
      await db.schema.dropTable(table).execute();
    }
  },
};
