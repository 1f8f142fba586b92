import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LatencyEstimate } from '../routing-contract.js';
import { FIXTURE_IDS, candidatesFor, fakeHealth, ids, strategyContext, userRequest } from '../../../test/support/routing-fixtures.js';
import { createLatencyStrategy, latencyStrategy } from './latency-strategy.js';

/** Random draws in order, then 0.99 (no exploration) forever. */
function draws(...values: number[]): () => number {
  let next = 0;
  return () => values[next++] ?? 0.99;
}

const measuredAll = (overrides: Record<string, LatencyEstimate> = {}) =>
  new Map<string, LatencyEstimate>([
    ['acme:tiny', { ttftMs: 120, tokensPerSecond: 200, samples: 10 }],
    ['acme:mid', { ttftMs: 300, tokensPerSecond: 90, samples: 10 }],
    ['acme:big', { ttftMs: 700, tokensPerSecond: 45, samples: 10 }],
    ['green:mid', { ttftMs: 450, tokensPerSecond: 70, samples: 10 }],
    ...Object.entries(overrides),
  ]);

describe('latency_optimized', () => {
  it('ranks unmeasured models by the catalog\'s typical TTFT and speed', () => {
    const ranked = latencyStrategy.rank(candidatesFor(FIXTURE_IDS), strategyContext());
    assert.deepEqual(ids(ranked), ['acme:tiny', 'acme:mid', 'green:mid', 'acme:big']);
    assert.equal(ranked[0]?.score, 120 + (256 / 200) * 1000);
    assert.equal(ranked[0]?.reason, 'expected 1.4 s: TTFT 120 ms + 256 tokens at 200 tok/s (catalog figures)');
  });

  it('prefers a model measured fast over the catalog\'s figures once measured', () => {
    const health = fakeHealth({ latency: measuredAll({ 'acme:big': { ttftMs: 40, tokensPerSecond: 2000, samples: 25 } }) });
    const ranked = latencyStrategy.rank(candidatesFor(FIXTURE_IDS, userRequest('Hello'), { health }), strategyContext());
    assert.equal(ids(ranked)[0], 'acme:big');
    assert.equal(ranked[0]?.reason, 'expected 168 ms: TTFT 40 ms + 256 tokens at 2000 tok/s (measured, 25 samples)');
  });

  it('warms up: a model with fewer than 3 samples goes first, the rest keep their order', () => {
    const health = fakeHealth({ latency: measuredAll({ 'acme:big': { ttftMs: 700, tokensPerSecond: 45, samples: 1 } }) });
    const ranked = latencyStrategy.rank(candidatesFor(FIXTURE_IDS, userRequest('Hello'), { health }), strategyContext());
    assert.deepEqual(ids(ranked), ['acme:big', 'acme:tiny', 'acme:mid', 'green:mid']);
    assert.match(ranked[0]?.reason ?? '', /^exploring: 1 sample < 3 needed; expected 6\.4 s/);
  });

  it('a new model (never measured) is warmed up before one measured twice', () => {
    const latency = measuredAll({ 'acme:mid': { ttftMs: 300, tokensPerSecond: 90, samples: 2 } });
    latency.delete('green:mid');
    const ranked = latencyStrategy.rank(candidatesFor(FIXTURE_IDS, userRequest('Hello'), { health: fakeHealth({ latency }) }), strategyContext());
    assert.equal(ids(ranked)[0], 'green:mid');
  });

  it('explores with probability 5% once warmed up, deterministically with the injected random', () => {
    const candidates = candidatesFor(FIXTURE_IDS, userRequest('Hello'), { health: fakeHealth({ latency: measuredAll() }) });
    const order = (random: () => number) => ids(latencyStrategy.rank(candidates, strategyContext({ random })));
    assert.deepEqual(order(draws(0.05)), ['acme:tiny', 'acme:mid', 'green:mid', 'acme:big']);
    // Under 5%: a uniformly drawn other model goes first (second draw 0.7 of 3 others → the third).
    assert.deepEqual(order(draws(0.049, 0.7)), ['acme:big', 'acme:tiny', 'acme:mid', 'green:mid']);
    assert.deepEqual(order(draws(0.01, 0)), ['acme:mid', 'acme:tiny', 'green:mid', 'acme:big']);
    const explored = latencyStrategy.rank(candidates, strategyContext({ random: draws(0.01, 0) }));
    assert.match(explored[0]?.reason ?? '', /^exploring: re-measuring \(ε = 0\.05\); /);
  });

  it('explores never with rate 0 and no warm-up', () => {
    const strict = createLatencyStrategy({ minSamples: 0, explorationRate: 0 });
    const candidates = candidatesFor(FIXTURE_IDS, userRequest('Hello'), { health: fakeHealth({ latency: new Map([['acme:big', { ttftMs: 700, tokensPerSecond: 45, samples: 1 }]]) }) });
    assert.deepEqual(ids(strict.rank(candidates, strategyContext({ random: () => 0 }))), ['acme:tiny', 'acme:mid', 'green:mid', 'acme:big']);
  });

  it('leaves a single candidate alone', () => {
    assert.deepEqual(ids(latencyStrategy.rank(candidatesFor(['acme:big']), strategyContext({ random: () => 0 }))), ['acme:big']);
  });
});
