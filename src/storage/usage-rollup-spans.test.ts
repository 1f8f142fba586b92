import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '../lib/seeded-random.js';
import { GRAIN_MS } from './usage-rollup-schema.js';
import { planRollupSpans, rollupHorizons, type RollupSpan } from './usage-rollup-spans.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const ALL_KEPT = { minute: Number.NEGATIVE_INFINITY, hour: Number.NEGATIVE_INFINITY };

/** The time each span's rows cover, as [start, end) intervals sorted by start. */
function covered(spans: readonly RollupSpan[]): [number, number][] {
  return spans.map((span): [number, number] => [span.from, span.to]).sort((a, b) => a[0] - b[0]);
}


describe('rollup spans', () => {
  it('tile the range widened to whole minutes, without gap or overlap, each span on its own grain', () => {
    const next = seededRandom(11);
    const base = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 5000; i += 1) {
      const from = base + Math.floor(next() * 400 * DAY);
      const to = from + 1 + Math.floor(next() * (next() < 0.5 ? 3 * HOUR : 366 * DAY));
      for (const coarsest of ['hour', 'day'] as const) {
        const plan = planRollupSpans(from, to, coarsest, ALL_KEPT);
        assert.equal(plan.from, Math.floor(from / MINUTE) * MINUTE);
        assert.equal(plan.to, Math.ceil(to / MINUTE) * MINUTE);
        const intervals = covered(plan.spans);
        assert.equal(intervals[0]?.[0], plan.from);
        assert.equal(intervals[intervals.length - 1]?.[1], plan.to);
        for (let k = 1; k < intervals.length; k += 1) assert.equal(intervals[k]?.[0], intervals[k - 1]?.[1]);
        for (const span of plan.spans) {
          const size = GRAIN_MS[span.grain];
          assert.ok(span.from % size === 0 && span.to % size === 0 && span.from < span.to);
          if (coarsest === 'hour') assert.notEqual(span.grain, 'day');
        }
      }
    }
  });

  it('read a bounded number of buckets: at most 118 minutes and 46 hours besides the days', () => {
    const from = Date.UTC(2026, 0, 1, 0, 0, 30) + 23 * HOUR + 59 * MINUTE;
    const to = from + 365 * DAY - 2 * MINUTE;
    const plan = planRollupSpans(from, to, 'day', ALL_KEPT);
    const buckets = (grain: RollupSpan['grain']) => plan.spans.filter((span) => span.grain === grain).reduce((sum, span) => sum + (span.to - span.from) / GRAIN_MS[grain], 0);
    assert.ok(buckets('minute') <= 118, `${buckets('minute')} minutes`);
    assert.ok(buckets('hour') <= 46, `${buckets('hour')} hours`);
    assert.equal(plan.spans.filter((span) => span.grain === 'day').length, 1);
  });

  it('widen an edge to whole hours, then days, where the finer rollups have expired', () => {
    const now = Date.UTC(2026, 5, 1, 12, 34, 56);
    const horizons = rollupHorizons({ recordsDays: 30, hourRollupsDays: 400 }, now);
    const recent = planRollupSpans(now - DAY, now, 'hour', horizons);
    assert.equal(recent.from, Math.floor((now - DAY) / MINUTE) * MINUTE);
    const month = planRollupSpans(now - 45 * DAY, now, 'day', horizons);
    assert.equal(month.from, Math.floor((now - 45 * DAY) / HOUR) * HOUR, 'minutes 45 days old have expired: from the hour');
    assert.equal(month.to, Math.ceil(now / MINUTE) * MINUTE, 'the recent edge keeps its minutes');
    const old = planRollupSpans(now - 600 * DAY, now - 500 * DAY, 'day', horizons);
    assert.equal(old.from % DAY, 0);
    assert.equal(old.to % DAY, 0);
    assert.ok(old.spans.every((span) => span.grain === 'day'));
  });
});
