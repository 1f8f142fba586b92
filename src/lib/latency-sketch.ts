/**
 * Latencies counted in fixed logarithmic buckets (DDSketch's mapping): bucket i holds the values in (γ^(i−1), γ^i]
 * with γ = (1 + α) / (1 − α), and reads back as 2γ^i / (γ + 1), within α of every value in it. Counts of the same
 * bucket add up across time, routers and instances, so a percentile read from summed counts is as accurate as one
 * read from a single bucket: within α of the exact nearest-rank percentile of the values counted.
 */

/** The relative accuracy α of a percentile read from the buckets. */
export const LATENCY_RELATIVE_ACCURACY = 0.005;
const GAMMA = (1 + LATENCY_RELATIVE_ACCURACY) / (1 - LATENCY_RELATIVE_ACCURACY);
const LOG_GAMMA = Math.log(GAMMA);
/** Values at or below this many milliseconds (1 µs), zero included, share the lowest bucket. */
const MIN_MS = 0.001;
/** The lowest bucket: its value reads back as 0. */
export const ZERO_LATENCY_BUCKET = Math.ceil(Math.log(MIN_MS) / LOG_GAMMA) - 1;

/** The bucket a latency in milliseconds falls in. */
export function latencyBucket(ms: number): number {
  if (!(ms > MIN_MS)) return ZERO_LATENCY_BUCKET;
  return Math.ceil(Math.log(ms) / LOG_GAMMA);
}

/** The value a bucket reads back as: within α of every latency it holds. */
export function latencyOfBucket(bucket: number): number {
  if (bucket <= ZERO_LATENCY_BUCKET) return 0;
  return (2 * GAMMA ** bucket) / (GAMMA + 1);
}

/**
 * Nearest-rank percentiles (p in 0–100) from bucket counts sorted by bucket, ascending; null when nothing was
 * counted. Each is the value of the bucket holding the ⌈p/100 · n⌉-th smallest latency.
 */
export function percentilesOfBuckets(buckets: readonly { readonly bucket: number; readonly count: number }[], ps: readonly number[]): (number | null)[] {
  const total = buckets.reduce((sum, entry) => sum + entry.count, 0);
  if (total === 0) return ps.map(() => null);
  return ps.map((p) => {
    const rank = Math.max(1, Math.ceil((p / 100) * total));
    let seen = 0;
    for (const entry of buckets) {
      seen += entry.count;
      if (seen >= rank) return round3(latencyOfBucket(entry.bucket));
    }
    return round3(latencyOfBucket(buckets[buckets.length - 1]?.bucket ?? ZERO_LATENCY_BUCKET));
  });
}

/** Milliseconds to the microsecond: more digits than that are noise in a latency. */
function round3(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
