import type { Kysely, Migration } from 'kysely';

/**
 * Dashboard accounts: sessions (only the SHA-256 of the cookie's value is
 * stored), organisations with their members and roles, and key rotations.
 *
 * An organisation owns routers, keys and usage the way a user does: its id is
 * the `owner_id` of what belongs to it. Those columns reference `users.id`, so
 * each organisation also has a principal row in `users` (same id, an
 * `@organizations.invalid` email, a password hash nothing verifies); see
 * docs/decisions.md, Dashboard.
 */
export const accountsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('sessions')
      .addColumn('id_hash', 'text', (column) => column.primaryKey())
      .addColumn('user_id', 'text', (column) => column.notNull().references('users.id'))
      .addColumn('csrf_token', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('last_seen_at', 'bigint', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('sessions_user_idx').on('sessions').column('user_id').execute();

    await db.schema
      .createTable('organizations')
      .addColumn('id', 'text', (column) => column.primaryKey().references('users.id'))
      .addColumn('name', 'text', (column) => column.notNull())
      .addColumn('created_by', 'text', (column) => column.notNull().references('users.id'))
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .execute();

    await db.schema
      .createTable('organization_members')
      .addColumn('organization_id', 'text', (column) => column.notNull().references('organizations.id'))
      .addColumn('user_id', 'text', (column) => column.notNull().references('users.id'))
      // owner | admin | viewer
      .addColumn('role', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addPrimaryKeyConstraint('organization_members_pkey', ['organization_id', 'user_id'])
      .execute();
    await db.schema.createIndex('organization_members_user_idx').on('organization_members').column('user_id').execute();

    await db.schema
      .createTable('key_rotations')
      .addColumn('old_key_id', 'text', (column) => column.primaryKey().references('api_keys.id'))
      .addColumn('new_key_id', 'text', (column) => column.notNull().references('api_keys.id'))
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    for (const table of ['key_rotations', 'organization_members', 'organizations', 'sessions']) {
      await db.schema.dropTable(table).execute();
    }
  },
};
