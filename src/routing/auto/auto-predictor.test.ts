import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadShippedCatalog } from '../../catalog/catalog.js';
import { createAutoPredictor, type AutoCandidate } from './auto-predictor.js';
import { createPromptScorer, OUTCOME_COUNT } from './model.js';
import { loadShippedAutoModel } from './shipped-model.js';
import { WEAK_ANCHOR, STRONG_ANCHOR } from './training-setup.js';
import { decodeWeightsFile, encodeWeightsFile, parseWeightsFile } from './weights-file.js';
import { featureCount } from './features.js';

const model = loadShippedAutoModel();
const catalog = loadShippedCatalog();
const PROMPTS = [
  'What is the capital of France?\nA. Paris\nB. Rome\nC. Madrid\nD. Berlin\nAnswer:',
  'For which of these two scenarios does the main character do something clearly morally wrong? Scenario 1 | I took the last cookie. Scenario 2 | I lied to the judge.\nA. Wrong, Wrong\nB. Wrong, Not wrong\nC. Not wrong, Wrong\nD. Not wrong, Not wrong\nAnswer:',
  'Let T be a linear transformation from R^3 to R^2 with kernel of dimension 1. What is the dimension of the image of T?\nA. 0\nB. 1\nC. 2\nD. 3\nAnswer:',
  'Write a haiku about autumn leaves.',
];
const priced = (id: string, inputPerMTok: number, outputPerMTok: number, extra: Partial<AutoCandidate> = {}): AutoCandidate => ({
  id,
  pricing: { inputPerMTok, outputPerMTok },
  ...extra,
});

describe('auto predictor', () => {
  const predictor = createAutoPredictor(model);
  const weak = priced(`together:${WEAK_ANCHOR}`, 0.6, 0.6);
  const strong = priced(STRONG_ANCHOR, 10, 30);

  it('loads the shipped weights with both anchors', () => {
    assert.deepEqual(
      model.anchors.map((anchor) => anchor.name),
      [WEAK_ANCHOR, STRONG_ANCHOR],
    );
    assert.equal(model.weights.length, featureCount(model.features) * OUTCOME_COUNT);
  });

  it('gives every candidate a probability in (0, 1), the strong anchor above the weak one on average', () => {
    let strongSum = 0;
    let weakSum = 0;
    const candidates = [weak, strong, ...catalog.list()];
    for (const prompt of PROMPTS) {
      const predicted = predictor.predict(prompt, candidates);
      assert.equal(predicted.size, candidates.length);
      for (const probability of predicted.values()) assert.ok(probability > 0 && probability < 1);
      strongSum += predicted.get(strong.id) ?? 0;
      weakSum += predicted.get(weak.id) ?? 0;
    }
    assert.ok(strongSum > weakSum);
  });

  it('explains where each candidate sits', () => {
    assert.equal(predictor.abilityOf(weak).source, 'trained');
    assert.equal(predictor.abilityOf(strong).position, 1);
    const gpt4o = catalog.get('openai:gpt-4o');
    assert.ok(gpt4o !== undefined);
    assert.equal(predictor.abilityOf(gpt4o).source, 'quality-score');
    assert.ok(predictor.abilityOf(gpt4o).position > 1, 'GPT-4o rates above GPT-4 Turbo on LMArena');
    assert.equal(predictor.abilityOf(priced('acme:unknown', 0.2, 0.2)).source, 'price-prior');
    const calibrated = createAutoPredictor(model, { calibrated: new Map([['acme:unknown', { position: 2, offset: 0.5 }]]) });
    assert.deepEqual(calibrated.abilityOf(priced('acme:unknown', 0.2, 0.2)), { position: 2, offset: 0.5, source: 'calibrated' });
  });

  it('a quality score equal to an anchor rating predicts like that anchor', () => {
    const twin = priced('acme:twin', 1, 1, { qualityScore: model.anchors[1].qualityScore });
    const predicted = predictor.predict(PROMPTS[2] ?? '', [strong, twin]);
    assert.ok(Math.abs((predicted.get(strong.id) ?? 0) - (predicted.get(twin.id) ?? 1)) < 1e-12);
  });

  it('chooses the cheapest model meeting the target, or the likeliest one', () => {
    const candidates = [strong, weak];
    assert.equal(predictor.choose(PROMPTS[0] ?? '', candidates, { kind: 'quality-target', target: 0 }).id, weak.id);
    const unreachable = predictor.choose(PROMPTS[1] ?? '', candidates, { kind: 'quality-target', target: 1 });
    const predicted = predictor.predict(PROMPTS[1] ?? '', candidates);
    const likeliest = (predicted.get(strong.id) ?? 0) >= (predicted.get(weak.id) ?? 0) ? strong.id : weak.id;
    assert.equal(unreachable.id, likeliest);
    assert.ok(unreachable.expectedCostUsd > 0);
  });

  it('trades quality against cost with λ', () => {
    const candidates = [weak, strong];
    const prompt = PROMPTS[1] ?? '';
    const predicted = predictor.predict(prompt, candidates);
    const likeliest = (predicted.get(strong.id) ?? 0) > (predicted.get(weak.id) ?? 0) ? strong.id : weak.id;
    assert.equal(predictor.choose(prompt, candidates, { kind: 'quality-minus-cost', lambda: 0 }).id, likeliest);
    assert.equal(predictor.choose(prompt, candidates, { kind: 'quality-minus-cost', lambda: 1e6 }).id, weak.id);
    assert.throws(() => predictor.choose(prompt, [], { kind: 'quality-minus-cost', lambda: 0 }), /no candidate/);
  });

  it('decides fast, whatever the prompt length', () => {
    const long = `${PROMPTS[2] ?? ''} `.repeat(400);
    const candidates = catalog.list();
    for (let k = 0; k < 200; k += 1) predictor.choose(long, candidates, { kind: 'quality-target', target: 0.8 });
    const started = performance.now();
    for (let k = 0; k < 1000; k += 1) predictor.choose(long, candidates, { kind: 'quality-target', target: 0.8 });
    const perCallMs = (performance.now() - started) / 1000;
    assert.ok(perCallMs < 1, `${perCallMs} ms per decision`);
  });
});

