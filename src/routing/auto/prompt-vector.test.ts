import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFeatureBuffer, extractFeatures, META_COUNT } from './features.js';
import { createPromptScorer } from './model.js';
import {
  createPromptVectorizer,
  decodePromptVector,
  encodePromptVector,
  PROMPT_VECTOR_LENGTH,
  SKETCH_DIMS,
  traitsOfVector,
  VECTOR_INDEX,
} from './prompt-vector.js';
import { loadShippedAutoModel } from './shipped-model.js';

const model = loadShippedAutoModel();
const PROMPTS = [
  'What is the capital of France?\nA. Paris\nB. Rome\nC. Madrid\nD. Berlin\nAnswer:',
  'def add(a, b):\n    """Return the sum of a and b."""\n    return a + b\n# write tests for this function',
  'Translate to German: the weather is lovely today.',
];

describe('prompt vector', () => {
  const vectorize = createPromptVectorizer(model);

  it('holds the bias, the anchors\' traits, familiarity, the meta features and an L2-normalised sketch', () => {
    assert.ok(PROMPT_VECTOR_LENGTH >= 80 && PROMPT_VECTOR_LENGTH <= 100);
    const scorer = createPromptScorer(model);
    const buffer = createFeatureBuffer(model.features);
    for (const prompt of PROMPTS) {
      const vector = vectorize(prompt);
      const traits = { ...scorer.score(prompt) };
      extractFeatures(prompt, model.features, buffer);
      assert.equal(vector.length, PROMPT_VECTOR_LENGTH);
      assert.equal(vector[VECTOR_INDEX.bias], 1);
      assert.equal(vector[VECTOR_INDEX.weakLogit], Math.fround(traits.weakLogit));
      assert.equal(vector[VECTOR_INDEX.gap], Math.fround(traits.strongLogit - traits.weakLogit));
      assert.equal(vector[VECTOR_INDEX.familiarity], Math.fround(traits.familiarity));
      assert.deepEqual(Array.from(vector.subarray(VECTOR_INDEX.meta, VECTOR_INDEX.meta + META_COUNT)), Array.from(buffer.meta));
      const sketch = vector.subarray(VECTOR_INDEX.sketch, VECTOR_INDEX.sketch + SKETCH_DIMS);
      const norm = Math.sqrt(sketch.reduce((sum, value) => sum + value * value, 0));
      assert.ok(Math.abs(norm - 1) < 1e-5, `sketch norm ${norm}`);
      const fromVector = traitsOfVector(vector);
      assert.ok(Math.abs(fromVector.strongLogit - traits.strongLogit) < 1e-4);
    }
  });

  it('tells different kinds of prompt apart in the sketch and gives the same prompt the same vector', () => {
    const [question, code] = [vectorize(PROMPTS[0] ?? ''), vectorize(PROMPTS[1] ?? '')];
    assert.deepEqual(vectorize(PROMPTS[0] ?? ''), question);
    assert.notEqual(vectorize(PROMPTS[0] ?? ''), question, 'a new array each call');
    let dot = 0;
    for (let j = VECTOR_INDEX.sketch; j < PROMPT_VECTOR_LENGTH; j += 1) dot += (question[j] ?? 0) * (code[j] ?? 0);
    assert.ok(dot < 0.9, `sketch cosine ${dot}`);
  });

  it('gives an empty prompt a zero sketch, not NaN', () => {
    const vector = vectorize('');
    assert.ok(vector.every((value) => Number.isFinite(value)));
    assert.ok(vector.subarray(VECTOR_INDEX.sketch).every((value) => value === 0));
  });

  it('round-trips through base64 exactly', () => {
    for (const prompt of PROMPTS) {
      const vector = vectorize(prompt);
      const encoded = encodePromptVector(vector);
      assert.match(encoded, /^[A-Za-z0-9+/]+=*$/);
      assert.equal(Buffer.from(encoded, 'base64').length, PROMPT_VECTOR_LENGTH * 4);
      assert.deepEqual(decodePromptVector(encoded), vector);
    }
  });

  it('refuses malformed or wrong-length input', () => {
    const encoded = encodePromptVector(vectorize(PROMPTS[0] ?? ''));
    assert.equal(decodePromptVector(''), undefined);
    assert.equal(decodePromptVector('not base64!'), undefined);
    assert.equal(decodePromptVector(encoded.slice(0, -8)), undefined);
    assert.equal(decodePromptVector(Buffer.alloc((PROMPT_VECTOR_LENGTH + 1) * 4).toString('base64')), undefined);
    const nan = Buffer.alloc(PROMPT_VECTOR_LENGTH * 4);
    nan.writeFloatLE(Number.NaN, 8);
    assert.equal(decodePromptVector(nan.toString('base64')), undefined);
  });
});
