import { GRAIN_MS, type RollupGrain } from './usage-rollup-schema.js';

/** Rollup rows of one grain whose bucket starts in [from, to). */
export interface RollupSpan {
  readonly grain: RollupGrain;
  readonly from: number;
  readonly to: number;
}

/** The oldest bucket still kept, per grain (the sweep deletes minutes and hours past their retention; days stay). */
export interface RollupHorizons {
  readonly minute: number;
  readonly hour: number;
}

/** What a range reads: its spans, and the range they cover exactly (the asked range widened to whole buckets). */
export interface RollupPlan {
  readonly from: number;
  readonly to: number;
  readonly spans: readonly RollupSpan[];
}

const FINER: Readonly<Record<RollupGrain, readonly RollupGrain[]>> = { day: ['day', 'hour', 'minute'], hour: ['hour', 'minute'], minute: ['minute'] };

/**
 * The fewest rollup rows that cover [from, to): whole days inside it, whole hours in what is left, and minutes at the
 * edges, none coarser than `coarsest` (a chart's bucket, so no span straddles two of its buckets). The range is widened
 * to whole minutes, or to whole hours or days at an edge whose minutes (or hours) have expired. At most 2 × 59
 * minutes and 2 × 23 hours besides the days: a report's cost follows its buckets, not its records.
 */
export function planRollupSpans(from: number, to: number, coarsest: RollupGrain, horizons: RollupHorizons): RollupPlan {
  const start = alignDown(from, finestKeptAt(from, horizons));
  const end = alignUp(to, finestKeptAt(Math.max(from, to - 1), horizons));
  return { from: start, to: end, spans: decompose(start, end, FINER[coarsest]) };
}

function finestKeptAt(time: number, horizons: RollupHorizons): RollupGrain {
  if (time >= horizons.minute) return 'minute';
  return time >= horizons.hour ? 'hour' : 'day';
}

function alignDown(time: number, grain: RollupGrain): number {
  return Math.floor(time / GRAIN_MS[grain]) * GRAIN_MS[grain];
}

function alignUp(time: number, grain: RollupGrain): number {
  return Math.ceil(time / GRAIN_MS[grain]) * GRAIN_MS[grain];
}

function decompose(from: number, to: number, grains: readonly RollupGrain[]): RollupSpan[] {
  if (from >= to) return [];
  const [grain, ...finer] = grains;
  if (grain === undefined) return [];
  if (finer.length === 0) return [{ grain, from: alignDown(from, grain), to: alignUp(to, grain) }];
  const inner = { from: alignUp(from, grain), to: alignDown(to, grain) };
  if (inner.from >= inner.to) return decompose(from, to, finer);
  return [...decompose(from, inner.from, finer), { grain, ...inner }, ...decompose(inner.to, to, finer)];
}

/** How long usage is kept, in days: raw records (and minute rollups, and request logs), and hour rollups. Day rollups stay. */
export interface UsageRetention {
  readonly recordsDays: number;
  readonly hourRollupsDays: number;
}

const DAY = 86_400_000;

/** Raw records 90 days, hour rollups 400 (a year's report at hour edges), day rollups for ever. */
export const DEFAULT_USAGE_RETENTION: UsageRetention = { recordsDays: 90, hourRollupsDays: 400 };

/** The oldest minute and hour still kept at `now`. */
export function rollupHorizons(retention: UsageRetention, now: number): RollupHorizons {
  return { minute: now - retention.recordsDays * DAY, hour: now - retention.hourRollupsDays * DAY };
}
