import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import { bumpChangeCounter } from './changes-repository.js';
import type { Database, RouterRow } from './schema.js';

export interface RouterRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly strategy: string;
  /** `provider:model` ids in the owner's order of preference. */
  readonly models: readonly string[];
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface NewRouter {
  readonly ownerId: string;
  readonly name: string;
  readonly strategy: string;
  readonly models: readonly string[];
}

function toRecord(row: RouterRow): RouterRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    strategy: row.strategy,
    models: JSON.parse(row.models) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function createRoutersRepository(db: Kysely<Database>, now: () => number) {
  return {
    async create(router: NewRouter): Promise<RouterRecord> {
      const time = now();
      const row: RouterRow = {
        id: createId('rt'),
        owner_id: router.ownerId,
        name: router.name,
        strategy: router.strategy,
        models: JSON.stringify(router.models),
        created_at: time,
        updated_at: time,
        deleted_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('routers').values(row).execute();
        await bumpChangeCounter(trx);
      });
      return toRecord(row);
    },
    async findById(id: string): Promise<RouterRecord | undefined> {
      const row = await db.selectFrom('routers').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    },
    async listByOwner(ownerId: string): Promise<RouterRecord[]> {
      const rows = await db
        .selectFrom('routers')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('deleted_at', 'is', null)
        .orderBy('created_at')
        .execute();
      return rows.map(toRecord);
    },
    async remove(ownerId: string, id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('routers')
          .set({ deleted_at: now() })
          .where('id', '=', id)
          .where('owner_id', '=', ownerId)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        await bumpChangeCounter(trx);
        return Number(result.numUpdatedRows) > 0;
      });
    },
  };
}

export type RoutersRepository = ReturnType<typeof createRoutersRepository>;
