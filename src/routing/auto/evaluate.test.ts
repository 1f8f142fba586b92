import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PricedModel, RoutingDataset } from './dataset.js';
import { evaluateRouting, MEAN_ACCURACY_ROUTER, meanAccuracyRouter } from './evaluate.js';

const close = (actual: number | undefined, expected: number, tolerance = 1e-9) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected} ± ${tolerance}`);

const MODELS: PricedModel[] = [
  { name: 'cheap', inputPrice: 0.1, outputPrice: 0.1 },
  { name: 'middle', inputPrice: 1, outputPrice: 1 },
  { name: 'dear', inputPrice: 10, outputPrice: 30 },
];

// Same-length prompts, so every prompt costs the same per model.
const prompts = ['q1 ????', 'q2 ????', 'q3 ????', 'q4 ????'];
const data: RoutingDataset = {
  prompts,
  subjects: prompts.map(() => undefined),
  scores: new Map([
    ['cheap', Float64Array.from([1, 0, 0, 0])],
    ['middle', Float64Array.from([1, 1, 0, 0])],
    ['dear', Float64Array.from([1, 1, 1, 1])],
  ]),
};

describe('the mean-accuracy router', () => {
  it("predicts each model's mean calibration score for every prompt, and the fallback for a model it has no labels for", () => {
    const calibration = { scores: new Map([['cheap', Float64Array.from([1, 1, 0, 1])], ['dear', Float64Array.from([0, 1])]]) };
    const router = meanAccuracyRouter(3, MODELS, calibration, (name) => (name === 'middle' ? 0.4 : NaN));
    assert.equal(router.name, MEAN_ACCURACY_ROUTER);
    assert.deepEqual(Array.from(router.table.values), [0.75, 0.4, 0.5, 0.75, 0.4, 0.5, 0.75, 0.4, 0.5]);
  });

  it('routes every prompt alike: its curve is the single models it picks as λ grows', () => {
    // Calibration says the middle model is as good as the dear one: the router never pays for the dear model.
    const calibration = { scores: new Map([['cheap', Float64Array.from([0])], ['middle', Float64Array.from([1])], ['dear', Float64Array.from([1])]]) };
    const router = meanAccuracyRouter(prompts.length, MODELS, calibration, () => NaN);
    const report = evaluateRouting(data, MODELS, router.table, { routers: [router] });
    assert.deepEqual(
      report.routers.map((entry) => entry.name),
      ['auto', MEAN_ACCURACY_ROUTER, 'random', 'prompt-length', 'always-cheapest', 'always-best', 'oracle'],
    );
    const scored = report.routers.find((entry) => entry.name === MEAN_ACCURACY_ROUTER);
    const cost = (name: string) => report.models.find((entry) => entry.name === name)?.cost ?? NaN;
    // Hull: (cheap, 0.25) → (middle, 0.5), then flat at 0.5 up to the dear model's cost.
    const low = cost('cheap');
    const middle = cost('middle');
    const high = cost('dear');
    const expected = ((middle - low) * (0.25 + 0.5)) / 2 + (high - middle) * 0.5;
    close(scored?.aiq, expected / (high - low));
    assert.equal(scored?.costTo95, undefined, 'never reaches 95 % of the dear model, which it never picks');
    const oracle = report.routers.find((entry) => entry.name === 'oracle');
    assert.ok(oracle !== undefined && scored !== undefined && oracle.aiq > scored.aiq);
  });
});
