import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_IDS, candidatesFor, ids, strategyContext } from '../../../test/support/routing-fixtures.js';
import { carbonStrategy } from './carbon-strategy.js';

describe('carbon_optimized', () => {
  it('puts the lowest expected grams of CO2e first: a clean grid beats a small model on a dirty one', () => {
    const ranked = carbonStrategy.rank(candidatesFor(FIXTURE_IDS), strategyContext());
    assert.deepEqual(ids(ranked), ['green:mid', 'acme:tiny', 'acme:mid', 'acme:big']);
    for (const entry of ranked) assert.equal(entry.score, entry.candidate.expectedCarbonGrams);
    assert.match(ranked[0]?.reason ?? "", /^expected [\d.]+ g CO2e \(70B active parameters, 33 g\/kWh with PUE\)$/);
  });
});
