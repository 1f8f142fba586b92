import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import type { AgentRow, Database } from './schema.js';

/** An agent as stored: its current version's definition is opaque JSON here (src/agents/ reads it). */
export interface AgentRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly description: string;
  readonly version: number;
  readonly definition: unknown;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface AgentVersionRecord {
  readonly version: number;
  readonly definition: unknown;
  readonly createdAt: number;
}

function toRecord(row: AgentRow): AgentRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    description: row.description,
    version: row.version,
    definition: JSON.parse(row.definition) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Agents and their versions. Every save writes a new version row; the agent row
 * holds the current one. Agents are read per run, not cached, so no change
 * counter is needed for other instances to see an edit.
 */
export function createAgentsRepository(db: Kysely<Database>, now: () => number) {
  return {
    async create(ownerId: string, name: string, description: string, definition: unknown): Promise<AgentRecord> {
      const time = now();
      const row: AgentRow = {
        id: createId('agt'),
        owner_id: ownerId,
        name,
        description,
        version: 1,
        definition: JSON.stringify(definition),
        created_at: time,
        updated_at: time,
        deleted_at: null,
      };
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('agents').values(row).execute();
        await trx.insertInto('agent_versions').values({ agent_id: row.id, version: 1, definition: row.definition, created_at: time }).execute();
      });
      return toRecord(row);
    },
    /** Saves a new version of a live agent; undefined when the owner has no live agent by that name. */
    async update(ownerId: string, name: string, description: string, definition: unknown): Promise<AgentRecord | undefined> {
      return db.transaction().execute(async (trx) => {
        const current = await trx
          .selectFrom('agents')
          .selectAll()
          .where('owner_id', '=', ownerId)
          .where('name', '=', name)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        if (current === undefined) return undefined;
        const time = now();
        const version = current.version + 1;
        const text = JSON.stringify(definition);
        await trx.insertInto('agent_versions').values({ agent_id: current.id, version, definition: text, created_at: time }).execute();
        await trx.updateTable('agents').set({ version, definition: text, description, updated_at: time }).where('id', '=', current.id).execute();
        return toRecord({ ...current, version, definition: text, description, updated_at: time });
      });
    },
    async findByName(ownerId: string, name: string): Promise<AgentRecord | undefined> {
      const row = await db
        .selectFrom('agents')
        .selectAll()
        .where('owner_id', '=', ownerId)
        .where('name', '=', name)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    },
    async listByOwner(ownerId: string): Promise<AgentRecord[]> {
      const rows = await db.selectFrom('agents').selectAll().where('owner_id', '=', ownerId).where('deleted_at', 'is', null).orderBy('name').execute();
      return rows.map(toRecord);
    },
    async listVersions(agentId: string): Promise<AgentVersionRecord[]> {
      const rows = await db.selectFrom('agent_versions').selectAll().where('agent_id', '=', agentId).orderBy('version', 'desc').execute();
      return rows.map((row) => ({ version: row.version, definition: JSON.parse(row.definition) as unknown, createdAt: row.created_at }));
    },
    /** Soft-deletes: executions keep pointing at it, and the name is free again. */
    async remove(ownerId: string, name: string): Promise<boolean> {
      const result = await db
        .updateTable('agents')
        .set({ deleted_at: now() })
        .where('owner_id', '=', ownerId)
        .where('name', '=', name)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

export type AgentsRepository = ReturnType<typeof createAgentsRepository>;
