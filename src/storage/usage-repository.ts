import { CompiledQuery, type Kysely } from 'kysely';
import { insertRequestLogValues, requestLogValues } from './request-log-repository.js';
import type { Database, NewUsageRecord, RoutingSampleRow, UsageRecordRow } from './schema.js';
import { ensureUsagePartitionsFor, isMissingPartition } from './usage-partitions.js';
import { createUsageRollupRepository } from './usage-rollup-repository.js';
import { GRAIN_MS, usdOfUnits } from './usage-rollup-schema.js';
import { planRollupSpans } from './usage-rollup-spans.js';
import { addRollups, rollupRowsOf, type RollupSource } from './usage-rollup-writer.js';

/** Budgets and savings read whole hours and days (their periods and chart buckets start on them): no minute edges. */
const KEPT_FOR_BUDGETS = { minute: Number.POSITIVE_INFINITY, hour: Number.NEGATIVE_INFINITY };
/** A budget's spend is everything from its period's start on: up to the last time a Date holds. */
const END_OF_TIME = 8.64e15;

export interface UsageQuery {
  readonly ownerId?: string;
  readonly keyId?: string;
  readonly routerId?: string;
  readonly since?: number;
  readonly limit?: number;
}

/** Every column of a usage record, in the order a batch INSERT lists them. */
const USAGE_COLUMNS = [
  'id',
  'created_at',
  'owner_id',
  'key_id',
  'router_id',
  'model',
  'status',
  'error_code',
  'streamed',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cost_usd',
  'latency_ms',
  'carbon_grams',
  'attempts',
  'counterfactual_cost_usd',
  'energy_wh',
  'cached_prompt_tokens',
  'cache_write_prompt_tokens',
  'reasoning_tokens',
] as const satisfies readonly (keyof NewUsageRecord)[];

/** Every column of a routing sample, in the order a batch INSERT lists them. */
const SAMPLE_COLUMNS = ['request_id', 'owner_id', 'router_id', 'model_id', 'vector', 'created_at'] as const satisfies readonly (keyof RoutingSampleRow)[];

/** Columns that count something: left out of a record, they are 0 (their column default), not NULL. */
const COUNT_COLUMNS: ReadonlySet<string> = new Set(['energy_wh', 'cached_prompt_tokens', 'cache_write_prompt_tokens', 'reasoning_tokens']);

/**
 * Records as one flat list of values, USAGE_COLUMNS.length per record in that order (a column left out is NULL, or
 * 0 for a count): what a batch INSERT binds, and what the SQLite writer thread is sent.
 */
export function usageRowValues(records: readonly NewUsageRecord[]): unknown[] {
  const values: unknown[] = [];
  for (const record of records) {
    for (const column of USAGE_COLUMNS) values.push(record[column] ?? (COUNT_COLUMNS.has(column) ? 0 : null));
  }
  return values;
}

/** The routing samples that ride with the records (auto-routed requests), flat as SAMPLE_COLUMNS; empty when none. */
export function routingSampleValues(records: readonly NewUsageRecord[]): unknown[] {
  const values: unknown[] = [];
  for (const record of records) {
    const sample = record.routing_sample;
    if (sample === undefined || record.owner_id === null || record.owner_id === undefined) continue;
    values.push(record.id, record.owner_id, sample.router_id, sample.model_id, sample.vector, record.created_at);
  }
  return values;
}

/** The creation times in usage-row values. */
function* createdAtOf(values: readonly unknown[]): Generator<number> {
  const offset = USAGE_COLUMNS.indexOf('created_at');
  for (let start = 0; start < values.length; start += USAGE_COLUMNS.length) yield values[start + offset] as number;
}

/** Where each column of a usage record sits in a row of usage-row values. */
const COLUMN_AT = Object.fromEntries(USAGE_COLUMNS.map((column, index) => [column, index])) as Record<(typeof USAGE_COLUMNS)[number], number>;

