import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MovingAverage } from './moving-average.js';
import { SlidingWindow, errorRateOf } from './sliding-window.js';

describe('SlidingWindow', () => {
  it('sums calls, failures and time to first token over the window', () => {
    const window = new SlidingWindow(60_000, 12);
    window.record(1_000, { failed: false, ttftMs: 200 });
    window.record(2_000, { failed: true });
    window.record(30_000, { failed: false, ttftMs: 400 });
    assert.deepEqual(window.totals(30_000), { requests: 3, failures: 1, ttftSumMs: 600, ttftSamples: 2 });
    assert.equal(errorRateOf(window.totals(30_000)), 1 / 3);
  });

  it('forgets buckets the window has moved past, a bucket (5 s) at a time', () => {
    const window = new SlidingWindow(60_000, 12);
    window.record(1_000, { failed: true });
    window.record(10_000, { failed: false });
    // The first call's bucket [0, 5000) leaves when the window's newest bucket starts at 60000.
    assert.equal(window.totals(59_999).requests, 2);
    assert.equal(window.totals(60_000).requests, 1);
    assert.equal(window.totals(60_000).failures, 0);
    assert.equal(window.totals(70_000).requests, 0);
  });

  it('reuses a ring bucket for a new slice instead of adding to the old one', () => {
    const window = new SlidingWindow(1_000, 4);
    window.record(0, { failed: true });
    window.record(1_000, { failed: false }); // same ring slot as 0, a full window later
    assert.deepEqual(window.totals(1_000), { requests: 1, failures: 0, ttftSumMs: 0, ttftSamples: 0 });
  });

  it('drops an event older than the slice its bucket now holds', () => {
    const window = new SlidingWindow(1_000, 4);
    window.record(1_000, { failed: false });
    window.record(0, { failed: true });
    assert.deepEqual(window.totals(1_000), { requests: 1, failures: 0, ttftSumMs: 0, ttftSamples: 0 });
  });

  it('clear() empties it', () => {
    const window = new SlidingWindow(60_000, 12);
    window.record(5, { failed: true });
    window.clear();
    assert.equal(window.totals(5).requests, 0);
    assert.equal(errorRateOf(window.totals(5)), 0);
  });

  it('holds exactly the events of the last whole buckets (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3_000 }), failed: fc.boolean() }), { maxLength: 200 }),
        (steps) => {
          const windowMs = 10_000;
          const buckets = 10;
          const window = new SlidingWindow(windowMs, buckets);
          const events: { at: number; failed: boolean }[] = [];
          let now = 0;
          for (const step of steps) {
            now += step.gap;
            window.record(now, { failed: step.failed });
            events.push({ at: now, failed: step.failed });
          }
          const oldestSlice = Math.floor(now / 1_000) - buckets + 1;
          const inWindow = events.filter((event) => Math.floor(event.at / 1_000) >= oldestSlice);
          const totals = window.totals(now);
          assert.equal(totals.requests, inWindow.length);
          assert.equal(totals.failures, inWindow.filter((event) => event.failed).length);
        },
      ),
    );
  });
});

describe('MovingAverage', () => {
  it('is NaN until the first sample, which it takes whole', () => {
    const average = new MovingAverage(0.2);
    assert.ok(Number.isNaN(average.value));
    average.add(100);
    assert.equal(average.value, 100);
    assert.equal(average.samples, 1);
  });

  it('moves by its smoothing towards each new sample', () => {
    const average = new MovingAverage(0.25);
    average.add(100);
    average.add(200);
    assert.equal(average.value, 125);
    average.add(125);
    assert.equal(average.value, 125);
  });

  it('ignores samples that are not finite numbers', () => {
    const average = new MovingAverage(0.5);
    average.add(Number.NaN);
    average.add(Number.POSITIVE_INFINITY);
    assert.equal(average.samples, 0);
  });
});
