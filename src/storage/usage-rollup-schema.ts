import type { Selectable } from 'kysely';

type Millis = number;

/** A rollup's time bucket: a UTC minute, hour or day. */
export type RollupGrain = 'minute' | 'hour' | 'day';

export const GRAIN_MS: Readonly<Record<RollupGrain, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * The usage records of one owner in one time bucket with the same router, model, key and status, summed (0015).
 * Written with the records, in their transaction, from the rows that INSERT actually added, so a batch written twice
 * (a retry, another instance) is summed once. A router, model or key the records had none of is '' (part of the key).
 */
export interface UsageRollupsTable {
  owner_id: string;
  grain: RollupGrain;
  bucket_start: Millis;
  router_id: string;
  model: string;
  key_id: string;
  status: number;
  requests: number;
  /** Requests that streamed. */
  streamed: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_prompt_tokens: number;
  cache_write_prompt_tokens: number;
  reasoning_tokens: number;
  /** Cost in units of 1e-10 USD, the precision each record's cost is kept at: integer sums are exact in any order. */
  cost_units: number;
  /** What the auto router's strongest model would have cost (a record without one counts at its own cost), 1e-10 USD. */
  counterfactual_cost_units: number;
  carbon_grams: number;
  energy_wh: number;
  latency_ms_sum: number;
}

/** Latency counts of one owner's requests in one time bucket, per router and model, in latency-sketch buckets (0015). */
export interface UsageLatencyRollupsTable {
  owner_id: string;
  grain: RollupGrain;
  bucket_start: Millis;
  router_id: string;
  model: string;
  latency_bucket: number;
  requests: number;
}

export type UsageRollupRow = Selectable<UsageRollupsTable>;
export type UsageLatencyRollupRow = Selectable<UsageLatencyRollupsTable>;

/** The key columns of a rollup row, in the order of its primary key. */
export const ROLLUP_KEY = ['owner_id', 'grain', 'bucket_start', 'router_id', 'model', 'key_id', 'status'] as const satisfies readonly (keyof UsageRollupsTable)[];
/** The summed columns of a rollup row. */
export const ROLLUP_SUMS = [
  'requests',
  'streamed',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cached_prompt_tokens',
  'cache_write_prompt_tokens',
  'reasoning_tokens',
  'cost_units',
  'counterfactual_cost_units',
  'carbon_grams',
  'energy_wh',
  'latency_ms_sum',
] as const satisfies readonly (keyof UsageRollupsTable)[];
export const LATENCY_ROLLUP_KEY = ['owner_id', 'grain', 'bucket_start', 'router_id', 'model', 'latency_bucket'] as const satisfies readonly (keyof UsageLatencyRollupsTable)[];

/** USD as the integer units rollups sum (1e-10 USD). */
export function costUnits(usd: number): number {
  return Math.round(usd * 1e10);
}

/** Summed cost units as USD. */
export function usdOfUnits(units: number): number {
  return units / 1e10;
}
