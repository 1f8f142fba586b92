import type { Kysely } from 'kysely';
import { bumpChangeCounter } from './changes-repository.js';
import type { Database } from './schema.js';

/** Which key replaced which, and the old key's end of grace. */
export function createKeyRotationsRepository(db: Kysely<Database>, now: () => number) {
  return {
    /** Records the rotation and sets the old key's expiry; bumps the change counter so every server sees the new expiry. */
    async record(ownerId: string, oldKeyId: string, newKeyId: string, oldKeyExpiresAt: number): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('api_keys').set({ expires_at: oldKeyExpiresAt }).where('id', '=', oldKeyId).where('owner_id', '=', ownerId).execute();
        await trx.insertInto('key_rotations').values({ old_key_id: oldKeyId, new_key_id: newKeyId, created_at: now() }).execute();
        await bumpChangeCounter(trx);
      });
    },
    /** Old key id → the key that replaced it, for an owner's keys. */
    async replacements(ownerId: string): Promise<Map<string, string>> {
      const rows = await db
        .selectFrom('key_rotations')
        .innerJoin('api_keys', 'api_keys.id', 'key_rotations.old_key_id')
        .select(['key_rotations.old_key_id', 'key_rotations.new_key_id'])
        .where('api_keys.owner_id', '=', ownerId)
        .execute();
      return new Map(rows.map((row) => [row.old_key_id, row.new_key_id]));
    },
  };
}

export type KeyRotationsRepository = ReturnType<typeof createKeyRotationsRepository>;
