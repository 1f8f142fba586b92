import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRandom } from './folds.js';
import { META_NAMES } from './features.js';
import { logistic, logitOf, type ModelAbility } from './model.js';
import { PROMPT_VECTOR_LENGTH, PROMPT_VECTOR_VERSION, SKETCH_DIMS, traitsOfVector, VECTOR_INDEX } from './prompt-vector.js';
import { fitRouter, fitRouterInSlices, fittedModelOf, logitWithFit, predictWithFit, type FitRouterInput, type RouterLabel } from './router-fit.js';

const CODE = VECTOR_INDEX.meta + META_NAMES.indexOf('code-braces');
const PRIOR: ModelAbility = { position: 0.5, offset: 0 };
const FIXED_TIME = () => new Date(Date.UTC(2026, 0, 1));

/** A plausible prompt vector: anchors' log-odds, a few binary meta features, a random unit sketch. */
function randomVector(random: () => number, code: boolean): Float32Array {
  const vector = new Float32Array(PROMPT_VECTOR_LENGTH);
  vector[VECTOR_INDEX.bias] = 1;
  vector[VECTOR_INDEX.weakLogit] = 0.3 + random();
  vector[VECTOR_INDEX.gap] = random() * 0.8;
  vector[VECTOR_INDEX.familiarity] = 0.4 + 0.3 * random();
  for (let j = VECTOR_INDEX.meta; j < VECTOR_INDEX.sketch; j += 1) vector[j] = random() < 0.15 ? 1 : 0;
  vector[CODE] = code ? 1 : 0;
  let norm = 0;
  for (let j = VECTOR_INDEX.sketch; j < PROMPT_VECTOR_LENGTH; j += 1) {
    vector[j] = random() - 0.5;
    norm += (vector[j] ?? 0) ** 2;
  }
  for (let j = VECTOR_INDEX.sketch; j < PROMPT_VECTOR_LENGTH; j += 1) vector[j] = (vector[j] ?? 0) / Math.sqrt(norm);
  return vector;
}

/** Labels where model `cheap` fails code prompts (right 10 % of the time) and gets 85 % of the rest; `strong` gets 90 % of everything. */
function plantedLabels(count: number, seed: number, onePerPrompt: boolean): RouterLabel[] {
  const random = createRandom(seed);
  const labels: RouterLabel[] = [];
  for (let i = 0; i < count; i += 1) {
    const code = random() < 0.3;
    const vector = randomVector(random, code);
    const cheap = { vector, model: 'cheap', score: random() < (code ? 0.1 : 0.85) ? 1 : 0 };
    const strong = { vector, model: 'strong', score: random() < 0.9 ? 1 : 0 };
    if (!onePerPrompt) labels.push(cheap, strong);
    else labels.push(random() < 0.5 ? cheap : strong);
  }
  return labels;
}

/** The fitted model's P(right) as a function of the vector: fitted once. */
function predictorOf(fitInput: FitRouterInput, model: string): (vector: Float32Array) => number {
  const fitted = fittedModelOf(fitRouter(fitInput), model);
  return (vector) => logistic(logitWithFit(PRIOR, vector, fitted));
}

function meanLogLoss(labels: readonly RouterLabel[], predict: (label: RouterLabel) => number): number {
  let sum = 0;
  for (const label of labels) {
    const p = Math.min(1 - 1e-9, Math.max(1e-9, predict(label)));
    sum -= label.score * Math.log(p) + (1 - label.score) * Math.log(1 - p);
  }
  return sum / labels.length;
}

