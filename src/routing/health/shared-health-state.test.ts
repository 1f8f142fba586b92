import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError, isRetryableStatus } from '../../providers/contract.js';
import { ownerScopedKey } from './health-keys.js';
import { createModelHealth } from './model-health.js';
import { RemoteLatency, blendLatency, type HealthEvent, type LatencyFigures } from './shared-health-state.js';

function httpError(status: number, retryAfterMs?: number): UpstreamError {
  return new UpstreamError({
    provider: 'openai',
    kind: 'http',
    statusCode: status,
    isRetryable: isRetryableStatus(status),
    message: `HTTP ${status}`,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}

function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const MINI = 'openai:gpt-4o-mini';
const FOUR_O = 'openai:gpt-4o';

const figures = (ttftMs: number, ttftSamples: number, tokensPerSecond: number, speedSamples: number): LatencyFigures => ({
  ttftMs,
  ttftSamples,
  tokensPerSecond,
  speedSamples,
  samples: Math.max(ttftSamples, speedSamples),
});

describe('blendLatency', () => {
  it('weights each half by the samples it rests on', () => {
    const blended = blendLatency([figures(100, 1, 50, 3), figures(400, 3, 10, 1)]);
    assert.deepEqual(blended, { ttftMs: (100 + 400 * 3) / 4, tokensPerSecond: (50 * 3 + 10) / 4, samples: 6 });
  });

  it('a half only some instances measured comes from those alone; a half nobody measured is NaN', () => {
    const blended = blendLatency([figures(Number.NaN, 0, 40, 2), figures(200, 2, Number.NaN, 0)]);
    assert.deepEqual(blended, { ttftMs: 200, tokensPerSecond: 40, samples: 4 });
    const streamsOnly = blendLatency([figures(300, 1, Number.NaN, 0)]);
    assert.ok(streamsOnly !== undefined && Number.isNaN(streamsOnly.tokensPerSecond));
  });

  it('nothing measured anywhere: undefined', () => {
    assert.equal(blendLatency([]), undefined);
  });
});

describe('RemoteLatency', () => {
  it('keeps each source’s newest table and forgets stale ones', () => {
    const remote = new RemoteLatency();
    remote.put('a', new Map([[MINI, figures(100, 1, 50, 1)]]), 1000);
    remote.put('a', new Map([[MINI, figures(999, 1, 50, 1)]]), 500);
    remote.put('b', new Map([[MINI, figures(300, 1, 50, 1)]]), 2000);
    assert.deepEqual(
      remote.figures(MINI).map((entry) => entry.ttftMs),
      [100, 300],
    );
    remote.prune(1500);
    assert.deepEqual(
      remote.figures(MINI).map((entry) => entry.ttftMs),
      [300],
    );
    assert.deepEqual(remote.figures(FOUR_O), []);
  });
});

describe('model health shared between instances', () => {
  it('reports a 429 back-off it starts or lengthens, once, and not a shorter one', () => {
    const clock = fakeClock();
    const health = createModelHealth({}, clock.now);
    const events: HealthEvent[] = [];
    health.onEvent((event) => events.push(event));
    health.recordFailure(MINI, httpError(429, 5000), clock.now());
    health.recordFailure(FOUR_O, httpError(429, 2000), clock.now());
    assert.deepEqual(events, [{ kind: 'backoff', provider: 'openai', until: clock.now() + 5000 }]);
  });

  it('reports a circuit it opens, and the re-opening after a failed probe', () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 2, cooldownMs: 1000 }, clock.now);
    const events: HealthEvent[] = [];
    health.onEvent((event) => events.push(event));
    health.recordFailure(MINI, httpError(500), clock.now());
    assert.deepEqual(events, []);
    health.recordFailure(MINI, httpError(500), clock.now());
    assert.deepEqual(events, [{ kind: 'open', model: MINI, until: clock.now() + 1000 }]);
    clock.advance(1000);
    assert.deepEqual(health.admit(MINI, clock.now()), { available: true, probe: true });
    health.recordFailure(MINI, httpError(503), clock.now());
    assert.deepEqual(events.at(-1), { kind: 'open', model: MINI, until: clock.now() + 2000 });
  });

  it('adopts another instance’s back-off and opening until the same time, without reporting them again', () => {
    const clock = fakeClock();
    const health = createModelHealth({}, clock.now);
    const events: HealthEvent[] = [];
    health.onEvent((event) => events.push(event));
    const now = clock.now();
    assert.equal(health.adopt({ kind: 'backoff', provider: 'openai', until: now + 3000 }, now), true);
    assert.deepEqual(health.availability(FOUR_O, now), { available: false, reason: 'provider_backoff', until: now + 3000 });
    assert.equal(health.adopt({ kind: 'backoff', provider: 'openai', until: now + 1000 }, now), false, 'a shorter one changes nothing');
    assert.equal(health.isAvailable('anthropic:claude-3-5-haiku-latest', now), true);

    assert.equal(health.adopt({ kind: 'open', model: 'sim:small', until: now + 2000 }, now), true);
    assert.deepEqual(health.admit('sim:small', now), { available: false, reason: 'circuit_open', until: now + 2000 });
    assert.equal(health.adopt({ kind: 'open', model: 'sim:small', until: now - 1 }, now), false, 'an opening already over is ignored');
    assert.deepEqual(events, []);

    clock.advance(2000);
    assert.deepEqual(health.admit('sim:small', clock.now()), { available: true, probe: true }, 'half-open probing stays local');
    health.recordSuccess('sim:small', { totalMs: 100 }, clock.now());
    assert.equal(health.circuit('sim:small', clock.now()), 'closed');
    clock.advance(1000);
    assert.equal(health.isAvailable(FOUR_O, clock.now()), true, 'the adopted back-off ends when it said');
  });

  it('an owner-scoped back-off travels under its scoped key and stays scoped', () => {
    const clock = fakeClock();
    const a = createModelHealth({}, clock.now);
    const b = createModelHealth({}, clock.now);
    a.onEvent((event) => b.adopt(event, clock.now()));
    a.recordFailure(ownerScopedKey(MINI, 'usr_1'), httpError(429, 4000), clock.now());
    assert.equal(b.isAvailable(ownerScopedKey(FOUR_O, 'usr_1'), clock.now()), false);
    assert.equal(b.isAvailable(FOUR_O, clock.now()), true);
  });

  it('lists running back-offs and open circuits as events, to republish after an outage', () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 1, cooldownMs: 1000 }, clock.now);
    health.recordFailure(MINI, httpError(429, 5000), clock.now());
    assert.deepEqual(health.activeEvents(clock.now()), [
      { kind: 'backoff', provider: 'openai', until: clock.now() + 5000 },
      { kind: 'open', model: MINI, until: clock.now() + 1000 },
    ]);
    clock.advance(1000);
    assert.deepEqual(health.activeEvents(clock.now()), [{ kind: 'backoff', provider: 'openai', until: clock.now() + 4000 }]);
  });

  it('blends other instances’ latency with its own by sample count, and only its own is published', () => {
    const clock = fakeClock();
    const health = createModelHealth({ latencySmoothing: 1 }, clock.now);
    health.recordSuccess(MINI, { totalMs: 100, ttftMs: 100 }, clock.now());
    assert.deepEqual(health.localLatency().get(MINI), { ttftMs: 100, ttftSamples: 1, tokensPerSecond: Number.NaN, speedSamples: 0, samples: 1 });

    health.remoteLatency.put('gw_other', new Map([[MINI, figures(400, 3, 80, 3)]]), clock.now());
    health.remoteLatency.put('gw_third', new Map([[FOUR_O, figures(250, 1, 60, 1)]]), clock.now());
    assert.deepEqual(health.latency(MINI), { ttftMs: (100 + 400 * 3) / 4, tokensPerSecond: 80, samples: 4 });
    assert.deepEqual(health.latency(FOUR_O), { ttftMs: 250, tokensPerSecond: 60, samples: 1 }, 'measured elsewhere only');
    assert.deepEqual([...health.localLatency().keys()], [MINI]);

    health.remoteLatency.prune(clock.now() + 1);
    assert.deepEqual(health.latency(MINI), { ttftMs: 100, tokensPerSecond: Number.NaN, samples: 1 });
    assert.equal(health.latency(FOUR_O), undefined);
  });
});
