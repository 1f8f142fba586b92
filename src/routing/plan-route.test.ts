import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../lib/errors.js';
import { FIXTURE_IDS, T0, fakeHealth, fixtureCatalog, userRequest } from '../../test/support/routing-fixtures.js';
import { planRoute, routingMeta, type PlanRouteInput } from './plan-route.js';
import { costStrategy } from './strategies/cost-strategy.js';
import { createStrategyRegistry } from './strategies/strategy-registry.js';

const base: PlanRouteInput = {
  router: { strategy: 'cost_optimized', models: FIXTURE_IDS },
  request: userRequest('Hello'),
  catalog: fixtureCatalog,
  health: undefined,
  now: T0,
  random: () => 0.99,
};

function refusal(input: PlanRouteInput): GatewayError {
  try {
    planRoute(input);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('planRoute did not refuse');
}

describe('planRoute', () => {
  it('filters, then ranks with the router\'s strategy', () => {
    const plan = planRoute({ ...base, request: userRequest('Hello', { max_tokens: 10_000 }) });
    assert.equal(plan.strategy, 'cost_optimized');
    assert.deepEqual(plan.ranked.map((entry) => entry.candidate.model.id), ['acme:mid', 'green:mid', 'acme:big']);
    assert.deepEqual(plan.dropped.map((drop) => drop.model), ['acme:tiny']);
  });

  it('drops models whose provider has no credentials before ranking, and answers 503 when none is left', () => {
    const plan = planRoute({ ...base, isCallable: (provider) => provider !== 'acme' });
    assert.deepEqual(plan.ranked.map((entry) => entry.candidate.model.id), ['green:mid']);
    assert.ok(plan.dropped.some((drop) => drop.model === 'acme:mid' && drop.code === 'not_configured'));
    const error = refusal({ ...base, isCallable: () => false });
    assert.equal(error.status, 503);
    assert.match(error.message, /not configured/);
  });

  it('ranks a strategy name it does not know as balanced', () => {
    assert.equal(planRoute({ ...base, router: { strategy: 'cheapest_v2', models: FIXTURE_IDS } }).strategy, 'balanced');
  });

  it('applies the router\'s settings: the cost ceiling and the weights', () => {
    const plan = planRoute({ ...base, router: { strategy: 'balanced', models: FIXTURE_IDS, settings: { maxCostPerRequestUsd: 0.001, weights: { quality: 1 } } } });
    assert.deepEqual(plan.ranked.map((entry) => entry.candidate.model.id), ['acme:mid', 'green:mid', 'acme:tiny']);
  });

  it('takes strategies from the registry it is given (how auto\'s predictor plugs in)', () => {
    const registry = createStrategyRegistry({ auto: { ...costStrategy, name: 'auto' } });
    const plan = planRoute({ ...base, router: { strategy: 'auto', models: FIXTURE_IDS }, strategies: registry });
    assert.equal(plan.strategy, 'auto');
    assert.equal(plan.ranked[0]?.candidate.model.id, 'acme:tiny');
  });

  it('says why no model can take the request', () => {
    const tooBig = refusal({ ...base, router: { strategy: 'cost_optimized', models: ['acme:tiny'] }, request: userRequest('x', { max_tokens: 9_000 }) });
    assert.equal(tooBig.status, 400);
    assert.equal(tooBig.code, 'context_length_exceeded');
    assert.match(tooBig.message, /acme:tiny: context window 8000 < \d+ tokens needed/);

    const tools = refusal({ ...base, router: { strategy: 'cost_optimized', models: ['acme:tiny'] }, request: userRequest('x', { tools: [{ type: 'function', function: { name: 'f' } }] }) });
    assert.equal(tools.code, 'unsupported_request');

    const ceiling = refusal({ ...base, router: { strategy: 'cost_optimized', models: ['acme:big'], settings: { maxCostPerRequestUsd: 0.0001 } } });
    assert.equal(ceiling.code, 'unsupported_request');
    assert.match(ceiling.message, /ceiling/);

    const health = fakeHealth({ downUntil: new Map([['acme:mid', T0 + 5_000]]) });
    const down = refusal({ ...base, router: { strategy: 'cost_optimized', models: ['acme:tiny', 'acme:mid'] }, request: userRequest('x', { max_tokens: 9_000 }), health });
    assert.equal(down.status, 503);
    assert.equal(down.code, 'all_models_unavailable');
    assert.match(down.message, /acme:mid: circuit open after repeated failures, until 2026-01-01T00:00:05\.000Z/);
    assert.equal(down.headers['retry-after'], '5', 'when the first circuit lets a probe through');

    const unknown = refusal({ ...base, router: { strategy: 'cost_optimized', models: ['gone:model'] } });
    assert.equal(unknown.status, 503);
  });
});

describe('routingMeta', () => {
  it('lists every candidate with rank, score, reason and expectations, and every drop with its reason', () => {
    const meta = routingMeta(planRoute({ ...base, request: userRequest('Hello', { max_tokens: 10_000 }) }));
    assert.equal(meta.strategy, 'cost_optimized');
    assert.deepEqual(meta.candidates.map((candidate) => [candidate.model, candidate.rank]), [['acme:mid', 1], ['green:mid', 2], ['acme:big', 3]]);
    const first = meta.candidates[0];
    assert.ok(first !== undefined);
    assert.equal(first.score, first.expectedCostUsd);
    assert.match(first.reason, /^expected \$/);
    assert.ok(first.expectedLatencyMs > 0 && first.expectedCarbonGrams > 0);
    assert.equal('predictedQuality' in first, false);
    assert.deepEqual(meta.dropped, [{ model: 'acme:tiny', reason: meta.dropped[0]?.reason }]);
    assert.match(meta.dropped[0]?.reason ?? '', /^context window/);
    assert.doesNotThrow(() => JSON.stringify(meta));
  });
});
