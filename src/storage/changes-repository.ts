import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/**
 * A single counter bumped by every write that caches depend on (keys, routers).
 * Servers poll it, so changes made by the CLI or straight in the database reach
 * every running instance.
 */
export function createChangesRepository(db: Kysely<Database>) {
  return {
    async current(): Promise<number> {
      const row = await db.selectFrom('change_counter').select('version').where('id', '=', 1).executeTakeFirst();
      return Number(row?.version ?? 0);
    },
  };
}

export async function bumpChangeCounter(db: Kysely<Database> | Transaction<Database>): Promise<void> {
  await db
    .updateTable('change_counter')
    .set({ version: sql<number>`version + 1` })
    .where('id', '=', 1)
    .execute();
}

export type ChangesRepository = ReturnType<typeof createChangesRepository>;
