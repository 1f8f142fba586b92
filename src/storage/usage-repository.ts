import { CompiledQuery, sql, type Kysely } from 'kysely';
import { insertRequestLogValues, requestLogValues } from './request-log-repository.js';
import type { Database, NewUsageRecord, RoutingSampleRow, UsageRecordRow } from './schema.js';

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

export function createUsageRepository(db: Kysely<Database>) {
  /**
   * The INSERT of a batch of n rows, compiled by Kysely for this dialect once per n: building and compiling
   * 50 rows × 16 columns of query nodes cost about 3 µs a record, more than the rows' own parameters.
   */
  const batchSql = new Map<number, string>();
  /** Inserts rows given as usageRowValues; a record already written (same request id) is skipped, never counted twice. */
  const insertValues = (values: readonly unknown[]): Promise<void> => insertValuesOn(db, values);
  const insertValuesOn = async (executor: Kysely<Database>, values: readonly unknown[]): Promise<void> => {
    const rowCount = values.length / USAGE_COLUMNS.length;
    if (rowCount === 0) return;
    const known = batchSql.get(rowCount);
    if (known !== undefined) {
      await executor.executeQuery(CompiledQuery.raw(known, values as unknown[]));
      return;
    }
    const rows: NewUsageRecord[] = [];
    for (let start = 0; start < values.length; start += USAGE_COLUMNS.length) {
      rows.push(Object.fromEntries(USAGE_COLUMNS.map((column, index) => [column, values[start + index]])) as unknown as NewUsageRecord);
    }
    const compiled = executor
      .insertInto('usage_records')
      .values(rows)
      .onConflict((conflict) => conflict.column('id').doNothing())
      .compile();
    // Kept only when its parameters are exactly the values in USAGE_COLUMNS order, as later batches pass them.
    if (compiled.parameters.length === values.length && compiled.parameters.every((parameter, index) => parameter === values[index])) {
      batchSql.set(rowCount, compiled.sql);
    }
    await executor.executeQuery(compiled);
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
   * A batch of records with the routing samples and request logs that came with them. With either, the INSERTs are
   * one transaction: neither is written without its record, and on SQLite one commit covers them all.
   */
  const insertBatch = async (values: readonly unknown[], samples: readonly unknown[] = [], logs: readonly unknown[] = []): Promise<void> => {
    if (samples.length === 0 && logs.length === 0) return insertValues(values);
    await db.transaction().execute(async (trx) => {
      await insertValuesOn(trx, values);
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
     * A router's requests per time bucket in [from, to): cost, and what always using its strongest model would have
     * cost (a record without a counterfactual, e.g. from before the router was `auto`, counts at its own cost).
     */
    async savingsBuckets(ownerId: string, routerId: string, from: number, to: number, bucketMs: number): Promise<{ start: number; requests: number; costUsd: number; counterfactualCostUsd: number }[]> {
      const start = sql<number | string>`(created_at / ${sql.lit(Math.trunc(bucketMs))}) * ${sql.lit(Math.trunc(bucketMs))}`;
      const rows = await db
        .selectFrom('usage_records')
        .select([
          start.as('start'),
          sql<number | string>`count(*)`.as('requests'),
          sql<number | string | null>`sum(cost_usd)`.as('cost'),
          sql<number | string | null>`sum(coalesce(counterfactual_cost_usd, cost_usd))`.as('counterfactual'),
        ])
        .where('router_id', '=', routerId)
        .where('owner_id', '=', ownerId)
        .where('created_at', '>=', from)
        .where('created_at', '<', to)
        .groupBy(start)
        .execute();
      return rows.map((row) => ({ start: Number(row.start), requests: Number(row.requests), costUsd: Number(row.cost ?? 0), counterfactualCostUsd: Number(row.counterfactual ?? 0) }));
    },
    /** What a key or a router has spent (USD) in records created at or after `since`. */
    async spentSince(subject: { readonly kind: 'key' | 'router'; readonly id: string }, since: number): Promise<number> {
      const column = subject.kind === 'key' ? 'key_id' : 'router_id';
      const row = await db
        .selectFrom('usage_records')
        .select(sql<number | string | null>`sum(cost_usd)`.as('spent'))
        .where(column, '=', subject.id)
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(row?.spent ?? 0);
    },
  };
}

export type UsageRepository = ReturnType<typeof createUsageRepository>;