describe('weights file', () => {
  it('round-trips weights through int16 quantisation', () => {
    const features = { hashBits: 8, headChars: 64, tailChars: 64 };
    const weights = Float64Array.from({ length: featureCount(features) * OUTCOME_COUNT }, (_, i) => (i % 7 === 0 ? 0 : Math.sin(i)));
    const file = encodeWeightsFile({ features, weights, biases: Float64Array.from([0.1, 0.2, 0.3, 0.4]), anchors: model.anchors, classes: ['a', 'b', 'c', 'd'], training: { note: 'test' } });
    const decoded = decodeWeightsFile(parseWeightsFile(JSON.parse(JSON.stringify(file))));
    weights.forEach((w, i) => assert.ok(Math.abs((decoded.weights[i] ?? NaN) - w) < 1e-4, `weight ${i}`));
    assert.throws(() => parseWeightsFile({ format: 'other' }), /Not a version 1/);
    assert.equal(decoded.lengthPrior, undefined, 'no length prior unless one was trained');
  });

  it('keeps the length prior, which widens the anchors\' gap on long prompts and narrows it on short ones', () => {
    const features = { hashBits: 8, headChars: 4096, tailChars: 4096 };
    const weights = Float64Array.from({ length: featureCount(features) * OUTCOME_COUNT }, (_, i) => Math.cos(i) / 10);
    const input = { features, weights, biases: Float64Array.from([0, 0, 0, 0]), anchors: model.anchors, classes: ['a', 'b', 'c', 'd'], training: {} };
    const plain = decodeWeightsFile(parseWeightsFile(JSON.parse(JSON.stringify(encodeWeightsFile(input)))));
    const withPrior = decodeWeightsFile(parseWeightsFile(JSON.parse(JSON.stringify(encodeWeightsFile({ ...input, lengthPrior: 0.5 })))));
    assert.equal(withPrior.lengthPrior, 0.5);
    const gap = (scorer: ReturnType<typeof createPromptScorer>, text: string) => {
      const traits = scorer.score(text);
      return traits.strongLogit - traits.weakLogit;
    };
    const short = 'Which one?\nA. x\nB. y';
    const long = `${'A long passage of text to read before the question. '.repeat(60)}\nWhich one?\nA. x\nB. y`;
    const [a, b] = [createPromptScorer(plain), createPromptScorer(withPrior)];
    assert.ok(gap(b, long) > gap(a, long) + 0.1, 'long prompt: wider gap');
    assert.ok(gap(b, short) < gap(a, short) - 0.1, 'short prompt: narrower gap');
    assert.throws(() => parseWeightsFile({ ...encodeWeightsFile(input), lengthPrior: 'big' }), /lengthPrior/);
  });
});
