import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { abilityFromPrice, abilityFromQualityScore, calibrateAbility, POSITION_RANGE } from './abilities.js';
import { parseModelsFile, parseRoutingDataset, parseSize, RoutingDataError } from './dataset.js';
import { createRandom } from './folds.js';
import { logistic, type PromptTraits } from './model.js';
import { ANCHORS } from './training-setup.js';

describe('abilities of models the weights were not trained on', () => {
  it('maps quality scores linearly through the anchors', () => {
    assert.equal(abilityFromQualityScore(ANCHORS[0].qualityScore, ANCHORS).position, 0);
    assert.equal(abilityFromQualityScore(ANCHORS[1].qualityScore, ANCHORS).position, 1);
    const middle = (ANCHORS[0].qualityScore + ANCHORS[1].qualityScore) / 2;
    assert.ok(Math.abs(abilityFromQualityScore(middle, ANCHORS).position - 0.5) < 1e-12);
    assert.equal(abilityFromQualityScore(5000, ANCHORS).position, POSITION_RANGE.max);
  });

  it('places models by log price between the anchors, and by size when given', () => {
    const at = (inputPrice: number, outputPrice: number, sizeB?: number) =>
      abilityFromPrice({ inputPrice, outputPrice, ...(sizeB === undefined ? {} : { sizeB }) }, ANCHORS).position;
    assert.ok(Math.abs(at(ANCHORS[0].inputPrice, ANCHORS[0].outputPrice)) < 1e-12);
    assert.ok(Math.abs(at(ANCHORS[1].inputPrice, ANCHORS[1].outputPrice) - 1) < 1e-12);
    assert.ok(at(0.1, 0.1) < 0);
    assert.ok(at(0.6, 0.6, 7) < at(0.6, 0.6, 70));
    assert.equal(at(0, 0), POSITION_RANGE.min);
  });

  it('calibration recovers an ability from enough labelled examples, and keeps the prior without any', () => {
    const random = createRandom(3);
    const traits: PromptTraits[] = [];
    const scores: number[] = [];
    for (let i = 0; i < 4000; i += 1) {
      const weakLogit = random() * 4 - 1.5;
      const strongLogit = weakLogit + random() * 3 - 0.5;
      traits.push({ weakLogit, strongLogit });
      scores.push(random() < logistic(0.3 + weakLogit + 1.5 * (strongLogit - weakLogit)) ? 1 : 0);
    }
    const fitted = calibrateAbility({ position: 0.5, offset: 0 }, traits, scores);
    assert.ok(Math.abs(fitted.position - 1.5) < 0.2, `position ${fitted.position}`);
    assert.ok(Math.abs(fitted.offset - 0.3) < 0.2, `offset ${fitted.offset}`);
    assert.deepEqual(calibrateAbility({ position: 0.5, offset: 0 }, [], []), { position: 0.5, offset: 0 });
    const few = calibrateAbility({ position: 0.5, offset: 0 }, traits.slice(0, 5), scores.slice(0, 5));
    assert.ok(Math.abs(few.position - 0.5) < 1, 'five examples only nudge the prior');
  });
});

describe('routing data files', () => {
  it('parses JSON lines with optional subjects, and refuses malformed ones with the line number', () => {
    const data = parseRoutingDataset('{"prompt":"a","scores":{"x":1,"y":0}}\n\n{"prompt":"b","subject":"s","scores":{"x":0,"y":0.5}}\n', 'f');
    assert.deepEqual(data.prompts, ['a', 'b']);
    assert.deepEqual(data.subjects, [undefined, 's']);
    assert.deepEqual([...(data.scores.get('y') ?? [])], [0, 0.5]);
    assert.throws(() => parseRoutingDataset('{"prompt":"a","scores":{"x":1}}\n{"prompt":"b","scores":{"y":1}}', 'f'), /f line 2/);
    assert.throws(() => parseRoutingDataset('{"prompt":"a","scores":{"x":2}}', 'f'), RoutingDataError);
    assert.throws(() => parseRoutingDataset('not json', 'f'), /line 1 is not valid JSON/);
    assert.throws(() => parseRoutingDataset('', 'f'), /no prompts/);
  });

  it('parses MODELS.json prices and sizes', () => {
    assert.equal(parseSize('8B'), 8);
    assert.equal(parseSize('8x7B'), 56);
    assert.equal(parseSize('1.5T'), 1500);
    assert.equal(parseSize('big'), undefined);
    const models = parseModelsFile('{"a":{"input_price":1,"output_price":2,"size":"70B"},"b":{"input_price":0.1,"output_price":0.2}}', 'm');
    assert.deepEqual(models, [
      { name: 'a', inputPrice: 1, outputPrice: 2, sizeB: 70 },
      { name: 'b', inputPrice: 0.1, outputPrice: 0.2 },
    ]);
    assert.throws(() => parseModelsFile('{"a":{"input_price":1}}', 'm'), /output_price/);
    assert.throws(() => parseModelsFile('{"a":{"input_price":1,"output_price":1,"size":"huge"}}', 'm'), /size/);
  });
});
