import type { Kysely } from 'kysely';
import type { Database, StoredResponseRow } from './schema.js';

/** A stored Responses API answer; its JSON stays text here (the HTTP layer owns its shape). */
export interface StoredResponseRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly keyId: string | null;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms; from then on the response is gone for its owner. */
  readonly expiresAt: number;
  /** The response object, JSON. */
  readonly response: string;
  /** The input items it was made from, JSON array. */
  readonly inputItems: string;
  readonly sizeBytes: number;
}

function toRecord(row: StoredResponseRow): StoredResponseRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    keyId: row.key_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    response: row.response,
    inputItems: row.input_items,
    sizeBytes: row.size_bytes,
  };
}

/** Stored responses, always looked up by id and owner together: another owner's id is as good as absent. */
export function createResponsesRepository(db: Kysely<Database>) {
  return {
    async insert(record: StoredResponseRecord): Promise<void> {
      await db
        .insertInto('responses')
        .values({
          id: record.id,
          owner_id: record.ownerId,
          key_id: record.keyId,
          created_at: record.createdAt,
          expires_at: record.expiresAt,
          response: record.response,
          input_items: record.inputItems,
          size_bytes: record.sizeBytes,
        })
        .execute();
    },
    /** The owner's response with this id, expired or not (the caller decides what expiry means). */
    async find(id: string, ownerId: string): Promise<StoredResponseRecord | undefined> {
      const row = await db.selectFrom('responses').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    },
    /** Deletes the owner's response; true when there was one. */
    async remove(id: string, ownerId: string): Promise<boolean> {
      const result = await db.deleteFrom('responses').where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** Deletes every response expired at `now`; gives how many. */
    async deleteExpired(now: number): Promise<number> {
      const result = await db.deleteFrom('responses').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type ResponsesRepository = ReturnType<typeof createResponsesRepository>;
