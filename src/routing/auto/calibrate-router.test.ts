import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_MODELS, fixtureModel } from '../../../test/support/routing-fixtures.js';
import { createAutoPredictor } from './auto-predictor.js';
import { calibrateRouter, priorAbilityOf, routerLabelsOf, UNKNOWN_MODEL_PRIOR } from './calibrate-router.js';
import { createPromptVectorizer } from './prompt-vector.js';
import { fitRouter } from './router-fit.js';
import type { RoutingDataset } from './dataset.js';
import { loadShippedAutoModel } from './shipped-model.js';

const model = loadShippedAutoModel();
const predictor = createAutoPredictor(model);
const QUESTIONS = Array.from(
  { length: 40 },
  (_, i) => `Question ${i}: which of the following statements about topic ${i % 7} is true?\nA. ${i}\nB. ${i + 1}\nC. both\nD. neither\nAnswer:`,
);

function dataset(scores: Record<string, (index: number) => number>): RoutingDataset {
  return {
    prompts: QUESTIONS,
    subjects: QUESTIONS.map(() => undefined),
    scores: new Map(Object.entries(scores).map(([id, score]) => [id, Float64Array.from(QUESTIONS, (_, index) => score(index))])),
  };
}

const mean = (values: Iterable<number>) => {
  const list = [...values];
  return list.reduce((sum, value) => sum + value, 0) / list.length;
};
const meanPrediction = (id: string, abilities?: Record<string, { position: number; offset: number }>) =>
  mean(QUESTIONS.map((prompt) => predictor.predict(prompt, [fixtureModel(id)], abilities).get(id) ?? 0));

describe('calibrateRouter', () => {
  it('moves a model the examples show always right up, and one always wrong down', () => {
    const { abilities, ignored } = calibrateRouter(
      model,
      ['acme:tiny', 'acme:big'],
      (id) => FIXTURE_MODELS.find((entry) => entry.id === id),
      dataset({ 'acme:tiny': () => 1, 'acme:big': () => 0, 'other:model': () => 1 }),
    );
    assert.deepEqual(ignored, ['other:model']);
    assert.deepEqual(Object.keys(abilities).sort(), ['acme:big', 'acme:tiny']);
    assert.equal(abilities['acme:tiny']?.examples, QUESTIONS.length);
    assert.ok(meanPrediction('acme:tiny', abilities) > meanPrediction('acme:tiny') + 0.05);
    assert.ok(meanPrediction('acme:big', abilities) < meanPrediction('acme:big') - 0.05);
  });

  it('barely moves a model whose examples agree with its prior', () => {
    const before = meanPrediction('acme:mid');
    // Right about as often as predicted, on a spread of questions.
    const { abilities } = calibrateRouter(model, ['acme:mid'], (id) => FIXTURE_MODELS.find((entry) => entry.id === id), dataset({
      'acme:mid': (index) => (index % 10 < Math.round(before * 10) ? 1 : 0),
    }));
    assert.ok(Math.abs(meanPrediction('acme:mid', abilities) - before) < 0.05);
  });

  it('starts a model the catalog does not know halfway between the anchors', () => {
    const { abilities } = calibrateRouter(model, ['custom:thing'], () => undefined, dataset({ 'custom:thing': (index) => index % 2 }));
    const fitted = abilities['custom:thing'];
    assert.ok(fitted !== undefined);
    assert.notDeepEqual({ position: fitted.position, offset: fitted.offset }, UNKNOWN_MODEL_PRIOR);
  });
});

describe('router labels from labelled examples', () => {
  it('labels every router model the examples score with each prompt\'s vector, and fits on them', () => {
    const { labels, ignored } = routerLabelsOf(model, ['acme:tiny', 'acme:big'], dataset({ 'acme:tiny': (i) => i % 2, 'acme:big': () => 1, 'other:model': () => 0 }));
    assert.deepEqual(ignored, ['other:model']);
    assert.equal(labels.length, 2 * QUESTIONS.length);
    assert.deepEqual(labels[0]?.vector, createPromptVectorizer(model)(QUESTIONS[0] ?? ''));
    assert.deepEqual(labels.filter((label) => label.model === 'acme:tiny').map((label) => label.score), QUESTIONS.map((_, i) => i % 2));
    const prior = priorAbilityOf(model, (id) => FIXTURE_MODELS.find((entry) => entry.id === id));
    assert.deepEqual(prior('acme:big'), { position: predictor.abilityOf(fixtureModel('acme:big')).position, offset: predictor.abilityOf(fixtureModel('acme:big')).offset });
    assert.deepEqual(prior('nobody:knows'), UNKNOWN_MODEL_PRIOR);
    const fit = fitRouter({ labels, priorAbility: prior });
    assert.deepEqual(Object.keys(fit.models), ['acme:big', 'acme:tiny']);
    assert.equal(fit.labels, labels.length);
  });
});
