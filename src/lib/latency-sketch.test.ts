import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from './seeded-random.js';
import { LATENCY_RELATIVE_ACCURACY, latencyBucket, latencyOfBucket, percentilesOfBuckets, ZERO_LATENCY_BUCKET } from './latency-sketch.js';


function exactPercentile(sorted: readonly number[], p: number): number {
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1] ?? Number.NaN;
}

function countsOf(values: readonly number[]): { bucket: number; count: number }[] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(latencyBucket(value), (counts.get(latencyBucket(value)) ?? 0) + 1);
  return [...counts].map(([bucket, count]) => ({ bucket, count })).sort((a, b) => a.bucket - b.bucket);
}

describe('latency sketch', () => {
  it('reads every latency back within its relative accuracy, from a microsecond to an hour', () => {
    const next = seededRandom(7);
    for (let i = 0; i < 100_000; i += 1) {
      const ms = 0.002 * 10 ** (next() * 9.2);
      const read = latencyOfBucket(latencyBucket(ms));
      assert.ok(Math.abs(read - ms) <= LATENCY_RELATIVE_ACCURACY * ms * (1 + 1e-12), `${ms} read back as ${read}`);
    }
  });

  it('puts zero and sub-microsecond latencies in the lowest bucket, read as 0', () => {
    assert.equal(latencyBucket(0), ZERO_LATENCY_BUCKET);
    assert.equal(latencyBucket(0.0005), ZERO_LATENCY_BUCKET);
    assert.equal(latencyOfBucket(ZERO_LATENCY_BUCKET), 0);
    assert.ok(latencyBucket(0.0011) > ZERO_LATENCY_BUCKET);
  });

  it('gives p50, p95 and p99 of log-normal latencies within 1 % of the exact nearest-rank percentiles', () => {
    const next = seededRandom(42);
    for (const size of [1, 2, 19, 1000, 50_000]) {
      const values: number[] = [];
      for (let i = 0; i < size; i += 1) {
        // Box–Muller: a log-normal around 300 ms with a long tail.
        const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
        values.push(Math.exp(Math.log(300) + normal * 1.1));
      }
      const sorted = [...values].sort((a, b) => a - b);
      const [p50, p95, p99] = percentilesOfBuckets(countsOf(values), [50, 95, 99]);
      for (const [p, read] of [[50, p50], [95, p95], [99, p99]] as const) {
        const exact = exactPercentile(sorted, p);
        assert.ok(read !== null && read !== undefined && Math.abs(read - exact) / exact <= 0.01, `n=${size} p${p}: ${read} vs exact ${exact}`);
      }
    }
  });

  it('merges: counts summed from parts give the percentiles of the whole', () => {
    const next = seededRandom(3);
    const all = Array.from({ length: 9000 }, () => 1 + next() * 2000);
    const parts = [all.slice(0, 1000), all.slice(1000, 6000), all.slice(6000)].map(countsOf);
    const merged = new Map<number, number>();
    for (const part of parts) for (const { bucket, count } of part) merged.set(bucket, (merged.get(bucket) ?? 0) + count);
    const summed = [...merged].map(([bucket, count]) => ({ bucket, count })).sort((a, b) => a.bucket - b.bucket);
    assert.deepEqual(percentilesOfBuckets(summed, [50, 95]), percentilesOfBuckets(countsOf(all), [50, 95]));
  });

  it('has no percentile without counts', () => {
    assert.deepEqual(percentilesOfBuckets([], [50, 95]), [null, null]);
  });
});
