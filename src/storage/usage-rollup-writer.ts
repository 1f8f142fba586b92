import { CompiledQuery, PostgresAdapter, type Kysely } from 'kysely';
import { latencyBucket } from '../lib/latency-sketch.js';
import type { Database } from './schema.js';
import {
  costUnits,
  GRAIN_MS,
  LATENCY_ROLLUP_KEY,
  ROLLUP_KEY,
  ROLLUP_SUMS,
  type RollupGrain,
  type UsageLatencyRollupsTable,
  type UsageRollupsTable,
} from './usage-rollup-schema.js';

/** A usage record as the rollups read it: the columns they key and sum. */
export interface RollupSource {
  readonly id: string;
  readonly created_at: number;
  readonly owner_id: string | null;
  readonly key_id: string | null;
  readonly router_id: string | null;
  readonly model: string | null;
  readonly status: number;
  readonly streamed: number | boolean;
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly cached_prompt_tokens: number;
  readonly cache_write_prompt_tokens: number;
  readonly reasoning_tokens: number;
  readonly cost_usd: number;
  readonly counterfactual_cost_usd: number | null;
  readonly carbon_grams: number;
  readonly energy_wh: number;
  readonly latency_ms: number;
}

const GRAINS: readonly RollupGrain[] = ['minute', 'hour', 'day'];
/** Rows per upsert statement: 20 columns × 400 stays under both engines' bound-parameter limits. */
const ROLLUP_ROWS_PER_STATEMENT = 400;
const LATENCY_ROWS_PER_STATEMENT = 1000;

/**
 * The rollup rows (every grain) that the given records add: one per owner, bucket, router, model, key and status,
 * and one latency count per owner, bucket, router, model and latency bucket. Sorted by key, so that concurrent
 * writers on Postgres lock the rows they share in one order and never deadlock.
 */
export function rollupRowsOf(records: Iterable<RollupSource>): { rollups: UsageRollupsTable[]; latencies: UsageLatencyRollupsTable[] } {
  const rollups = new Map<string, UsageRollupsTable>();
  const latencies = new Map<string, UsageLatencyRollupsTable>();
  for (const record of records) {
    const owner = record.owner_id ?? '';
    const router = record.router_id ?? '';
    const model = record.model ?? '';
    const key = record.key_id ?? '';
    const bucket = latencyBucket(record.latency_ms);
    for (const grain of GRAINS) {
      const size = GRAIN_MS[grain];
      const start = Math.floor(record.created_at / size) * size;
      const id = `${owner}\u0000${grain}\u0000${start}\u0000${router}\u0000${model}\u0000${key}\u0000${record.status}`;
      let row = rollups.get(id);
      if (row === undefined) {
        row = {
          owner_id: owner,
          grain,
          bucket_start: start,
          router_id: router,
          model,
          key_id: key,
          status: record.status,
          requests: 0,
          streamed: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          total_tokens: 0,
          cached_prompt_tokens: 0,
          cache_write_prompt_tokens: 0,
          reasoning_tokens: 0,
          cost_units: 0,
          counterfactual_cost_units: 0,
          carbon_grams: 0,
          energy_wh: 0,
          latency_ms_sum: 0,
        };
        rollups.set(id, row);
      }
      row.requests += 1;
      row.streamed += record.streamed ? 1 : 0;
      row.prompt_tokens += record.prompt_tokens;
      row.completion_tokens += record.completion_tokens;
      row.total_tokens += record.total_tokens;
      row.cached_prompt_tokens += record.cached_prompt_tokens;
      row.cache_write_prompt_tokens += record.cache_write_prompt_tokens;
      row.reasoning_tokens += record.reasoning_tokens;
      row.cost_units += costUnits(record.cost_usd);
      row.counterfactual_cost_units += costUnits(record.counterfactual_cost_usd ?? record.cost_usd);
      row.carbon_grams += record.carbon_grams;
      row.energy_wh += record.energy_wh;
      row.latency_ms_sum += record.latency_ms;
      const latencyId = `${owner}\u0000${grain}\u0000${start}\u0000${router}\u0000${model}\u0000${bucket}`;
      const count = latencies.get(latencyId);
      if (count === undefined) latencies.set(latencyId, { owner_id: owner, grain, bucket_start: start, router_id: router, model, latency_bucket: bucket, requests: 1 });
      else count.requests += 1;
    }
  }
  return { rollups: [...rollups.values()].sort(byKey(ROLLUP_KEY)), latencies: [...latencies.values()].sort(byKey(LATENCY_ROLLUP_KEY)) };
}

/**
 * Adds the rows to the rollups (a row not there yet is inserted), on the executor's transaction. The upserts are
 * written as SQL text here rather than built with Kysely: a batch of 500 records makes up to ~1,500 latency rows,
 * and building and compiling their query nodes cost more of the event loop (Postgres writes on it) than the rows.
 */
export async function addRollups(executor: Kysely<Database>, rows: { rollups: readonly UsageRollupsTable[]; latencies: readonly UsageLatencyRollupsTable[] }): Promise<void> {
  const postgres = executor.getExecutor().adapter instanceof PostgresAdapter;
  for (let start = 0; start < rows.rollups.length; start += ROLLUP_ROWS_PER_STATEMENT) {
    const chunk = rows.rollups.slice(start, start + ROLLUP_ROWS_PER_STATEMENT);
    await executor.executeQuery(upsert('usage_rollups', ROLLUP_COLUMNS, ROLLUP_KEY, ROLLUP_SUMS, chunk, postgres));
  }
  for (let start = 0; start < rows.latencies.length; start += LATENCY_ROWS_PER_STATEMENT) {
    const chunk = rows.latencies.slice(start, start + LATENCY_ROWS_PER_STATEMENT);
    await executor.executeQuery(upsert('usage_latency_rollups', LATENCY_COLUMNS, LATENCY_ROLLUP_KEY, ['requests'], chunk, postgres));
  }
}

const ROLLUP_COLUMNS = [...ROLLUP_KEY, ...ROLLUP_SUMS] as const;
const LATENCY_COLUMNS = [...LATENCY_ROLLUP_KEY, 'requests'] as const;

/** `insert into table (columns) values (…), … on conflict (key) do update set sum = table.sum + excluded.sum, …`. */
function upsert<T extends object>(table: string, columns: readonly (keyof T & string)[], key: readonly string[], sums: readonly string[], rows: readonly T[], postgres: boolean): CompiledQuery {
  const parameters: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const marks: string[] = [];
    for (const column of columns) {
      parameters.push(row[column]);
      marks.push(postgres ? `$${parameters.length}` : '?');
    }
    tuples.push(`(${marks.join(',')})`);
  }
  const updates = sums.map((column) => `"${column}" = "${table}"."${column}" + excluded."${column}"`).join(', ');
  const text = `insert into "${table}" (${columns.map((column) => `"${column}"`).join(', ')}) values ${tuples.join(',')} on conflict (${key.map((column) => `"${column}"`).join(', ')}) do update set ${updates}`;
  return CompiledQuery.raw(text, parameters);
}

function byKey<T>(columns: readonly (keyof T)[]): (a: T, b: T) => number {
  return (a, b) => {
    for (const column of columns) {
      const x = a[column];
      const y = b[column];
      if (x < y) return -1;
      if (x > y) return 1;
    }
    return 0;
  };
}
