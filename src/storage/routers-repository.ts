import type { Kysely } from 'kysely';
import { createId } from '../lib/random-id.js';
import { bumpChangeCounter } from './changes-repository.js';
import { deleteRouterBodies } from './request-log-repository.js';
import type { FittedModel, RouterFit, RouterSettings } from './router-settings.js';
import type { Database, RouterRow } from './schema.js';

export interface RouterRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  readonly strategy: string;
  /** `provider:model` ids in the owner's order of preference. */
  readonly models: readonly string[];
  /** Weights, quality target, cost ceiling; `{}` when every default applies. */
  readonly settings: RouterSettings;
  /** Requests / tokens per minute across all keys; undefined: no router limit (the default). */
  readonly rpmLimit?: number | undefined;
  readonly tpmLimit?: number | undefined;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export interface NewRouter {
  readonly ownerId: string;
  readonly name: string;
  readonly strategy: string;
  readonly models: readonly string[];
  /** Already validated (admin service). @default {} */
  readonly settings?: RouterSettings;
  readonly rpmLimit?: number | undefined;
  readonly tpmLimit?: number | undefined;
}

/** What an update may change; absent fields stay as they are. `settings` replaces the whole object. */
export interface RouterChanges {
  readonly name?: string;
  readonly strategy?: string;
  readonly models?: readonly string[];
  readonly settings?: RouterSettings;
  /** null removes the router's limit. */
  readonly rpmLimit?: number | null;
  readonly tpmLimit?: number | null;
}

function toRecord(row: RouterRow): RouterRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    strategy: row.strategy,
    models: JSON.parse(row.models) as string[],
    settings: readSettings(row.settings),
    rpmLimit: row.rpm_limit ?? undefined,
    tpmLimit: row.tpm_limit ?? undefined,
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
        settings: writeSettings(router.settings ?? {}),
        created_at: time,
        updated_at: time,
        deleted_at: null,
        rpm_limit: router.rpmLimit ?? null,
        tpm_limit: router.tpmLimit ?? null,
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
    /** Every live router of a strategy, across owners (the background refit walks the `auto` ones). */
    async listByStrategy(strategy: string): Promise<RouterRecord[]> {
      const rows = await db.selectFrom('routers').selectAll().where('strategy', '=', strategy).where('deleted_at', 'is', null).orderBy('created_at').execute();
      return rows.map(toRecord);
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
    /**
     * Changes an owner's router; undefined when no live router of theirs has this id (or, with `ifUpdatedAt`, when it
     * changed since: a background writer never overwrites an edit it did not see). Bumps the change counter.
     */
    async update(ownerId: string, id: string, changes: RouterChanges, options: { readonly ifUpdatedAt?: number } = {}): Promise<RouterRecord | undefined> {
      return db.transaction().execute(async (trx) => {
        const result = await trx
          .updateTable('routers')
          .set({
            updated_at: now(),
            ...(changes.name !== undefined ? { name: changes.name } : {}),
            ...(changes.strategy !== undefined ? { strategy: changes.strategy } : {}),
            ...(changes.models !== undefined ? { models: JSON.stringify(changes.models) } : {}),
            ...(changes.settings !== undefined ? { settings: writeSettings(changes.settings) } : {}),
            ...(changes.rpmLimit !== undefined ? { rpm_limit: changes.rpmLimit } : {}),
            ...(changes.tpmLimit !== undefined ? { tpm_limit: changes.tpmLimit } : {}),
          })
          .where('id', '=', id)
          .where('owner_id', '=', ownerId)
          .where('deleted_at', 'is', null)
          .$if(options.ifUpdatedAt !== undefined, (query) => query.where('updated_at', '=', options.ifUpdatedAt ?? 0))
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return undefined;
        // Body logging turned off (or never on): the bodies kept so far go with it.
        if (changes.settings !== undefined && changes.settings.requestLog?.bodies !== true) await deleteRouterBodies(trx, id);
        await bumpChangeCounter(trx);
        const row = await trx.selectFrom('routers').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        return toRecord(row);
      });
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
        // A deleted router's logged bodies are deleted with it; the rest of its request log stays with its usage.
        if (Number(result.numUpdatedRows) > 0) await deleteRouterBodies(trx, id);
        await bumpChangeCounter(trx);
        return Number(result.numUpdatedRows) > 0;
      });
    },
  };
}

