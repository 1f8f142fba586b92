import { CompiledQuery, sql, type Kysely } from 'kysely';
import type { Database, NewUsageRecord, UsageRecordRow } from './schema.js';

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
] as const satisfies readonly (keyof NewUsageRecord)[];

/**
 * Records as one flat list of values, USAGE_COLUMNS.length per record in that order (a column left out is NULL, as
 * every optional column defaults to): what a batch INSERT binds, and what the SQLite writer thread is sent.
 */
export function usageRowValues(records: readonly NewUsageRecord[]): unknown[] {
  const values: unknown[] = [];
  for (const record of records) for (const column of USAGE_COLUMNS) values.push(record[column] ?? null);
  return values;
}

export function createUsageRepository(db: Kysely<Database>) {
  /**
   * The INSERT of a batch of n rows, compiled by Kysely for this dialect once per n: building and compiling
   * 50 rows × 16 columns of query nodes cost about 3 µs a record, more than the rows' own parameters.
   */
  const batchSql = new Map<number, string>();
  /** Inserts rows given as usageRowValues; a record already written (same request id) is skipped, never counted twice. */
  const insertValues = async (values: readonly unknown[]): Promise<void> => {
    const rowCount = values.length / USAGE_COLUMNS.length;
    if (rowCount === 0) return;
    const known = batchSql.get(rowCount);
    if (known !== undefined) {
      await db.executeQuery(CompiledQuery.raw(known, values as unknown[]));
      return;
    }
    const rows: NewUsageRecord[] = [];
    for (let start = 0; start < values.length; start += USAGE_COLUMNS.length) {
      rows.push(Object.fromEntries(USAGE_COLUMNS.map((column, index) => [column, values[start + index]])) as unknown as NewUsageRecord);
    }
    const compiled = db
      .insertInto('usage_records')
      .values(rows)
      .onConflict((conflict) => conflict.column('id').doNothing())
      .compile();
    // Kept only when its parameters are exactly the values in USAGE_COLUMNS order, as later batches pass them.
    if (compiled.parameters.length === values.length && compiled.parameters.every((parameter, index) => parameter === values[index])) {
      batchSql.set(rowCount, compiled.sql);
    }
    await db.executeQuery(compiled);
  };
  return {
    /** Inserts a batch; a record already written (same request id) is skipped, never counted twice. */
    insertMany: (records: readonly NewUsageRecord[]): Promise<void> => insertValues(usageRowValues(records)),
    insertValues,
    list(query: UsageQuery = {}): Promise<UsageRecordRow[]> {
      let select = db.selectFrom('usage_records').selectAll();
      if (query.ownerId !== undefined) select = select.where('owner_id', '=', query.ownerId);
      if (query.keyId !== undefined) select = select.where('key_id', '=', query.keyId);
      if (query.routerId !== undefined) select = select.where('router_id', '=', query.routerId);
      if (query.since !== undefined) select = select.where('created_at', '>=', query.since);
      return select.orderBy('created_at', 'desc').limit(query.limit ?? 1000).execute();
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
