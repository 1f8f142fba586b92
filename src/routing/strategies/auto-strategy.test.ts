import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_IDS, candidatesFor, ids, strategyContext } from '../../../test/support/routing-fixtures.js';
import { autoStrategy } from './auto-strategy.js';
import { balancedStrategy } from './balanced-strategy.js';

describe('auto (waiting for its predictor)', () => {
  it('ranks as balanced with the router\'s weights, says so, and predicts nothing yet', () => {
    const context = strategyContext({ settings: { weights: { cost: 2, quality: 1 } } });
    const auto = autoStrategy.rank(candidatesFor(FIXTURE_IDS), context);
    assert.equal(autoStrategy.name, 'auto');
    assert.deepEqual(ids(auto), ids(balancedStrategy.rank(candidatesFor(FIXTURE_IDS), context)));
    for (const entry of auto) {
      assert.match(entry.reason, /auto ranks as balanced until its predictor is wired in/);
      assert.equal(entry.predictedQuality, undefined);
    }
  });
});
