import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRandom } from './folds.js';
import {
  averageImprovementInQuality,
  costToReach,
  hullQualityAt,
  lambdaSweep,
  nonDecreasingHull,
  quantileOfSorted,
  thresholdCurve,
  twoModelMetrics,
  type Table,
} from './metrics.js';

const close = (actual: number | undefined, expected: number, tolerance = 1e-9) =>
  assert.ok(actual !== undefined && Math.abs(actual - expected) <= tolerance, `${actual} is not ${expected} ± ${tolerance}`);

describe('two-model metrics (RouteLLM protocol)', () => {
  it('interpolates quantiles like numpy', () => {
    close(quantileOfSorted([1, 2, 3, 4], 0.5), 2.5);
    close(quantileOfSorted([1, 2, 3, 4], 0.1), 1.3);
    close(quantileOfSorted([7], 0.9), 7);
  });

  // Scores 0.1..0.4; thresholds at 0.1, 0.13, …, 0.37 (≥) and 0.4 (>), so the
  // shares are 1, 0.75 ×3, 0.5 ×3, 0.25 ×3 and 0. Weak right on the first two
  // prompts, strong on the last three: accuracies 0.75, 1, 1, 0.75, 0.5.
  const scores = [0.1, 0.2, 0.3, 0.4];
  const weak = [1, 1, 0, 0];
  const strong = [0, 1, 1, 1];

  it('computes the curve, APGR and CPT of a hand-worked example', () => {
    const curve = thresholdCurve(scores, weak, strong);
    assert.equal(curve.length, 11);
    assert.deepEqual(
      [...new Set(curve.map((point) => `${point.share}:${point.accuracy}`))],
      ['0:0.5', '0.25:0.75', '0.5:1', '0.75:1', '1:0.75'],
    );
    const metrics = twoModelMetrics(scores, weak, strong);
    // AUC = 0.15625 + 0.21875 + 0.25 + 0.21875 = 0.84375; (0.84375 − 0.5) / (0.75 − 0.5).
    close(metrics.apgr, 1.375);
    close(metrics.cpt50, 0.125); // target 0.625, between (0, 0.5) and (0.25, 0.75)
    close(metrics.cpt80, 0.2); // target 0.7
  });

  it('gives random scores about 0.5 and a perfect ranking about 1 − gap/2 when strong dominates', () => {
    const random = createRandom(11);
    const n = 20_000;
    const weakRight: number[] = [];
    const strongRight: number[] = [];
    for (let i = 0; i < n; i += 1) {
      const w = random() < 0.6 ? 1 : 0;
      weakRight.push(w);
      strongRight.push(w === 1 || random() < 0.5 ? 1 : 0);
    }
    const randomMetrics = twoModelMetrics(Array.from({ length: n }, () => random()), weakRight, strongRight);
    close(randomMetrics.apgr, 0.5, 0.03);
    const oracle = twoModelMetrics(
      strongRight.map((s, i) => s - (weakRight[i] ?? 0) + random() * 1e-6),
      weakRight,
      strongRight,
    );
    // Gap 0.2: the oracle curve rises to the strong accuracy at share 0.2 and stays, so AUC − weak = 0.2 − 0.02.
    close(oracle.apgr, 0.9, 0.02);
    close(oracle.cpt50, 0.1, 0.02);
    const reversed = twoModelMetrics(
      strongRight.map((s, i) => (weakRight[i] ?? 0) - s),
      weakRight,
      strongRight,
    );
    assert.ok(reversed.apgr < 0.5);
  });

  it('reads CPT at share 0 when the weak model already meets the target', () => {
    const metrics = twoModelMetrics([0.1, 0.2], [1, 1], [0, 1]);
    assert.equal(metrics.cpt50, 0);
    assert.equal(metrics.cpt80, 0);
  });
});

describe('cost-quality metrics (RouterBench protocol)', () => {
  const points = [
    { cost: 1, quality: 0.5 },
    { cost: 2, quality: 0.9 },
    { cost: 3, quality: 0.8 },
    { cost: 4, quality: 1 },
    { cost: 5, quality: 0.95 },
  ];

  it('keeps the non-decreasing concave hull', () => {
    assert.deepEqual(nonDecreasingHull(points), [points[0], points[1], points[3]]);
    close(hullQualityAt(nonDecreasingHull(points), 3), 0.95);
    close(hullQualityAt(nonDecreasingHull(points), 9), 1);
  });

  it('computes AIQ and the cost to reach a quality by hand', () => {
    const hull = nonDecreasingHull(points);
    // Over [1, 4]: (0.5 + 0.9) / 2 + 2 × (0.9 + 1) / 2 = 2.6, divided by 3.
    close(averageImprovementInQuality(hull, 1, 4), 2.6 / 3);
    // Flat after the last point: over [1, 5] the area grows by 1.
    close(averageImprovementInQuality(hull, 1, 5), 3.6 / 4);
    close(costToReach(hull, 0.95), 3);
    close(costToReach(hull, 0.4), 1);
    assert.equal(costToReach(hull, 1.01), undefined);
  });

  it('routes by argmax(predicted − λ·cost), the cheaper model on ties', () => {
    const table = (values: number[]): Table => ({ prompts: 2, models: 2, values: Float64Array.from(values) });
    const predicted = table([0.5, 0.9, 0.6, 0.6]);
    const cost = table([1, 3, 1, 3]);
    const actual = table([0, 1, 1, 1]);
    const [free, expensive, cheapest] = lambdaSweep(predicted, cost, actual, [0, 1, Infinity]);
    assert.deepEqual(free, { cost: 4, quality: 1 }); // prompt 1 → model 2; prompt 2 tie → cheaper model 1
    assert.deepEqual(expensive, { cost: 2, quality: 0.5 });
    assert.deepEqual(cheapest, { cost: 2, quality: 0.5 });
  });
});
