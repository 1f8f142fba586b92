/** What a sliding window holds: calls, failures and time to first token, summed over the window. */
export interface WindowTotals {
  readonly requests: number;
  readonly failures: number;
  /** Sum and count of the time-to-first-token samples (streams only). */
  readonly ttftSumMs: number;
  readonly ttftSamples: number;
}

export interface WindowEvent {
  readonly failed: boolean;
  readonly ttftMs?: number | undefined;
}

interface Bucket {
  /** Which slice of time the bucket holds (`floor(now / bucketMs)`); stale once the window moved past it. */
  slice: number;
  requests: number;
  failures: number;
  ttftSumMs: number;
  ttftSamples: number;
}

/**
 * Counts over the last `windowMs`, kept in a ring buffer of `buckets` buckets
 * so memory is fixed whatever the traffic. A bucket is reused once the window
 * has moved past it; reads skip stale buckets. The window moves in steps of
 * `windowMs / buckets`, so its real length is between `windowMs - step` and `windowMs`.
 */
export class SlidingWindow {
  readonly #bucketMs: number;
  readonly #buckets: Bucket[];

  constructor(windowMs: number, buckets: number) {
    const count = Math.max(1, Math.floor(buckets));
    this.#bucketMs = Math.max(1, windowMs / count);
    this.#buckets = Array.from({ length: count }, () => ({ slice: Number.NEGATIVE_INFINITY, requests: 0, failures: 0, ttftSumMs: 0, ttftSamples: 0 }));
  }

  record(now: number, event: WindowEvent): void {
    const slice = Math.floor(now / this.#bucketMs);
    const index = ((slice % this.#buckets.length) + this.#buckets.length) % this.#buckets.length;
    const bucket = this.#buckets[index];
    if (bucket === undefined) return;
    if (bucket.slice !== slice) {
      // A late event for a slice already overwritten is dropped rather than counted in the wrong place.
      if (bucket.slice > slice) return;
      Object.assign(bucket, { slice, requests: 0, failures: 0, ttftSumMs: 0, ttftSamples: 0 });
    }
    bucket.requests += 1;
    if (event.failed) bucket.failures += 1;
    if (event.ttftMs !== undefined && Number.isFinite(event.ttftMs)) {
      bucket.ttftSumMs += event.ttftMs;
      bucket.ttftSamples += 1;
    }
  }

  totals(now: number): WindowTotals {
    const current = Math.floor(now / this.#bucketMs);
    const oldest = current - this.#buckets.length + 1;
    let requests = 0;
    let failures = 0;
    let ttftSumMs = 0;
    let ttftSamples = 0;
    for (const bucket of this.#buckets) {
      if (bucket.slice < oldest || bucket.slice > current) continue;
      requests += bucket.requests;
      failures += bucket.failures;
      ttftSumMs += bucket.ttftSumMs;
      ttftSamples += bucket.ttftSamples;
    }
    return { requests, failures, ttftSumMs, ttftSamples };
  }

  clear(): void {
    for (const bucket of this.#buckets) Object.assign(bucket, { slice: Number.NEGATIVE_INFINITY, requests: 0, failures: 0, ttftSumMs: 0, ttftSamples: 0 });
  }
}

/** Failures over calls, 0 when the window is empty. */
export function errorRateOf(totals: WindowTotals): number {
  return totals.requests === 0 ? 0 : totals.failures / totals.requests;
}
