import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_IDS, T0, candidatesFor, fixtureCatalog, fixtureModel, ids, strategyContext, userRequest } from '../../../test/support/routing-fixtures.js';
import type { RouterFit, RouterSettings } from '../routing-contract.js';
import { createAutoPredictor } from '../auto/auto-predictor.js';
import { createRandom } from '../auto/folds.js';
import { createPromptVectorizer, decodePromptVector, PROMPT_VECTOR_LENGTH, PROMPT_VECTOR_VERSION } from '../auto/prompt-vector.js';
import { fitRouter, type RouterLabel } from '../auto/router-fit.js';
import { loadShippedAutoModel } from '../auto/shipped-model.js';
import { planRoute, routingMeta } from '../plan-route.js';
import { createAutoStrategy, DEFAULT_EXPLORATION, gaussian } from './auto-strategy.js';
import { createStrategyRegistry } from './strategy-registry.js';

const EASY = 'What is the capital of France?\nA. Paris\nB. London\nC. Berlin\nD. Madrid\nAnswer:';
const shipped = loadShippedAutoModel();
const predictor = createAutoPredictor(shipped);
const auto = createAutoStrategy(() => predictor);
const strategies = createStrategyRegistry({ auto });

/** Random draws in order, then 0.99 forever. */
function draws(...values: number[]): () => number {
  let index = 0;
  return () => values[index++] ?? 0.99;
}
/** Uniform pairs Box–Muller turns into ≈ −7.4, +7.4 and 0 standard deviations. */
const FAR_BELOW = [1 - 1e-12, 0.5];
const FAR_ABOVE = [1 - 1e-12, 0];
const NO_NOISE = [0, 0];

function rank(text: string, settings: RouterSettings, random: () => number) {
  const request = userRequest(text);
  return auto.rank(candidatesFor(FIXTURE_IDS, request), strategyContext({ request, settings, random, notes: {} }));
}

function plan(text: string, settings: RouterSettings, random: () => number, strategy = 'auto') {
  return planRoute({ router: { strategy, models: FIXTURE_IDS, settings }, request: userRequest(text), catalog: fixtureCatalog, health: undefined, now: T0, random, strategies });
}

/** A fit that adds `shift` to a model's log-odds on every prompt. */
function shiftFit(shifts: Record<string, number>, uncertainty = 0.05): RouterFit {
  const models = Object.fromEntries(
    Object.entries(shifts).map(([id, shift]) => {
      const weights = new Array<number>(PROMPT_VECTOR_LENGTH).fill(0);
      weights[0] = shift;
      return [id, { weights, labels: 100, uncertainty }];
    }),
  );
  return { version: 1, vectorVersion: PROMPT_VECTOR_VERSION, fittedAt: '2026-01-01T00:00:00.000Z', labels: 100, models };
}

