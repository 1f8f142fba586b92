import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { loadShippedCatalog, type ModelInfo } from './catalog.js';
import { STRATEGY_NAMES, filterEligible, rankCandidates, type RoutingContext } from './strategies.js';

const catalog = loadShippedCatalog();
const get = (id: string): ModelInfo => {
  const model = catalog.get(id);
  if (model === undefined) throw new Error(`missing ${id}`);
  return model;
};
const context: RoutingContext = { promptTokens: 200, maxTokens: 300, needsTools: false, needsVision: false };

describe('simple strategies', () => {
  const models = [get('sim:large'), get('sim:small'), get('sim:medium')];
  const order = (strategy: (typeof STRATEGY_NAMES)[number]) => rankCandidates(strategy, models, context).map((c) => c.model.id);

  it('cost_optimized puts the cheapest first', () => {
    assert.deepEqual(order('cost_optimized'), ['sim:small', 'sim:medium', 'sim:large']);
  });
  it('quality_optimized puts the strongest first', () => {
    assert.deepEqual(order('quality_optimized'), ['sim:large', 'sim:medium', 'sim:small']);
  });
  it('latency_optimized puts the fastest first', () => {
    assert.equal(order('latency_optimized')[0], 'sim:small');
  });
  it('carbon_optimized puts the smallest model first', () => {
    assert.deepEqual(order('carbon_optimized'), ['sim:small', 'sim:medium', 'sim:large']);
  });

  it('drops models whose context window is too small, with the reason', () => {
    const { eligible, dropped } = filterEligible(models, { ...context, promptTokens: 150_000 });
    assert.deepEqual(eligible.map((m) => m.id), ['sim:large']);
    assert.equal(dropped.length, 2);
    assert.match(dropped[0]?.reason ?? '', /context window/);
  });

  it('every strategy ranks exactly the eligible models (property)', () => {
    const all = catalog.list();
    fc.assert(
      fc.property(
        fc.subarray([...all], { minLength: 1 }),
        fc.constantFrom(...STRATEGY_NAMES),
        fc.integer({ min: 1, max: 300_000 }),
        fc.option(fc.integer({ min: 1, max: 50_000 }), { nil: undefined }),
        (subset, strategy, promptTokens, maxTokens) => {
          const ctx = { promptTokens, maxTokens, needsTools: false, needsVision: false };
          const { eligible } = filterEligible(subset, ctx);
          for (const model of eligible) assert.ok(promptTokens + (maxTokens ?? 0) <= model.contextWindow);
          const ranked = rankCandidates(strategy, eligible, ctx).map((c) => c.model.id);
          assert.deepEqual([...ranked].sort(), eligible.map((m) => m.id).sort());
        },
      ),
      { numRuns: 300 },
    );
  });
});
