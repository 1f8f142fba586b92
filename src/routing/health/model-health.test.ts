import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError, isRetryableStatus } from '../../providers/contract.js';
import { ownerScopedKey, providerKeyOf } from './health-keys.js';
import { createModelHealth } from './model-health.js';

function httpError(status: number, retryAfterMs?: number, provider = 'openai'): UpstreamError {
  return new UpstreamError({
    provider,
    kind: 'http',
    statusCode: status,
    isRetryable: isRetryableStatus(status),
    message: `HTTP ${status}`,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  });
}
const timeout = (): UpstreamError => new UpstreamError({ provider: 'openai', kind: 'timeout', isRetryable: true, message: 'openai timed out' });
const aborted = (): UpstreamError => new UpstreamError({ provider: 'openai', kind: 'aborted', isRetryable: false, message: 'The client went away.' });

/** A clock the test moves by hand. */
function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

const MINI = 'openai:gpt-4o-mini';
const FOUR_O = 'openai:gpt-4o';
const HAIKU = 'anthropic:claude-3-5-haiku-latest';

describe('createModelHealth', () => {
  it('an unknown model is available and unmeasured', () => {
    const health = createModelHealth();
    assert.equal(health.isAvailable(MINI, 0), true);
    assert.deepEqual(health.availability(MINI, 0), { available: true, probe: false });
    assert.equal(health.latency(MINI), undefined);
    assert.equal(health.errorRate(MINI, 0), 0);
    assert.equal(health.circuit(MINI, 0), 'closed');
  });

  describe('circuit breaker', () => {
    it('opens after N consecutive retryable failures, half-opens after the cool-down, closes on a good probe', () => {
      const clock = fakeClock();
      const health = createModelHealth({ failureThreshold: 3, cooldownMs: 10_000 }, clock.now);
      for (const error of [httpError(500), timeout(), httpError(503)]) health.recordFailure(MINI, error, clock.now());
      assert.equal(health.circuit(MINI, clock.now()), 'open');
      assert.deepEqual(health.admit(MINI, clock.now()), { available: false, reason: 'circuit_open', until: clock.now() + 10_000 });
      assert.equal(health.isAvailable(FOUR_O, clock.now()), true, 'other models of the provider are not affected');

      clock.advance(10_000);
      assert.equal(health.circuit(MINI, clock.now()), 'half-open');
      assert.equal(health.isAvailable(MINI, clock.now()), true, 'a pure query sees the probe slot free');
      assert.deepEqual(health.admit(MINI, clock.now()), { available: true, probe: true });
      assert.deepEqual(health.admit(MINI, clock.now()), { available: false, reason: 'probe_in_flight', until: clock.now() });
      assert.equal(health.isAvailable(MINI, clock.now()), false);

      health.recordSuccess(MINI, { totalMs: 300, ttftMs: 300 }, clock.now());
      assert.equal(health.circuit(MINI, clock.now()), 'closed');
      assert.equal(health.errorRate(MINI, clock.now()), 0, 'a recovered model starts a fresh window');
      assert.deepEqual(health.admit(MINI, clock.now()), { available: true, probe: false });
    });

    it('a failed probe re-opens with a doubled cool-down', () => {
      const clock = fakeClock();
      const health = createModelHealth({ failureThreshold: 1, cooldownMs: 1_000, maxCooldownMs: 3_000 }, clock.now);
      health.recordFailure(MINI, httpError(502), clock.now());
      clock.advance(1_000);
      assert.equal(health.admit(MINI, clock.now()).available, true);
      health.recordFailure(MINI, httpError(502), clock.now());
      assert.deepEqual(health.availability(MINI, clock.now()), { available: false, reason: 'circuit_open', until: clock.now() + 2_000 });
      clock.advance(2_000);
      health.admit(MINI, clock.now());
      health.recordFailure(MINI, timeout(), clock.now());
      assert.deepEqual(health.availability(MINI, clock.now()), { available: false, reason: 'circuit_open', until: clock.now() + 3_000 }, 'capped');
    });

    it('opens on the error rate over the window once it holds the minimum volume', () => {
      const clock = fakeClock();
      const health = createModelHealth({ failureThreshold: 100, errorRateThreshold: 0.5, minimumRequests: 10 }, clock.now);
      for (let index = 0; index < 5; index += 1) {
        health.recordSuccess(MINI, { totalMs: 100 }, clock.now());
        health.recordFailure(MINI, httpError(500), clock.now());
        clock.advance(1_000);
      }
      assert.equal(health.circuit(MINI, clock.now()), 'open');
      assert.equal(health.stats(MINI, clock.now()).requests, 10);
    });

    it('old failures leave the window: the error rate falls back to 0', () => {
      const clock = fakeClock();
      const health = createModelHealth({ failureThreshold: 100, windowMs: 60_000 }, clock.now);
      health.recordFailure(MINI, httpError(500), clock.now());
      health.recordSuccess(MINI, { totalMs: 100 }, clock.now());
      assert.equal(health.errorRate(MINI, clock.now()), 0.5);
      clock.advance(65_000);
      assert.equal(health.errorRate(MINI, clock.now()), 0);
    });

    it('client errors and client aborts count for nothing, and free a probe slot', () => {
      const clock = fakeClock();
      const health = createModelHealth({ failureThreshold: 1, cooldownMs: 1_000 }, clock.now);
      for (let index = 0; index < 10; index += 1) {
        health.recordFailure(MINI, httpError(400), clock.now());
        health.recordFailure(MINI, httpError(413), clock.now());
        health.recordFailure(MINI, aborted(), clock.now());
      }
      assert.equal(health.circuit(MINI, clock.now()), 'closed');
      assert.equal(health.errorRate(MINI, clock.now()), 0);

      health.recordFailure(MINI, httpError(500), clock.now());
      clock.advance(1_000);
      assert.equal(health.admit(MINI, clock.now()).available, true);
      health.recordFailure(MINI, httpError(400), clock.now());
      assert.equal(health.circuit(MINI, clock.now()), 'half-open', 'a bad request says nothing either way');
      assert.deepEqual(health.admit(MINI, clock.now()), { available: true, probe: true }, 'the slot is free again');
      health.release(MINI, clock.now());
      assert.deepEqual(health.admit(MINI, clock.now()), { available: true, probe: true });
    });

    it('disabled: every model stays available, measurements go on', () => {
      const clock = fakeClock();
      const health = createModelHealth({ enabled: false, failureThreshold: 1 }, clock.now);
      health.recordFailure(MINI, httpError(500), clock.now());
      health.recordFailure(MINI, httpError(429, 30_000), clock.now());
      assert.deepEqual(health.admit(MINI, clock.now()), { available: true, probe: false });
      assert.equal(health.isAvailable(FOUR_O, clock.now()), true);
      assert.equal(health.errorRate(MINI, clock.now()), 1);
    });
  });

  describe('provider back-off on 429 retry-after', () => {
    it('makes every model of the provider unavailable until then, and only that provider', () => {
      const clock = fakeClock();
      const health = createModelHealth({}, clock.now);
      health.recordFailure(MINI, httpError(429, 2_000), clock.now());
      const until = clock.now() + 2_000;
      assert.deepEqual(health.availability(MINI, clock.now()), { available: false, reason: 'provider_backoff', until });
      assert.deepEqual(health.admit(FOUR_O, clock.now()), { available: false, reason: 'provider_backoff', until });
      assert.equal(health.isAvailable(HAIKU, clock.now()), true);
      assert.equal(health.backoffUntil('openai', clock.now()), until);
      clock.advance(1_999);
      assert.equal(health.isAvailable(FOUR_O, clock.now()), false);
      clock.advance(1);
      assert.equal(health.isAvailable(FOUR_O, clock.now()), true);
      assert.equal(health.isAvailable(MINI, clock.now()), true);
      assert.equal(health.backoffUntil('openai', clock.now()), undefined);
    });

    it('is capped, and a later shorter retry-after does not shorten a running back-off', () => {
      const clock = fakeClock();
      const health = createModelHealth({ maxRetryAfterMs: 60_000 }, clock.now);
      health.recordFailure(MINI, httpError(429, 3_600_000), clock.now());
      assert.equal(health.backoffUntil('openai', clock.now()), clock.now() + 60_000);
      health.recordFailure(FOUR_O, httpError(429, 1_000), clock.now());
      assert.equal(health.backoffUntil('openai', clock.now()), clock.now() + 60_000);
    });

    it('a 429 without retry-after is an ordinary retryable failure', () => {
      const clock = fakeClock();
      const health = createModelHealth({ failureThreshold: 2 }, clock.now);
      health.recordFailure(MINI, httpError(429), clock.now());
      assert.equal(health.isAvailable(FOUR_O, clock.now()), true);
      assert.equal(health.backoffUntil('openai', clock.now()), undefined);
      health.recordFailure(MINI, httpError(429), clock.now());
      assert.equal(health.circuit(MINI, clock.now()), 'open');
    });

    it("an owner's own credentials back off apart from the server's", () => {
      const clock = fakeClock();
      const health = createModelHealth({}, clock.now);
      const ownMini = ownerScopedKey(MINI, 'usr_a');
      health.recordFailure(ownMini, httpError(429, 5_000), clock.now());
      assert.equal(health.isAvailable(ownerScopedKey(FOUR_O, 'usr_a'), clock.now()), false);
      assert.equal(health.isAvailable(ownerScopedKey(FOUR_O, 'usr_b'), clock.now()), true);
      assert.equal(health.isAvailable(FOUR_O, clock.now()), true);
      assert.equal(providerKeyOf(ownMini), 'openai|owner:usr_a');
      assert.equal(providerKeyOf('bedrock:amazon.nova-lite-v1:0'), 'bedrock');
    });
  });

  describe('per-provider window', () => {
    it('sums every model of the provider', () => {
      const clock = fakeClock();
      const health = createModelHealth({ failureThreshold: 100 }, clock.now);
      health.recordFailure(MINI, httpError(500), clock.now());
      health.recordSuccess(FOUR_O, { totalMs: 100, ttftMs: 100 }, clock.now());
      health.recordSuccess(FOUR_O, { totalMs: 300, ttftMs: 300 }, clock.now());
      health.recordSuccess(HAIKU, { totalMs: 100 }, clock.now());
      const openai = health.providerStats('openai', clock.now());
      assert.equal(openai.requests, 3);
      assert.equal(openai.failures, 1);
      assert.equal(openai.meanTtftMs, 200);
      assert.equal(health.providerStats('anthropic', clock.now()).errorRate, 0);
    });
  });

  describe('latency moving averages', () => {
    it('streams measure time to first token; throughput stays NaN until a complete answer', () => {
      const health = createModelHealth({ latencySmoothing: 0.5 });
      health.recordSuccess(MINI, { ttftMs: 400, totalMs: 400 }, 0);
      health.recordSuccess(MINI, { ttftMs: 200, totalMs: 200 }, 0);
      const estimate = health.latency(MINI);
      assert.equal(estimate?.ttftMs, 300);
      assert.ok(Number.isNaN(estimate?.tokensPerSecond));
      assert.equal(estimate?.samples, 2);
    });

    it('complete answers measure tokens per second, net of the known time to first token', () => {
      const health = createModelHealth({ latencySmoothing: 0.5 });
      health.recordSuccess(MINI, { ttftMs: 500, totalMs: 500 }, 0);
      // 100 tokens in 2500 ms, 500 of which were the wait for the first token: 50 tokens/s.
      health.recordSuccess(MINI, { totalMs: 2_500, completionTokens: 100 }, 0);
      assert.equal(health.latency(MINI)?.tokensPerSecond, 50);
      health.recordSuccess(MINI, { totalMs: 1_500, completionTokens: 100 }, 0);
      assert.equal(health.latency(MINI)?.tokensPerSecond, 75);
      assert.equal(health.latency(MINI)?.ttftMs, 500, 'a complete answer is no time-to-first-token sample');
    });

    it('without a known time to first token, throughput is counted over the whole call (a lower bound)', () => {
      const health = createModelHealth();
      health.recordSuccess(MINI, { totalMs: 2_000, completionTokens: 100 }, 0);
      const estimate = health.latency(MINI);
      assert.equal(estimate?.tokensPerSecond, 50);
      assert.ok(Number.isNaN(estimate?.ttftMs));
    });

    it('calls without tokens or duration leave throughput alone', () => {
      const health = createModelHealth();
      health.recordSuccess(MINI, { totalMs: 0, completionTokens: 10 }, 0);
      health.recordSuccess(MINI, { totalMs: 100, completionTokens: 0 }, 0);
      health.recordSuccess(MINI, { totalMs: 100 }, 0);
      assert.ok(Number.isNaN(health.latency(MINI)?.tokensPerSecond));
      assert.equal(health.latency(MINI)?.samples, 3);
    });
  });

  it('snapshot() reports every model at the clock time', () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 1, cooldownMs: 5_000 }, clock.now);
    health.recordFailure(MINI, httpError(429, 1_000), clock.now());
    health.recordSuccess(HAIKU, { ttftMs: 250, totalMs: 250 }, clock.now());
    const byKey = new Map(health.snapshot().map((entry) => [entry.key, entry]));
    assert.equal(byKey.get(MINI)?.circuit, 'open');
    assert.equal(byKey.get(MINI)?.openUntil, clock.now() + 5_000);
    assert.equal(byKey.get(MINI)?.backoffUntil, clock.now() + 1_000);
    assert.equal(byKey.get(HAIKU)?.circuit, 'closed');
    assert.equal(byKey.get(HAIKU)?.latency?.ttftMs, 250);
  });
});
