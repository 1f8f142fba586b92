import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface SessionRecord {
  readonly idHash: string;
  readonly userId: string;
  readonly csrfToken: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
}

/** Dashboard sessions, by the SHA-256 of their cookie value. */
export function createSessionsRepository(db: Kysely<Database>) {
  return {
    async create(session: SessionRecord): Promise<void> {
      await db
        .insertInto('sessions')
        .values({
          id_hash: session.idHash,
          user_id: session.userId,
          csrf_token: session.csrfToken,
          created_at: session.createdAt,
          last_seen_at: session.lastSeenAt,
        })
        .execute();
    },
    async find(idHash: string): Promise<SessionRecord | undefined> {
      const row = await db.selectFrom('sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
      return row === undefined
        ? undefined
        : { idHash: row.id_hash, userId: row.user_id, csrfToken: row.csrf_token, createdAt: row.created_at, lastSeenAt: row.last_seen_at };
    },
    async touch(idHash: string, at: number): Promise<void> {
      await db.updateTable('sessions').set({ last_seen_at: at }).where('id_hash', '=', idHash).execute();
    },
    async remove(idHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    },
    /** Deletes sessions idle since `idleBefore` or created before `createdBefore`. */
    async removeExpired(idleBefore: number, createdBefore: number): Promise<void> {
      await db
        .deleteFrom('sessions')
        .where((eb) => eb.or([eb('last_seen_at', '<', idleBefore), eb('created_at', '<', createdBefore)]))
        .execute();
    },
  };
}

export type SessionsRepository = ReturnType<typeof createSessionsRepository>;
