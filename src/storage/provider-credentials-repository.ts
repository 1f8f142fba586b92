import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import { bumpChangeCounter } from './changes-repository.js';
import type { Database, ProviderCredentialRow } from './schema.js';

/** One owner's credentials for one provider. The key stays sealed here; only the caller holding the secret opens it. */
export interface ProviderCredentialRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly provider: string;
  readonly baseUrl: string | undefined;
  /** `v1:iv:ciphertext:tag` (src/lib/secret-box.ts), or undefined when the provider needs no key. */
  readonly encryptedKey: string | undefined;
  readonly keyHint: string | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface ProviderCredentialInput {
  readonly ownerId: string;
  readonly provider: string;
  readonly baseUrl?: string | undefined;
  readonly encryptedKey?: string | undefined;
  readonly keyHint?: string | undefined;
}

function toRecord(row: ProviderCredentialRow): ProviderCredentialRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    provider: row.provider,
    baseUrl: row.base_url ?? undefined,
    encryptedKey: row.encrypted_key ?? undefined,
    keyHint: row.key_hint ?? undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createProviderCredentialsRepository(db: Kysely<Database>, now: () => number) {
  return {
    /** Adds the owner's credentials for the provider, or replaces the ones already there (a key rotation). */
    async upsert(input: ProviderCredentialInput): Promise<{ record: ProviderCredentialRecord; replaced: boolean }> {
      const time = now();
      return db.transaction().execute(async (trx) => {
        const existing = await trx
          .selectFrom('provider_credentials')
          .selectAll()
          .where('owner_id', '=', input.ownerId)
          .where('provider', '=', input.provider)
          .executeTakeFirst();
        const fields = { base_url: input.baseUrl ?? null, encrypted_key: input.encryptedKey ?? null, key_hint: input.keyHint ?? null, updated_at: time };
        let row: ProviderCredentialRow;
        if (existing === undefined) {
          row = { id: createId('cred', 16), owner_id: input.ownerId, provider: input.provider, created_at: time, ...fields };
          await trx.insertInto('provider_credentials').values(row).execute();
        } else {
          row = { ...existing, ...fields };
          await trx.updateTable('provider_credentials').set(fields).where('id', '=', existing.id).execute();
        }
        await bumpChangeCounter(trx);
        return { record: toRecord(row), replaced: existing !== undefined };
      });
    },
    async find(ownerId: string, provider: string): Promise<ProviderCredentialRecord | undefined> {
      const row = await db
        .selectFrom('provider_credentials')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('provider', '=', provider)
        .executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    },
    async listByOwner(ownerId: string): Promise<ProviderCredentialRecord[]> {
      const rows = await db.selectFrom('provider_credentials').selectAll().where('owner_id', '=', ownerId).orderBy('provider').execute();
      return rows.map(toRecord);
    },
    /**
     * Removes the owner's credentials for the provider, and with `withModels` the
     * models declared under it (a custom provider's models mean nothing without it).
     */
    async remove(ownerId: string, provider: string, withModels: boolean): Promise<{ removed: boolean; modelsRemoved: number }> {
      return db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('provider_credentials').where('owner_id', '=', ownerId).where('provider', '=', provider).executeTakeFirst();
        let modelsRemoved = 0;
        if (withModels) {
          const models = await trx.deleteFrom('custom_models').where('owner_id', '=', ownerId).where('provider', '=', provider).executeTakeFirst();
          modelsRemoved = Number(models.numDeletedRows);
        }
        await bumpChangeCounter(trx);
        return { removed: Number(result.numDeletedRows) > 0, modelsRemoved };
      });
    },
  };
}

export type ProviderCredentialsRepository = ReturnType<typeof createProviderCredentialsRepository>;
