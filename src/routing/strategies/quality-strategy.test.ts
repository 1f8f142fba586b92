import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createModelCatalog } from '../../catalog/catalog.js';
import { FIXTURE_IDS, candidatesFor, fixtureModel, ids, strategyContext, userRequest } from '../../../test/support/routing-fixtures.js';
import { qualityStrategy } from './quality-strategy.js';

describe('quality_optimized', () => {
  it('puts the strongest model first, whatever it costs', () => {
    const ranked = qualityStrategy.rank(candidatesFor(FIXTURE_IDS), strategyContext());
    assert.deepEqual(ids(ranked), ['acme:big', 'acme:mid', 'green:mid', 'acme:tiny']);
    assert.equal(ranked[0]?.score, 1390);
    assert.equal(ranked[0]?.reason, 'quality 1390 (LMArena-style rating)');
  });

  it('keeps the owner\'s order between equal ratings', () => {
    const twin = { ...fixtureModel('acme:big'), id: 'acme:big-twin' };
    const catalog = createModelCatalog([fixtureModel('acme:big'), twin]);
    const ranked = qualityStrategy.rank(candidatesFor(['acme:big-twin', 'acme:big'], userRequest('Hi'), { catalog }), strategyContext());
    assert.deepEqual(ids(ranked), ['acme:big-twin', 'acme:big']);
  });
});