/** The records in usage-row values whose id is in `ids`, as the rollups read them (read in place, not copied out). */
function* rollupSourcesOf(values: readonly unknown[], ids: ReadonlySet<string>): Generator<RollupSource> {
  const width = USAGE_COLUMNS.length;
  for (let start = 0; start < values.length; start += width) {
    if (!ids.has(values[start + COLUMN_AT.id] as string)) continue;
    const at = (column: (typeof USAGE_COLUMNS)[number]) => values[start + COLUMN_AT[column]] as never;
    yield {
      id: at('id'),
      created_at: at('created_at'),
      owner_id: at('owner_id'),
      key_id: at('key_id'),
      router_id: at('router_id'),
      model: at('model'),
      status: at('status'),
      streamed: at('streamed'),
      prompt_tokens: at('prompt_tokens'),
      completion_tokens: at('completion_tokens'),
      total_tokens: at('total_tokens'),
      cached_prompt_tokens: at('cached_prompt_tokens'),
      cache_write_prompt_tokens: at('cache_write_prompt_tokens'),
      reasoning_tokens: at('reasoning_tokens'),
      cost_usd: at('cost_usd'),
      counterfactual_cost_usd: at('counterfactual_cost_usd'),
      carbon_grams: at('carbon_grams'),
      energy_wh: at('energy_wh'),
      latency_ms: at('latency_ms'),
    };
  }
}