describe('auto strategy: router fit and exploration', () => {
  const greedy = ids(rank(EASY, { exploration: 0 }, () => {
    throw new Error('no draw without exploration');
  }));

  it('draws standard normal noise (Box–Muller)', () => {
    const random = createRandom(11);
    const samples = Array.from({ length: 20_000 }, () => gaussian(random));
    const mean = samples.reduce((sum, value) => sum + value, 0) / samples.length;
    const variance = samples.reduce((sum, value) => sum + (value - mean) ** 2, 0) / samples.length;
    assert.ok(Math.abs(mean) < 0.03 && Math.abs(variance - 1) < 0.05, `mean ${mean}, variance ${variance}`);
    assert.ok(Number.isFinite(gaussian(() => 0)));
  });

  it('explores the default share of decisions once the router learns from labels, and none before', () => {
    assert.equal(DEFAULT_EXPLORATION, 0.05);
    assert.equal(greedy[0], 'acme:tiny');
    const learning: RouterSettings = { autoFit: { version: 1, vectorVersion: PROMPT_VECTOR_VERSION, fittedAt: '2026-01-01T00:00:00.000Z', labels: 0, models: {} } };
    assert.match(rank(EASY, learning, draws(0.05))[0]?.reason ?? '', /^predicted /);
    assert.match(rank(EASY, learning, draws(0.049, ...NO_NOISE, ...NO_NOISE, ...NO_NOISE, ...NO_NOISE))[0]?.reason ?? '', /^sampled /);
    assert.match(rank(EASY, {}, draws(0, ...NO_NOISE, ...NO_NOISE, ...NO_NOISE, ...NO_NOISE))[0]?.reason ?? '', /^predicted /);
  });

  it('ranks by a Thompson sample when exploring, and says when that changed the first choice', () => {
    // The cheap model's sample falls far below the target: another model goes first.
    const down = plan(EASY, { exploration: 1 }, draws(0, ...FAR_BELOW, ...NO_NOISE, ...NO_NOISE, ...NO_NOISE));
    assert.notEqual(down.ranked[0]?.candidate.model.id, 'acme:tiny');
    assert.equal(down.auto?.explored, true);
    assert.equal(routingMeta(down).explored, true);
    assert.match(down.ranked[0]?.reason ?? '', /^sampled /);
    // predictedQuality stays the prediction; score is what was ranked by.
    const tiny = down.ranked.find((entry) => entry.candidate.model.id === 'acme:tiny');
    assert.ok(tiny !== undefined && (tiny.predictedQuality ?? 0) >= 0.8 && tiny.score < 0.8);

    const up = plan(EASY, { exploration: 1 }, draws(0, ...FAR_ABOVE, ...NO_NOISE, ...NO_NOISE, ...NO_NOISE));
    assert.equal(up.ranked[0]?.candidate.model.id, 'acme:tiny');
    assert.equal(up.auto?.explored, false);
  });

  it('samples within each model\'s uncertainty: a sure fit keeps the greedy choice under the same draw', () => {
    const sure = shiftFit({ 'acme:tiny': 0, 'acme:mid': 0, 'acme:big': 0, 'green:mid': 0 }, 0.01);
    const ranked = rank(EASY, { exploration: 1, autoFit: sure }, draws(0, ...FAR_BELOW, ...NO_NOISE, ...NO_NOISE, ...NO_NOISE));
    assert.equal(ids(ranked)[0], 'acme:tiny');
  });

  it('adds the router\'s fit to the prior, ignores a fit for another vector layout, and honours autoAbilities without one', () => {
    const noExploration = () => 0.99;
    assert.notEqual(ids(rank(EASY, { exploration: 0, autoFit: shiftFit({ 'acme:tiny': -10 }) }, noExploration))[0], 'acme:tiny');
    const stale = { ...shiftFit({ 'acme:tiny': -10 }), vectorVersion: PROMPT_VECTOR_VERSION + 1 };
    assert.deepEqual(ids(rank(EASY, { exploration: 0, autoFit: stale }, noExploration)), greedy);
    const weakTiny = { 'acme:tiny': { position: -1.5, offset: -3, examples: 50 } };
    assert.notEqual(ids(rank(EASY, { exploration: 0, autoAbilities: weakTiny }, noExploration))[0], 'acme:tiny');
    // The fit wins over autoAbilities for the models it covers.
    assert.equal(ids(rank(EASY, { exploration: 0, autoAbilities: weakTiny, autoFit: shiftFit({ 'acme:tiny': 0 }) }, noExploration))[0], 'acme:tiny');
  });

  it('reports the prompt vector and the strongest candidate in the plan, for auto only', () => {
    const auto = plan(EASY, { exploration: 0 }, () => 0.99);
    assert.ok(auto.auto !== undefined);
    assert.deepEqual(decodePromptVector(auto.auto.promptVector), createPromptVectorizer(shipped)(EASY));
    const strongest = auto.ranked.reduce((best, entry) => ((entry.predictedQuality ?? 0) > (best.predictedQuality ?? 0) ? entry : best));
    assert.equal(auto.auto.strongestModel, strongest.candidate.model.id);
    assert.equal(auto.auto.explored, false);
    assert.equal(routingMeta(auto).explored, false);

    const cost = plan(EASY, {}, () => 0.99, 'cost_optimized');
    assert.equal(cost.auto, undefined);
    assert.equal('explored' in routingMeta(cost), false);
  });

  it('learns from labels on its own vectors: the cheap model that fails code prompts stops getting them', () => {
    const vectorize = createPromptVectorizer(shipped);
    const code = (i: number) => `function scale${i}(values) {\n  return values.map((v) => v * ${i + 2});\n}\nWhat does scale${i}([1, 2]) return?`;
    const trivia = (i: number) => `Which city is the capital of country number ${i + 1} in the list?\nA. Paris\nB. Rome\nC. Madrid\nD. Berlin\nAnswer:`;
    const labels: RouterLabel[] = [];
    for (let i = 0; i < 30; i += 1) {
      labels.push({ vector: vectorize(code(i)), model: 'acme:tiny', score: 0 });
      labels.push({ vector: vectorize(trivia(i)), model: 'acme:tiny', score: 1 });
    }
    const fit = fitRouter({ labels, priorAbility: (id) => predictor.abilityOf(fixtureModel(id)) });
    // A target every model meets on both kinds before the fit: the cheapest gets everything.
    const settings: RouterSettings = { exploration: 0, qualityTarget: 0.3, autoFit: fit };
    assert.equal(ids(rank(code(100), { exploration: 0, qualityTarget: 0.3 }, () => 0.99))[0], 'acme:tiny', 'before the fit the cheap model gets code');
    assert.notEqual(ids(rank(code(100), settings, () => 0.99))[0], 'acme:tiny');
    assert.equal(ids(rank(trivia(100), settings, () => 0.99))[0], 'acme:tiny');
  });
});
