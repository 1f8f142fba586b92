/** Percentiles of a set of durations, in milliseconds (rounded to the microsecond). */
export interface LatencySummary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/**
 * Exact percentiles (nearest rank) of `valuesMs`. Computed here rather than taken
 * from autocannon's histogram, which holds whole milliseconds: far too coarse for
 * an overhead measured in tenths of a millisecond.
 */
export function summarizeLatencies(valuesMs: readonly number[] | Float64Array): LatencySummary {
  const sorted = Float64Array.from(valuesMs).sort();
  const count = sorted.length;
  if (count === 0) return { count: 0, mean: Number.NaN, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
  const rank = (quantile: number) => sorted[Math.min(count - 1, Math.max(0, Math.ceil(quantile * count) - 1))] ?? Number.NaN;
  let total = 0;
  for (const value of sorted) total += value;
  return {
    count,
    mean: microseconds(total / count),
    p50: microseconds(rank(0.5)),
    p90: microseconds(rank(0.9)),
    p99: microseconds(rank(0.99)),
    max: microseconds(sorted[count - 1] ?? Number.NaN),
  };
}

/** Rounds milliseconds to three decimals (one microsecond). */
export function microseconds(valueMs: number): number {
  return Math.round(valueMs * 1000) / 1000;
}
