import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { RollupSpan } from './usage-rollup-spans.js';

/** Sums of the rollups over some spans: counts, tokens and cost units are whole numbers, exact at any volume. */
export interface RollupSums {
  requests: number;
  errors: number;
  streamed: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cachedPromptTokens: number;
  cacheWritePromptTokens: number;
  reasoningTokens: number;
  costUnits: number;
  counterfactualCostUnits: number;
  carbonGrams: number;
  energyWh: number;
  latencyMsSum: number;
}

/** Which rows: an owner's (reports), or a key's or a router's whoever owns it (budgets). */
export type RollupSubject = { readonly ownerId: string; readonly routerId?: string | undefined } | { readonly keyId: string } | { readonly routerId: string };

/** A column a breakdown groups by. */
export type RollupDimension = 'router_id' | 'model' | 'key_id';

/** Latency-sketch buckets at the given percentiles (null when nothing was counted), per chart bucket. */
export interface LatencyPercentileBuckets {
  readonly t: number;
  readonly buckets: readonly (number | null)[];
}

const SUMS = {
  requests: 'requests',
  streamed: 'streamed',
  promptTokens: 'prompt_tokens',
  completionTokens: 'completion_tokens',
  totalTokens: 'total_tokens',
  cachedPromptTokens: 'cached_prompt_tokens',
  cacheWritePromptTokens: 'cache_write_prompt_tokens',
  reasoningTokens: 'reasoning_tokens',
  costUnits: 'cost_units',
  counterfactualCostUnits: 'counterfactual_cost_units',
  carbonGrams: 'carbon_grams',
  energyWh: 'energy_wh',
  latencyMsSum: 'latency_ms_sum',
} as const;

/**
 * Reads of the usage rollups, aggregated in SQL (docs/usage-analytics.md): what a query costs follows the rollup rows
 * in its spans, never the records they sum. `db` may be a reader off the event loop (SQLite's reader thread).
 */