export function createUsageRepository(db: Kysely<Database>) {
  const rollups = createUsageRollupRepository(db);
  /**
   * The INSERT of a batch of n rows, compiled by Kysely for this dialect once per n: building and compiling
   * 50 rows × 16 columns of query nodes cost about 3 µs a record, more than the rows' own parameters.
   */
  const batchSql = new Map<number, string>();
  /**
   * Inserts rows given as usageRowValues and adds the ones it inserted to the rollups, in one transaction; a record
   * already written (same request id) is skipped, and so neither stored nor summed twice.
   */
  const insertValues = (values: readonly unknown[]): Promise<void> => insertBatch(values);
  /** Inserts the rows; resolves with the ids of those it inserted (not those already there). */
  const insertValuesOn = async (executor: Kysely<Database>, values: readonly unknown[]): Promise<Set<string>> => {
    const rowCount = values.length / USAGE_COLUMNS.length;
    if (rowCount === 0) return new Set();
    const known = batchSql.get(rowCount);
    if (known !== undefined) {
      const result = await executor.executeQuery<{ id: string }>(CompiledQuery.raw(known, values as unknown[]));
      return new Set(result.rows.map((row) => row.id));
    }
    const rows: NewUsageRecord[] = [];
    for (let start = 0; start < values.length; start += USAGE_COLUMNS.length) {
      rows.push(Object.fromEntries(USAGE_COLUMNS.map((column, index) => [column, values[start + index]])) as unknown as NewUsageRecord);
    }
    // No conflict target: on Postgres the key is (id, created_at), the partition key being part of it.
    const compiled = executor
      .insertInto('usage_records')
      .values(rows)
      .onConflict((conflict) => conflict.doNothing())
      .returning('id')
      .compile();
    // Kept only when its parameters are exactly the values in USAGE_COLUMNS order, as later batches pass them.
    if (compiled.parameters.length === values.length && compiled.parameters.every((parameter, index) => parameter === values[index])) {
      batchSql.set(rowCount, compiled.sql);
    }
    const result = await executor.executeQuery<{ id: string }>(compiled);
    return new Set(result.rows.map((row) => row.id));
  };
  /** Inserts routing samples given as routingSampleValues; one already written (same request id) is skipped. */
  const insertSampleValues = async (executor: Kysely<Database>, values: readonly unknown[]): Promise<void> => {
    const rows: RoutingSampleRow[] = [];
    for (let start = 0; start < values.length; start += SAMPLE_COLUMNS.length) {
      rows.push(Object.fromEntries(SAMPLE_COLUMNS.map((column, index) => [column, values[start + index]])) as unknown as RoutingSampleRow);
    }
    if (rows.length === 0) return;
    await executor.insertInto('routing_samples').values(rows).onConflict((conflict) => conflict.column('request_id').doNothing()).execute();
  };
  /**
   * A batch of records with their rollups and the routing samples and request logs that came with them, in one
   * transaction: none is written without its record, and on SQLite one commit covers them all.
   */
  const insertBatch = async (values: readonly unknown[], samples: readonly unknown[] = [], logs: readonly unknown[] = []): Promise<void> => {
    if (values.length === 0) return;
    try {
      await insertBatchOnce(values, samples, logs);
    } catch (error) {
      // Postgres, a record of a day whose partition was not created ahead (maintenance stopped, a clock far ahead).
      if (!isMissingPartition(error)) throw error;
      await ensureUsagePartitionsFor(db, createdAtOf(values));
      await insertBatchOnce(values, samples, logs);
    }
  };
  const insertBatchOnce = async (values: readonly unknown[], samples: readonly unknown[], logs: readonly unknown[]): Promise<void> => {
    await db.transaction().execute(async (trx) => {
      const inserted = await insertValuesOn(trx, values);
      if (inserted.size > 0) await addRollups(trx, rollupRowsOf(rollupSourcesOf(values, inserted)));
      if (samples.length > 0) await insertSampleValues(trx, samples);
      if (logs.length > 0) await insertRequestLogValues(trx, logs);
    });
  };
  return {
    /** Inserts a batch (its routing samples and request logs too); a record already written (same request id) is skipped, never counted twice. */
    insertMany: (records: readonly NewUsageRecord[]): Promise<void> => insertBatch(usageRowValues(records), routingSampleValues(records), requestLogValues(records)),
    insertValues,
    insertBatch,
    list(query: UsageQuery = {}): Promise<UsageRecordRow[]> {
      let select = db.selectFrom('usage_records').selectAll();
      if (query.ownerId !== undefined) select = select.where('owner_id', '=', query.ownerId);
      if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
      if (query.routerId !== undefined) select = select.where('router_id', '=', query.routerId);
      if (query.since !== undefined) select = select.where('created_at', '>=', query.since);
      return select.orderBy('created_at', 'desc').limit(query.limit ?? 1000).execute();
    },
    /** A usage record of an owner's, by request id. */
    async findOwned(ownerId: string, id: string): Promise<UsageRecordRow | undefined> {
      return db.selectFrom('usage_records').selectAll().where('id', '=', id).where('owner_id', '=', ownerId).executeTakeFirst();
    },
    /**
     * A router's requests per time bucket in [from, to), from the rollups: cost, and what always using its strongest
     * model would have cost (a record without a counterfactual, e.g. from before the router was `auto`, counts at its
     * own cost).
     */
    async savingsBuckets(ownerId: string, routerId: string, from: number, to: number, bucketMs: number): Promise<{ start: number; requests: number; costUsd: number; counterfactualCostUsd: number }[]> {
      const { spans } = planRollupSpans(from, to, bucketMs >= GRAIN_MS.day ? 'day' : 'hour', KEPT_FOR_BUDGETS);
      const rows = await rollups.series({ ownerId, routerId }, spans, bucketMs);
      return rows.map((row) => ({ start: row.t, requests: row.requests, costUsd: usdOfUnits(row.costUnits), counterfactualCostUsd: usdOfUnits(row.counterfactualCostUnits) }));
    },
    /** What a key or a router has spent (USD) since `since` (a budget period's start), from the rollups. */
    async spentSince(subject: { readonly kind: 'key' | 'router'; readonly id: string }, since: number): Promise<number> {
      const { spans } = planRollupSpans(since, END_OF_TIME, 'day', KEPT_FOR_BUDGETS);
      const totals = await rollups.totals(subject.kind === 'key' ? { keyId: subject.id } : { routerId: subject.id }, spans);
      return usdOfUnits(totals.costUnits);
    },
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;
