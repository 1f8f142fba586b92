import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface SignupVerificationRecord {
  readonly tokenHash: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** Sign-ups waiting for their address to be confirmed (migration 0011). */
export function createSignupVerificationsRepository(db: Kysely<Database>) {
  return {
    async create(record: SignupVerificationRecord): Promise<void> {
      await db
        .insertInto('signup_verifications')
        .values({ token_hash: record.tokenHash, email: record.email, password_hash: record.passwordHash, created_at: record.createdAt, expires_at: record.expiresAt })
        .execute();
    },

    async find(tokenHash: string): Promise<SignupVerificationRecord | undefined> {
      const row = await db.selectFrom('signup_verifications').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
      return row === undefined
        ? undefined
        : { tokenHash: row.token_hash, email: row.email, passwordHash: row.password_hash, createdAt: Number(row.created_at), expiresAt: Number(row.expires_at) };
    },

    /** Deletes the row; true for the one caller that did, so a token is used at most once however many race for it. */
    async consume(tokenHash: string): Promise<boolean> {
      const result = await db.deleteFrom('signup_verifications').where('token_hash', '=', tokenHash).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** Sign-ups for this address since `since`: how many mails it was sent lately. */
    async countSince(email: string, since: number): Promise<number> {
      const row = await db
        .selectFrom('signup_verifications')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('email', '=', email)
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /** Once an address has its account, its other links are void. */
    async deleteForEmail(email: string): Promise<void> {
      await db.deleteFrom('signup_verifications').where('email', '=', email).execute();
    },

    async deleteExpired(at: number): Promise<void> {
      await db.deleteFrom('signup_verifications').where('expires_at', '<=', at).execute();
    },
  };
}

export type SignupVerificationsRepository = ReturnType<typeof createSignupVerificationsRepository>;
