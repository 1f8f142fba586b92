import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import type { Database, UserRow } from './schema.js';

export function createUsersRepository(db: Kysely<Database>, now: () => number) {
  return {
    async create(email: string, passwordHash: string): Promise<UserRow> {
      const row: UserRow = { id: createId('usr', 16), email: email.toLowerCase(), password_hash: passwordHash, created_at: now() };
      await db.insertInto('users').values(row).execute();
      return row;
    },
    findByEmail(email: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
    },
    findById(id: string): Promise<UserRow | undefined> {
      return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    },
    list(): Promise<UserRow[]> {
      return db.selectFrom('users').selectAll().orderBy('created_at').execute();
    },
    async count(): Promise<number> {
      const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst();
      return Number(row?.n ?? 0);
    },
  };
}

export type UsersRepository = ReturnType<typeof createUsersRepository>;
