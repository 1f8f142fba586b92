import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_IDS, candidatesFor, ids, strategyContext } from '../../../test/support/routing-fixtures.js';
import { EQUAL_WEIGHTS, balancedStrategy, blendScores, normalisedWeights } from './balanced-strategy.js';

describe('balanced', () => {
  it('normalises the router\'s weights; left-out criteria weigh 0; none set means equal', () => {
    assert.deepEqual(normalisedWeights({}), EQUAL_WEIGHTS);
    assert.deepEqual(normalisedWeights({ weights: { cost: 3, quality: 1 } }), { cost: 0.75, latency: 0, quality: 0.25, carbon: 0 });
    assert.deepEqual(normalisedWeights({ weights: {} }), EQUAL_WEIGHTS);
  });

  it('min-max normalises each criterion to 0..1 (1 best) and blends them', () => {
    const candidates = candidatesFor(FIXTURE_IDS);
    const blends = blendScores(candidates, EQUAL_WEIGHTS);
    // tiny is the cheapest and the fastest: 1 on both; big the strongest: quality 1; green the cleanest: carbon 1.
    assert.equal(blends[0]?.cost, 1);
    assert.equal(blends[0]?.latency, 1);
    assert.equal(blends[2]?.quality, 1);
    assert.equal(blends[3]?.carbon, 1);
    assert.equal(blends[2]?.cost, 0);
    for (const blend of blends) {
      assert.ok(blend.score >= 0 && blend.score <= 1);
      assert.ok(Math.abs(blend.score - (blend.cost + blend.latency + blend.quality + blend.carbon) / 4) < 1e-12);
    }
  });

  it('ranks by the blend, highest first; the weights change the winner', () => {
    const candidates = candidatesFor(FIXTURE_IDS);
    // Equal weights: mid (0.92, 0.65, 0.54, 0.93) ≈ 0.761 > tiny (1, 1, 0, 1.00) ≈ 0.749 > green ≈ 0.715 > big (0, 0, 1, 0) = 0.25.
    const equal = balancedStrategy.rank(candidates, strategyContext());
    assert.deepEqual(ids(equal), ['acme:mid', 'acme:tiny', 'green:mid', 'acme:big']);
    assert.equal(equal[3]?.score, 0.25);
    const qualityHeavy = balancedStrategy.rank(candidates, strategyContext({ settings: { weights: { quality: 0.9, cost: 0.1 } } }));
    assert.equal(ids(qualityHeavy)[0], 'acme:big');
    const carbonOnly = balancedStrategy.rank(candidates, strategyContext({ settings: { weights: { carbon: 1 } } }));
    assert.equal(ids(carbonOnly)[0], 'green:mid');
    assert.match(carbonOnly[0]?.reason ?? '', /^blend 1\.000 \(carbon 1\.00×1\)$/);
  });

  it('a criterion on which every candidate is equal cannot tell them apart', () => {
    const blends = blendScores(candidatesFor(['acme:mid']), EQUAL_WEIGHTS);
    assert.deepEqual(blends, [{ score: 1, cost: 1, latency: 1, quality: 1, carbon: 1 }]);
  });
});
