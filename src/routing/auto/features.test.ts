import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFeatureBuffer, DEFAULT_FEATURE_CONFIG, extractFeatures, featureCount, META_COUNT, META_NAMES, type FeatureBuffer } from './features.js';

const config = DEFAULT_FEATURE_CONFIG;
const meta = (buffer: FeatureBuffer, name: (typeof META_NAMES)[number]) => buffer.meta[META_NAMES.indexOf(name)] ?? NaN;
const indices = (buffer: FeatureBuffer) => [...buffer.textIndices.subarray(0, buffer.textCount)];

const QUESTION = 'Statement 1 | Every group of order 4 is cyclic. Statement 2 | Z_6 has NOT exactly ___ elements.\nA. True, True\nB. False, False\nC. True, False\nD. False, True\nAnswer:';

describe('prompt features', () => {
  it('are deterministic and case-insensitive for words', () => {
    const a = createFeatureBuffer(config);
    const b = createFeatureBuffer(config);
    extractFeatures(QUESTION, config, a);
    extractFeatures(QUESTION.replace('Every', 'EVERY'), config, b);
    assert.deepEqual(indices(a), indices(b));
    assert.ok(a.textCount > 20);
    assert.ok(Math.abs(a.textValue - 1 / Math.sqrt(a.textCount)) < 1e-12);
    for (const index of indices(a)) assert.ok(index >= META_COUNT && index < featureCount(config));
  });

  it('describes the answer options and the structure in meta features', () => {
    const buffer = createFeatureBuffer(config);
    extractFeatures(QUESTION, config, buffer);
    assert.equal(meta(buffer, 'options=4'), 1);
    assert.equal(meta(buffer, 'pipe'), 1);
    assert.equal(meta(buffer, 'caps-negation'), 1);
    assert.equal(meta(buffer, 'blank'), 1);
    assert.equal(meta(buffer, 'options-numeric-all'), 0);
    assert.equal(meta(buffer, 'question-mark'), 0);

    extractFeatures('What is 12.5 + 7?\nA. 19.5\nB. 20\nC. 18\nD. 5\nAnswer:', config, buffer);
    assert.equal(meta(buffer, 'options-numeric-all'), 1);
    assert.equal(meta(buffer, 'decimal-number'), 1);
    assert.equal(meta(buffer, 'stem-ends-question'), 1);
    assert.equal(meta(buffer, 'pipe'), 0, 'meta features are reset between prompts');

    extractFeatures('hello', config, buffer);
    assert.equal(meta(buffer, 'options=0'), 1);
    assert.equal(meta(buffer, 'single-line'), 1);
  });

  it('maps numbers by their digit count, not their value', () => {
    const a = createFeatureBuffer(config);
    const b = createFeatureBuffer(config);
    extractFeatures('In 1492 there were 17 ships', config, a);
    extractFeatures('In 1066 there were 42 ships', config, b);
    assert.deepEqual(indices(a), indices(b));
  });

  it('reads only the head and the tail of long prompts, in bounded time', () => {
    const buffer = createFeatureBuffer(config);
    const long = `${'lorem ipsum dolor sit amet '.repeat(40_000)}\nWhich one?\nA. x\nB. y`;
    const started = performance.now();
    extractFeatures(long, config, buffer);
    assert.ok(performance.now() - started < 50);
    assert.ok(buffer.textCount <= buffer.textIndices.length);
    assert.equal(meta(buffer, 'chars>=2048'), 1);
    assert.equal(meta(buffer, 'options=2'), 1, 'the options at the end are still seen');
  });

  it('handles empty text, non-ASCII text and text without separators', () => {
    const buffer = createFeatureBuffer(config);
    extractFeatures('', config, buffer);
    assert.equal(buffer.textCount, 0);
    assert.equal(buffer.textValue, 0);
    extractFeatures('Какой ответ верный? 答えはどれですか', config, buffer);
    assert.ok(buffer.textCount > 0);
    extractFeatures('x'.repeat(100_000), config, buffer);
    assert.ok(buffer.textCount <= buffer.textIndices.length);
    extractFeatures('+-*/'.repeat(10_000), config, buffer);
    assert.ok(buffer.textCount <= buffer.textIndices.length);
  });
});