describe('router fit', () => {
  it('learns a planted rule: the cheap model fails code prompts, from calibration and from feedback labels', () => {
    const probe = createRandom(99);
    const codeProbe = Array.from({ length: 50 }, () => randomVector(probe, true));
    const textProbe = Array.from({ length: 50 }, () => randomVector(probe, false));
    for (const onePerPrompt of [false, true]) {
      const fit = fitRouter({ labels: plantedLabels(600, 1, onePerPrompt), priorAbility: () => PRIOR, options: { now: FIXED_TIME } });
      const mean = (vectors: Float32Array[], model: string) =>
        vectors.reduce((sum, vector) => sum + logistic(logitWithFit(PRIOR, vector, fit.models[model])), 0) / vectors.length;
      assert.ok(mean(codeProbe, 'cheap') < 0.3, `cheap on code ${mean(codeProbe, 'cheap')}`);
      assert.ok(mean(textProbe, 'cheap') > 0.7, `cheap on text ${mean(textProbe, 'cheap')}`);
      assert.ok(Math.abs(mean(codeProbe, 'strong') - mean(textProbe, 'strong')) < 0.1, 'strong does not depend on the code flag');
      assert.ok(Math.abs(mean(textProbe, 'strong') - 0.9) < 0.07, `strong ${mean(textProbe, 'strong')}`);
    }
  });

  it('equals the prior with no labels', () => {
    const fit = fitRouter({ labels: [], priorAbility: () => PRIOR, options: { now: FIXED_TIME } });
    assert.deepEqual(fit, { version: 1, vectorVersion: PROMPT_VECTOR_VERSION, fittedAt: '2026-01-01T00:00:00.000Z', labels: 0, models: {} });
    const random = createRandom(5);
    const vectors = Array.from({ length: 20 }, () => randomVector(random, random() < 0.5));
    const models = [{ name: 'a', ability: PRIOR }, { name: 'b', ability: { position: 1.4, offset: -0.2 } }];
    const withFit = predictWithFit(vectors, models, fit);
    assert.deepEqual(withFit, predictWithFit(vectors, models));
    vectors.forEach((vector, p) => {
      models.forEach((model, m) => {
        assert.ok(Math.abs((withFit.values[p * 2 + m] ?? 0) - logistic(logitOf(model.ability, traitsOfVector(vector)))) < 1e-12);
      });
    });
  });

  it('gives a model with fewer than five labels only an intercept shift, toward its scores', () => {
    const random = createRandom(8);
    const labels = Array.from({ length: 4 }, () => ({ vector: randomVector(random, true), model: 'a', score: 0 }));
    const fitted = fitRouter({ labels, priorAbility: () => PRIOR }).models.a;
    assert.ok(fitted !== undefined);
    assert.equal(fitted.labels, 4);
    assert.ok((fitted.weights[0] ?? 0) < -0.5, `intercept ${fitted.weights[0]}`);
    assert.ok(fitted.weights.slice(1).every((w) => w === 0));
    assert.equal(fitted.weights.length, PROMPT_VECTOR_LENGTH);
  });

  it('with 50 labels is never worse held out than intercept only, and with 400 informative ones clearly better', () => {
    const heldOut = plantedLabels(3000, 1234, true).filter((label) => label.model === 'cheap');
    const intercept = { penalties: [Number.POSITIVE_INFINITY] };
    for (let seed = 1; seed <= 6; seed += 1) {
      // Noise: the cheap model's scores ignore the prompt.
      const random = createRandom(seed * 31);
      const noisy = Array.from({ length: 50 }, () => ({ vector: randomVector(random, random() < 0.3), model: 'cheap', score: random() < 0.7 ? 1 : 0 }));
      const noiseHeldOut = Array.from({ length: 2000 }, () => ({ vector: randomVector(random, random() < 0.3), model: 'cheap', score: random() < 0.7 ? 1 : 0 }));
      const cvFit = predictorOf({ labels: noisy, priorAbility: () => PRIOR }, 'cheap');
      const onlyFit = predictorOf({ labels: noisy, priorAbility: () => PRIOR, options: intercept }, 'cheap');
      const cv = meanLogLoss(noiseHeldOut, (label) => cvFit(label.vector));
      const only = meanLogLoss(noiseHeldOut, (label) => onlyFit(label.vector));
      assert.ok(cv <= only + 0.01, `seed ${seed}, noise: ${cv} vs intercept only ${only}`);

      const few = plantedLabels(100, seed, true).filter((label) => label.model === 'cheap').slice(0, 50);
      const fewFit = fitRouter({ labels: few, priorAbility: () => PRIOR });
      const fewOnly = fitRouter({ labels: few, priorAbility: () => PRIOR, options: intercept });
      const fewLoss = meanLogLoss(heldOut, (label) => logistic(logitWithFit(PRIOR, label.vector, fewFit.models.cheap)));
      const fewOnlyLoss = meanLogLoss(heldOut, (label) => logistic(logitWithFit(PRIOR, label.vector, fewOnly.models.cheap)));
      assert.ok(fewLoss <= fewOnlyLoss + 0.01, `seed ${seed}, 50 planted: ${fewLoss} vs intercept only ${fewOnlyLoss}`);
    }
    const many = plantedLabels(800, 77, true).filter((label) => label.model === 'cheap').slice(0, 400);
    const manyFit = predictorOf({ labels: many, priorAbility: () => PRIOR }, 'cheap');
    const manyOnlyFit = predictorOf({ labels: many, priorAbility: () => PRIOR, options: intercept }, 'cheap');
    const manyLoss = meanLogLoss(heldOut, (label) => manyFit(label.vector));
    const manyOnly = meanLogLoss(heldOut, (label) => manyOnlyFit(label.vector));
    assert.ok(manyLoss < manyOnly - 0.05, `400 planted: ${manyLoss} vs intercept only ${manyOnly}`);
  });

  it('is deterministic, keeps the newest labels, and narrows its uncertainty with more labels', () => {
    const labels = plantedLabels(300, 3, false);
    const input = { labels, priorAbility: () => PRIOR, options: { now: FIXED_TIME } };
    assert.deepEqual(fitRouter(input), fitRouter(input));
    const bounded = fitRouter({ ...input, options: { ...input.options, maxLabels: 120 } });
    assert.equal(bounded.models.cheap?.labels, 120);
    assert.equal(bounded.labels, 240);
    const newest = fitRouter({ labels: labels.slice(-240), priorAbility: () => PRIOR, options: { now: FIXED_TIME } });
    assert.deepEqual(bounded, newest);
    const few = fitRouter({ labels: labels.slice(0, 20), priorAbility: () => PRIOR });
    assert.ok((few.models.cheap?.uncertainty ?? 0) > (bounded.models.cheap?.uncertainty ?? Infinity));
    assert.ok((bounded.models.cheap?.uncertainty ?? 0) > 0);
  });

  it('skips vectors of another layout and is ignored for another vector version', () => {
    const labels = [...plantedLabels(20, 4, false), { vector: new Float32Array(SKETCH_DIMS), model: 'cheap', score: 1 }];
    const fit = fitRouter({ labels, priorAbility: () => PRIOR });
    assert.equal(fit.models.cheap?.labels, 20);
    assert.equal(fittedModelOf({ ...fit, vectorVersion: PROMPT_VECTOR_VERSION + 1 }, 'cheap'), undefined);
    assert.notEqual(fittedModelOf(fit, 'cheap'), undefined);
  });

  it('fits in slices to the same result, yielding to the event loop between bounded slices', async () => {
    const input = { labels: plantedLabels(2000, 6, true), priorAbility: () => PRIOR, options: { now: FIXED_TIME } };
    let yields = 0;
    let longest = 0;
    // CPU time, not wall time: a busy test machine preempts the process, which no slice size can prevent.
    const cpuMs = () => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    };
    let sliceStart = cpuMs();
    const sliced = await fitRouterInSlices(input, async () => {
      longest = Math.max(longest, cpuMs() - sliceStart);
      yields += 1;
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = cpuMs();
    });
    assert.deepEqual(sliced, fitRouter(input));
    assert.ok(yields > 10, `${yields} yields`);
    // The budget is 4 ms; the bound leaves room for a slow or busy test machine.
    assert.ok(longest < 40, `longest slice ${longest.toFixed(1)} ms of CPU`);
  });
});
