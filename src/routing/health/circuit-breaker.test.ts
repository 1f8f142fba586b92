import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CircuitBreaker, type BreakerOptions } from './circuit-breaker.js';
import type { WindowTotals } from './sliding-window.js';

const options: BreakerOptions = {
  failureThreshold: 3,
  errorRateThreshold: 0.5,
  minimumRequests: 10,
  cooldownMs: 1_000,
  maxCooldownMs: 5_000,
  probeLeaseMs: 30_000,
};

/** A window that would never trip the error-rate rule on its own. */
const quiet: WindowTotals = { requests: 1, failures: 1, ttftSumMs: 0, ttftSamples: 0 };

function openedAt(now: number, breaker = new CircuitBreaker(options)): CircuitBreaker {
  for (let index = 0; index < options.failureThreshold; index += 1) breaker.onFailure(now, quiet);
  assert.equal(breaker.state(now), 'open');
  return breaker;
}

describe('CircuitBreaker', () => {
  it('opens after the threshold of consecutive failures, not before', () => {
    const breaker = new CircuitBreaker(options);
    assert.equal(breaker.onFailure(0, quiet), false);
    assert.equal(breaker.onFailure(0, quiet), false);
    assert.equal(breaker.state(0), 'closed');
    assert.equal(breaker.onFailure(0, quiet), true);
    assert.equal(breaker.state(0), 'open');
    assert.deepEqual(breaker.availability(0), { available: false, reason: 'circuit_open', until: 1_000 });
  });

  it('a success in between resets the consecutive count', () => {
    const breaker = new CircuitBreaker(options);
    breaker.onFailure(0, quiet);
    breaker.onFailure(0, quiet);
    breaker.onSuccess(0);
    breaker.onFailure(0, quiet);
    breaker.onFailure(0, quiet);
    assert.equal(breaker.state(0), 'closed');
    assert.equal(breaker.consecutiveFailures, 2);
  });

  it('opens on the error rate once the window holds the minimum volume', () => {
    const breaker = new CircuitBreaker({ ...options, failureThreshold: 100 });
    assert.equal(breaker.onFailure(0, { requests: 9, failures: 9, ttftSumMs: 0, ttftSamples: 0 }), false, 'below the minimum volume');
    assert.equal(breaker.onFailure(0, { requests: 10, failures: 4, ttftSumMs: 0, ttftSamples: 0 }), false, 'below the rate');
    assert.equal(breaker.onFailure(0, { requests: 10, failures: 5, ttftSumMs: 0, ttftSamples: 0 }), true);
    assert.equal(breaker.state(0), 'open');
  });

  it('half-opens after the cool-down and lets exactly one probe through at a time', () => {
    const breaker = openedAt(0);
    assert.equal(breaker.admit(999).available, false);
    assert.equal(breaker.state(1_000), 'half-open');
    assert.deepEqual(breaker.availability(1_000), { available: true, probe: true }, 'a pure query claims nothing');
    assert.deepEqual(breaker.availability(1_000), { available: true, probe: true });
    assert.deepEqual(breaker.admit(1_000), { available: true, probe: true });
    assert.deepEqual(breaker.admit(1_001), { available: false, reason: 'probe_in_flight', until: 1_001 });
    assert.equal(breaker.availability(1_001).available, false);
  });

  it('a successful probe closes the circuit and resets the cool-down', () => {
    const breaker = openedAt(0);
    breaker.admit(1_000);
    assert.equal(breaker.onSuccess(1_200), true);
    assert.equal(breaker.state(1_200), 'closed');
    assert.deepEqual(breaker.admit(1_200), { available: true, probe: false });
    openedAt(2_000, breaker);
    assert.deepEqual(breaker.availability(2_000), { available: false, reason: 'circuit_open', until: 3_000 }, 'back to the first cool-down');
  });

  it('a failed probe re-opens it for twice as long, up to the cap', () => {
    const breaker = openedAt(0);
    const untils: number[] = [];
    let now = 1_000;
    for (let round = 0; round < 5; round += 1) {
      assert.deepEqual(breaker.admit(now), { available: true, probe: true });
      assert.equal(breaker.onFailure(now, quiet), true);
      const availability = breaker.availability(now);
      assert.ok(!availability.available);
      untils.push(availability.until - now);
      now = availability.until;
    }
    assert.deepEqual(untils, [2_000, 4_000, 5_000, 5_000, 5_000]);
  });

  it('a released probe frees the slot for the next caller', () => {
    const breaker = openedAt(0);
    breaker.admit(1_000);
    breaker.release();
    assert.deepEqual(breaker.admit(1_000), { available: true, probe: true });
  });

  it('a probe that never reports stops blocking after its lease', () => {
    const breaker = openedAt(0);
    breaker.admit(1_000);
    assert.equal(breaker.admit(30_999).available, false);
    assert.deepEqual(breaker.admit(31_000), { available: true, probe: true });
  });

  it('results arriving while open change nothing', () => {
    const breaker = openedAt(0);
    assert.equal(breaker.onSuccess(500), false);
    assert.equal(breaker.onFailure(500, quiet), false);
    assert.deepEqual(breaker.availability(500), { available: false, reason: 'circuit_open', until: 1_000 });
  });
});
