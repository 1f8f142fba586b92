import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import { bumpChangeCounter } from './changes-repository.js';
import type { ApiKeyRow, Database } from './schema.js';

export interface ApiKeyRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly displayPrefix: string;
  /** Routers this key may use; undefined means every router of its owner. */
  readonly routerIds: readonly string[] | undefined;
  readonly rpmLimit: number | undefined;
  /** Tokens per minute; undefined: the server default (MODELPORT_DEFAULT_TPM), if any. */
  readonly tpmLimit?: number | undefined;
  /** Requests in flight at once; undefined: no cap. */
  readonly maxConcurrency?: number | undefined;
  readonly createdAt: number;
  readonly lastUsedAt: number | undefined;
  readonly expiresAt: number | undefined;
  readonly revokedAt: number | undefined;
}

export interface NewApiKey {
  readonly ownerId: string;
  readonly name: string;
  readonly keyHash: string;
  readonly displayPrefix: string;
  readonly routerIds?: readonly string[] | undefined;
  readonly rpmLimit?: number | undefined;
  readonly tpmLimit?: number | undefined;
  readonly maxConcurrency?: number | undefined;
  readonly expiresAt?: number | undefined;
  /** Defaults to now; given when the caller computed expiresAt from the same instant. */
  readonly createdAt?: number | undefined;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    displayPrefix: row.display_prefix,
    routerIds: row.router_ids === null ? undefined : (JSON.parse(row.router_ids) as string[]),
    rpmLimit: row.rpm_limit ?? undefined,
    tpmLimit: row.tpm_limit ?? undefined,
    maxConcurrency: row.max_concurrency ?? undefined,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at ?? undefined,
    expiresAt: row.expires_at ?? undefined,
    revokedAt: row.revoked_at ?? undefined,
  };
}

export function createApiKeysRepository(db: Kysely<Database>, now: () => number) {
  return {
    async create(key: NewApiKey): Promise<ApiKeyRecord> {
      const row: ApiKeyRow = {
        id: createId('key', 16),
        owner_id: key.ownerId,
        name: key.name,
        key_hash: key.keyHash,
        display_prefix: key.displayPrefix,
        router_ids: key.routerIds === undefined ? null : JSON.stringify(key.routerIds),
        rpm_limit: key.rpmLimit ?? null,
        tpm_limit: key.tpmLimit ?? null,
        max_concurrency: key.maxConcurrency ?? null,
        created_at: key.createdAt ?? now(),
        last_used_at: null,
        expires_at: key.expiresAt ?? null,
        revoked_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('api_keys').values(row).execute();
        await bumpChangeCounter(trx);
      });
      return toRecord(row);
    },
    async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
      const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    },
    async listByOwner(ownerId: string): Promise<ApiKeyRecord[]> {
      const rows = await db.selectFrom('api_keys').selectAll().where('owner_id', '=', ownerId).orderBy('created_at').execute();
      return rows.map(toRecord);
    },
    async revoke(ownerId: string, id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('api_keys')
          .set({ revoked_at: now() })
          .where('id', '=', id)
          .where('owner_id', '=', ownerId)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        await bumpChangeCounter(trx);
        return Number(result.numUpdatedRows) > 0;
      });
    },
    /** Records when keys were last used; called in batches off the request path. */
    async touchLastUsed(lastUsed: ReadonlyMap<string, number>): Promise<void> {
      for (const [id, time] of lastUsed) {
        await db.updateTable('api_keys').set({ last_used_at: time }).where('id', '=', id).execute();
      }
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