function writeSettings(settings: RouterSettings): string | null {
  return Object.keys(settings).length === 0 ? null : JSON.stringify(settings);
}

/**
 * Settings as stored. The admin service validated them on the way in; here
 * only well-formed numbers are kept, so a hand-edited row cannot break routing.
 */
function readSettings(text: string | null): RouterSettings {
  if (text === null) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isRecord(parsed)) return {};
  const weights = isRecord(parsed.weights) ? parsed.weights : undefined;
  const pickedWeights = weights === undefined ? undefined : pickNumbers(weights, ['cost', 'latency', 'quality', 'carbon']);
  const top = pickNumbers(parsed, ['qualityTarget', 'maxCostPerRequestUsd']);
  const autoAbilities = readAbilities(parsed.autoAbilities);
  const autoFit = readFit(parsed.autoFit);
  const exploration = typeof parsed.exploration === 'number' && parsed.exploration >= 0 && parsed.exploration <= 1 ? parsed.exploration : undefined;
  const requestLog = readRequestLog(parsed.requestLog);
  return {
    ...(pickedWeights !== undefined ? { weights: pickedWeights } : {}),
    ...top,
    ...(autoAbilities !== undefined ? { autoAbilities } : {}),
    ...(autoFit !== undefined ? { autoFit } : {}),
    ...(exploration !== undefined ? { exploration } : {}),
    ...(requestLog !== undefined ? { requestLog } : {}),
  };
}

/** Body logging as stored: on only when `bodies` is true; sizes kept when in range. */
function readRequestLog(value: unknown): RouterSettings['requestLog'] {
  if (!isRecord(value) || typeof value.bodies !== 'boolean') return undefined;
  const { retentionDays, maxBodyBytes } = value;
  return {
    bodies: value.bodies,
    ...(typeof retentionDays === 'number' && Number.isInteger(retentionDays) && retentionDays >= 1 && retentionDays <= 90 ? { retentionDays } : {}),
    ...(typeof maxBodyBytes === 'number' && Number.isInteger(maxBodyBytes) && maxBodyBytes >= 1 && maxBodyBytes <= 1_048_576 ? { maxBodyBytes } : {}),
  };
}

/** A router's fit as stored: kept whole only when every model's weights are finite numbers. */
function readFit(value: unknown): RouterFit | undefined {
  if (!isRecord(value) || value.version !== 1 || !isRecord(value.models)) return undefined;
  const { vectorVersion, fittedAt, labels } = value;
  if (typeof vectorVersion !== 'number' || typeof fittedAt !== 'string' || typeof labels !== 'number') return undefined;
  const models: Record<string, FittedModel> = {};
  for (const [id, entry] of Object.entries(value.models)) {
    if (!isRecord(entry) || !Array.isArray(entry.weights)) return undefined;
    const weights: unknown[] = entry.weights;
    if (!weights.every((weight) => typeof weight === 'number' && Number.isFinite(weight))) return undefined;
    if (typeof entry.uncertainty !== 'number' || !Number.isFinite(entry.uncertainty) || typeof entry.labels !== 'number') return undefined;
    // Fields the fit adds beyond these (router-fit.ts) are kept as they are.
    models[id] = { ...entry, weights: weights as number[], labels: entry.labels, uncertainty: entry.uncertainty };
  }
  return { version: 1, vectorVersion, fittedAt, labels, models };
}

/** Calibrated abilities as stored: entries with finite numbers only. */
function readAbilities(value: unknown): RouterSettings['autoAbilities'] {
  if (!isRecord(value)) return undefined;
  const abilities: Record<string, { position: number; offset: number; examples: number }> = {};
  for (const [id, entry] of Object.entries(value)) {
    if (!isRecord(entry)) continue;
    const { position, offset, examples } = entry;
    if (typeof position === 'number' && Number.isFinite(position) && typeof offset === 'number' && Number.isFinite(offset)) {
      abilities[id] = { position, offset, examples: typeof examples === 'number' && Number.isFinite(examples) ? examples : 0 };
    }
  }
  return Object.keys(abilities).length === 0 ? undefined : abilities;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pickNumbers<K extends string>(source: Record<string, unknown>, keys: readonly K[]): { [P in K]?: number } {
  const picked: { [P in K]?: number } = {};
  for (const key of keys) {
    const value = source[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) picked[key] = value;
  }
  return picked;
}

export type RoutersRepository = ReturnType<typeof createRoutersRepository>;