export function createUsageRollupRepository(db: Kysely<Database>) {
  /**
   * The subject's rows in the spans, as one OR of complete index ranges (subject columns, grain, bucket_start): so
   * SQLite and Postgres each seek every span in the primary key (or the router or key index) and read only its rows.
   * With the subject outside the OR, SQLite used the index for the owner alone and read the owner's whole history.
   */
  const inSpans = (eb: ExpressionBuilder<Database, 'usage_rollups' | 'usage_latency_rollups'>, subject: RollupSubject, spans: readonly RollupSpan[]) =>
    eb.or(
      spans.map((span) => {
        const conditions = [];
        if ('ownerId' in subject) conditions.push(eb('owner_id', '=', subject.ownerId));
        if ('keyId' in subject) conditions.push(eb('key_id', '=', subject.keyId));
        if ('routerId' in subject && subject.routerId !== undefined) conditions.push(eb('router_id', '=', subject.routerId));
        conditions.push(eb('grain', '=', span.grain), eb('bucket_start', '>=', span.from), eb('bucket_start', '<', span.to));
        return eb.and(conditions);
      }),
    );

  const sums = (row: Record<string, unknown>): RollupSums => {
    const result = { errors: Number(row.errors ?? 0) } as RollupSums;
    for (const [name, _column] of Object.entries(SUMS)) (result as unknown as Record<string, number>)[name] = Number(row[name] ?? 0);
    return result;
  };

  const selectSums = () => [
    ...Object.entries(SUMS).map(([name, column]) => sql<string | number | null>`sum(${sql.ref(column)})`.as(name)),
    sql<string | number | null>`sum(case when status >= 400 then requests else 0 end)`.as('errors'),
  ];

  const rollups = (subject: RollupSubject, spans: readonly RollupSpan[]) => db.selectFrom('usage_rollups').where((eb) => inSpans(eb, subject, spans));

  return {
    /** Sums per chart bucket of `bucketMs` (UTC), oldest first; buckets with no requests are left out. */
    async series(subject: RollupSubject, spans: readonly RollupSpan[], bucketMs: number): Promise<(RollupSums & { t: number })[]> {
      if (spans.length === 0) return [];
      const t = sql<number | string>`(bucket_start / ${sql.lit(Math.trunc(bucketMs))}) * ${sql.lit(Math.trunc(bucketMs))}`;
      const rows = await rollups(subject, spans)
        .select([t.as('t'), ...selectSums()])
        .groupBy(t)
        .orderBy(t)
        .execute();
      return rows.map((row) => ({ t: Number(row.t), ...sums(row) }));
    },

    /** Sums over all the spans. */
    async totals(subject: RollupSubject, spans: readonly RollupSpan[]): Promise<RollupSums> {
      if (spans.length === 0) return sums({});
      const row = await rollups(subject, spans).select(selectSums()).executeTakeFirst();
      return sums(row ?? {});
    },

    /** Sums per router, model or key ('' when the records had none), most expensive first. */
    async breakdown(ownerId: string, spans: readonly RollupSpan[], by: RollupDimension): Promise<(RollupSums & { id: string })[]> {
      if (spans.length === 0) return [];
      const rows = await rollups({ ownerId }, spans)
        .select([sql.ref<string>(by).as('id'), ...selectSums()])
        .groupBy(by)
        .orderBy(sql`sum(cost_units)`, 'desc')
        .orderBy(sql`sum(requests)`, 'desc')
        .execute();
      return rows.map((row) => ({ id: String(row.id), ...sums(row) }));
    },

    /**
     * The latency-sketch bucket holding each nearest-rank percentile, per chart bucket and over the whole range
     * (t = null), computed in SQL with running sums over the bucket counts.
     */
    async latencyPercentiles(subject: { readonly ownerId: string; readonly routerId?: string | undefined }, spans: readonly RollupSpan[], bucketMs: number, percentiles: readonly number[]): Promise<{ series: LatencyPercentileBuckets[]; overall: (number | null)[] }> {
      if (spans.length === 0) return { series: [], overall: percentiles.map(() => null) };
      const size = sql.lit(Math.trunc(bucketMs));
      const where = (eb: ExpressionBuilder<Database, 'usage_latency_rollups'>) => inSpans(eb, subject, spans);
      const picks = percentiles.map((p, index) => sql`min(case when cum * 100000 >= total * ${sql.lit(Math.round(p * 1000))} then b end)`.as(`p${index}`));
      const perBucket = await db
        .with('h', (qb) =>
          qb
            .selectFrom('usage_latency_rollups')
            .where(where)
            .select([sql<number>`(bucket_start / ${size}) * ${size}`.as('t'), 'latency_bucket as b', sql<number>`sum(requests)`.as('n')])
            .groupBy([sql`(bucket_start / ${size}) * ${size}`, 'latency_bucket']),
        )
        .with('c', (qb) =>
          qb.selectFrom('h').select(['t', 'b', sql<number>`sum(n) over (partition by t order by b)`.as('cum'), sql<number>`sum(n) over (partition by t)`.as('total')]),
        )
        .selectFrom('c')
        .select(['t', ...picks])
        .groupBy('t')
        .orderBy('t')
        .execute();
      const overall = await db
        .with('h', (qb) => qb.selectFrom('usage_latency_rollups').where(where).select(['latency_bucket as b', sql<number>`sum(requests)`.as('n')]).groupBy('latency_bucket'))
        .with('c', (qb) => qb.selectFrom('h').select(['b', sql<number>`sum(n) over (order by b)`.as('cum'), sql<number>`sum(n) over ()`.as('total')]))
        .selectFrom('c')
        .select(picks)
        .executeTakeFirst();
      const read = (row: Record<string, unknown> | undefined) => percentiles.map((_, index) => (row?.[`p${index}`] === null || row?.[`p${index}`] === undefined ? null : Number(row[`p${index}`])));
      return { series: perBucket.map((row) => ({ t: Number(row.t), buckets: read(row) })), overall: read(overall) };
    },
  };
}

export type UsageRollupRepository = ReturnType<typeof createUsageRollupRepository>;
