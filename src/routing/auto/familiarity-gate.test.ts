import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { featureCount, META_COUNT } from './features.js';
import { createPromptScorer, gateValue, OUTCOME_COUNT, type AutoRouterModel } from './model.js';
import { loadShippedAutoModel } from './shipped-model.js';
import { FAMILIARITY_GATE } from './training-setup.js';
import { decodeWeightsFile, encodeWeightsFile, parseWeightsFile, WeightsFileError } from './weights-file.js';

const shipped = loadShippedAutoModel();
const MMLU_LIKE =
  'Which of the following best describes the function of the mitochondria in a eukaryotic cell?\n' +
  'A. Protein synthesis\nB. Energy production\nC. Lipid storage\nD. Cell division\nAnswer:';
const GIBBERISH = 'Xqzvw blorptik fnargle zzyzx quopplewib snarfblat grzmph vorpulent skibbadee wumpfrak?';

/** The meta-only softmax as a model of its own: what an unfamiliar prompt should fall back on. */
function metaOnlyModel(model: AutoRouterModel): AutoRouterModel {
  const fallback = model.fallback;
  assert.ok(fallback !== undefined, 'the shipped weights carry a meta-only model');
  const weights = new Float32Array(featureCount(model.features) * OUTCOME_COUNT);
  weights.set(fallback.weights);
  return { features: model.features, weights, biases: fallback.biases, anchors: model.anchors, ...(model.lengthPrior === undefined ? {} : { lengthPrior: model.lengthPrior }) };
}

describe('familiarity gate', () => {
  it('ships a gate and a meta-only model with the weights', () => {
    assert.deepEqual(shipped.gate, FAMILIARITY_GATE);
    assert.equal(shipped.fallback?.weights.length, META_COUNT * OUTCOME_COUNT);
    assert.equal(shipped.fallback?.biases.length, OUTCOME_COUNT);
  });

  it('scores a prompt in the training vocabulary familiar and an out-of-vocabulary one unfamiliar', () => {
    const scorer = createPromptScorer(shipped);
    const familiar = { ...scorer.score(MMLU_LIKE) };
    const strange = { ...scorer.score(GIBBERISH) };
    assert.ok(familiar.familiarity > strange.familiarity + 0.3, `${familiar.familiarity} vs ${strange.familiarity}`);
    assert.equal(familiar.gate, 1);
    assert.equal(strange.gate, 0);
  });

  it('moves an unfamiliar prompt to the meta-only prediction and leaves a familiar one as it was', () => {
    const gated = createPromptScorer(shipped);
    const ungated = createPromptScorer(shipped, null);
    const metaOnly = createPromptScorer(metaOnlyModel(shipped));

    const strange = { ...gated.score(GIBBERISH) };
    const strangeUngated = { ...ungated.score(GIBBERISH) };
    const strangeMeta = { ...metaOnly.score(GIBBERISH) };
    assert.ok(Math.abs(strange.weakLogit - strangeMeta.weakLogit) < 1e-6);
    assert.ok(Math.abs(strange.strongLogit - strangeMeta.strongLogit) < 1e-6);
    // The ungated text features do move the prediction: the gate is what takes them out.
    assert.ok(Math.abs(strangeUngated.weakLogit - strangeMeta.weakLogit) + Math.abs(strangeUngated.strongLogit - strangeMeta.strongLogit) > 1e-3);

    const familiar = { ...gated.score(MMLU_LIKE) };
    const familiarUngated = { ...ungated.score(MMLU_LIKE) };
    assert.equal(familiar.weakLogit, familiarUngated.weakLogit);
    assert.equal(familiar.strongLogit, familiarUngated.strongLogit);
  });

  it('blends between the two in proportion to the gate', () => {
    const threshold = FAMILIARITY_GATE.threshold ?? 0;
    const familiarity = createPromptScorer(shipped).score(GIBBERISH).familiarity;
    const open = { ...createPromptScorer(shipped, { low: -1, high: 0, threshold }).score(GIBBERISH) };
    const blended = { ...createPromptScorer(shipped, { low: familiarity - 0.5, high: familiarity + 0.5, threshold }).score(GIBBERISH) };
    const metaOnly = { ...createPromptScorer(metaOnlyModel(shipped)).score(GIBBERISH) };
    assert.equal(open.gate, 1);
    assert.ok(Math.abs(blended.gate - 0.5) < 1e-9);
    const between = (value: number, a: number, b: number) => value > Math.min(a, b) && value < Math.max(a, b);
    assert.ok(between(blended.weakLogit, open.weakLogit, metaOnly.weakLogit));
    assert.ok(between(blended.strongLogit, open.strongLogit, metaOnly.strongLogit));
  });

  it('clamps the gate to [0, 1] and treats a missing gate as open', () => {
    const gate = { low: 0.2, high: 0.6 };
    assert.equal(gateValue(gate, 0), 0);
    assert.equal(gateValue(gate, 0.2), 0);
    assert.ok(Math.abs(gateValue(gate, 0.4) - 0.5) < 1e-12);
    assert.equal(gateValue(gate, 0.9), 1);
    assert.equal(gateValue(undefined, 0), 1);
    assert.equal(gateValue(null, 0), 1);
    assert.equal(gateValue({ low: 0.5, high: 0.5 }, 0.49), 0);
    assert.equal(gateValue({ low: 0.5, high: 0.5 }, 0.5), 1);
    assert.equal(gateValue({ low: -1, high: 0, ceiling: 0.4 }, 0.7), 0.4);
    assert.ok(Math.abs(gateValue({ ...gate, ceiling: 0.5 }, 0.4) - 0.25) < 1e-12);
  });

  it('keeps the gate and the meta-only model through the weights file, and old files stay ungated', () => {
    const file = encodeWeightsFile({
      features: shipped.features,
      weights: shipped.weights,
      biases: shipped.biases,
      anchors: shipped.anchors,
      classes: ['both-wrong', 'strong-only', 'weak-only', 'both-right'],
      gate: { low: 0.1, high: 0.4, threshold: 0.02, ceiling: 0.9 },
      ...(shipped.fallback === undefined ? {} : { fallback: shipped.fallback }),
      training: {},
    });
    const decoded = decodeWeightsFile(parseWeightsFile(JSON.parse(JSON.stringify(file))));
    assert.deepEqual(decoded.gate, { low: 0.1, high: 0.4, threshold: 0.02, ceiling: 0.9 });
    assert.deepEqual(Array.from(decoded.fallback?.biases ?? []), Array.from(shipped.fallback?.biases ?? []));

    const { gate: _gate, fallback: _fallback, ...old } = file;
    const oldModel = decodeWeightsFile(parseWeightsFile(JSON.parse(JSON.stringify(old))));
    assert.equal(oldModel.gate, undefined);
    assert.equal(createPromptScorer(oldModel).score(GIBBERISH).gate, 1);

    assert.throws(() => parseWeightsFile({ ...file, gate: { low: 'x', high: 1 } }), WeightsFileError);
    assert.throws(() => decodeWeightsFile({ ...file, fallback: { meta: [1, 2], biases: [0, 0, 0, 0] } }), WeightsFileError);
  });
});
