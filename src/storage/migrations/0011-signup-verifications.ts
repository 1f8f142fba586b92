import type { Kysely, Migration } from 'kysely';

/**
 * Sign-ups wait here until their address is confirmed (docs/dashboard-api.md, Sign-up and verification): an account
 * exists in `users` only once the link mailed to it came back, so there is no unverified account to sign in as or
 * to invite. Rows are keyed by the SHA-256 of the link's token; the token is never stored.
 */
export const signupVerificationsMigration: Migration = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('signup_verifications')
      .addColumn('token_hash', 'text', (column) => column.primaryKey())
      .addColumn('email', 'text', (column) => column.notNull())
      .addColumn('password_hash', 'text', (column) => column.notNull())
      .addColumn('created_at', 'bigint', (column) => column.notNull())
      .addColumn('expires_at', 'bigint', (column) => column.notNull())
      .execute();
    await db.schema.createIndex('signup_verifications_email_idx').on('signup_verifications').columns(['email', 'created_at']).execute();
    await db.schema.createIndex('signup_verifications_expiry_idx').on('signup_verifications').column('expires_at').execute();
  },

  async down(db: Kysely<unknown>): Promise<void> {
    await db.schema.dropTable('signup_verifications').execute();
  },
};
