import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIXTURE_IDS, candidatesFor, ids, strategyContext, userRequest } from '../../../test/support/routing-fixtures.js';
import { createAutoPredictor } from '../auto/auto-predictor.js';
import { loadShippedAutoModel } from '../auto/shipped-model.js';
import { createAutoStrategy, DEFAULT_QUALITY_TARGET, promptTextOf } from './auto-strategy.js';

const EASY = 'What is the capital of France?\nA. Paris\nB. London\nC. Berlin\nD. Madrid\nAnswer:';
const HARD =
  "Let f(x) = x^3 - 6x^2 + 11x - 6. Find the sum of the squares of the roots of f'(x) = 0 given the integral of f from 0 to 3.\n" +
  'A. 14/3\nB. 16/3\nC. 20/3\nD. 8\nAnswer:';

const shipped = loadShippedAutoModel();
const auto = createAutoStrategy(() => createAutoPredictor(shipped));

function rankFor(text: string, qualityTarget?: number) {
  const request = userRequest(text);
  const context = strategyContext({ request, settings: qualityTarget === undefined ? {} : { qualityTarget } });
  return auto.rank(candidatesFor(FIXTURE_IDS, request), context);
}

describe('auto strategy (shipped predictor, fixed catalog)', () => {
  it('sends an easy question to the cheapest model expected to meet the target', () => {
    const ranked = rankFor(EASY);
    assert.equal(ids(ranked)[0], 'acme:tiny');
    const first = ranked[0];
    assert.ok(first !== undefined && first.predictedQuality !== undefined && first.predictedQuality >= DEFAULT_QUALITY_TARGET);
    assert.match(first.reason, /^predicted 0\.\d\d ≥ target 0\.8; expected \$/);
  });

  it('sends a hard question that no model is expected to get right to the likeliest one', () => {
    const ranked = rankFor(HARD);
    assert.ok(ranked.every((entry) => (entry.predictedQuality ?? 1) < DEFAULT_QUALITY_TARGET));
    // Which model is likeliest is the shipped weights' call; the strategy must put it first.
    const likeliest = ranked.reduce((best, entry) => ((entry.predictedQuality ?? 0) > (best.predictedQuality ?? 0) ? entry : best));
    assert.equal(ids(ranked)[0], likeliest.candidate.model.id);
    assert.ok(ranked.slice(1).every((entry) => (entry.predictedQuality ?? 0) <= (likeliest.predictedQuality ?? 0)));
    assert.match(ranked[0]?.reason ?? '', /< target 0\.8/);
  });

  it('predicts the hard question as less likely to be answered well than the easy one, for every model', () => {
    const easy = new Map(rankFor(EASY).map((entry) => [entry.candidate.model.id, entry.score]));
    for (const entry of rankFor(HARD)) assert.ok(entry.score < (easy.get(entry.candidate.model.id) ?? 0), entry.candidate.model.id);
  });

  it('a stricter target moves the same prompt to a stronger, dearer model', () => {
    const relaxed = rankFor(EASY, 0.8)[0]?.candidate;
    const strict = rankFor(EASY, 0.95)[0]?.candidate;
    assert.ok(relaxed !== undefined && strict !== undefined);
    assert.notEqual(strict.model.id, relaxed.model.id);
    assert.ok(strict.expectedCostUsd > relaxed.expectedCostUsd);
    assert.ok(strict.quality > relaxed.quality);
  });

  it('ranks the models meeting the target cheapest first, then the rest likeliest first', () => {
    for (const target of [0.5, 0.8, 0.9, 0.95, 0.99]) {
      const ranked = rankFor(EASY, target);
      const meeting = ranked.filter((entry) => entry.score >= target);
      const rest = ranked.filter((entry) => entry.score < target);
      assert.deepEqual(ranked.slice(0, meeting.length), meeting, `target ${target}: meeting models come first`);
      for (let k = 1; k < meeting.length; k += 1) {
        assert.ok((meeting[k - 1]?.candidate.expectedCostUsd ?? 0) <= (meeting[k]?.candidate.expectedCostUsd ?? 0));
      }
      for (let k = 1; k < rest.length; k += 1) assert.ok((rest[k - 1]?.score ?? 0) >= (rest[k]?.score ?? 0));
    }
  });

  it('loads its predictor on the first decision only', () => {
    let loads = 0;
    const lazy = createAutoStrategy(() => {
      loads += 1;
      return createAutoPredictor(shipped);
    });
    assert.equal(loads, 0);
    const request = userRequest(EASY);
    lazy.rank(candidatesFor(FIXTURE_IDS, request), strategyContext({ request }));
    lazy.rank(candidatesFor(FIXTURE_IDS, request), strategyContext({ request }));
    assert.equal(loads, 1);
  });
});

describe('promptTextOf', () => {
  it('reads the last user message, after the system prompt', () => {
    const text = promptTextOf({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: [{ type: 'text', text: 'second question' }] },
      ],
    });
    assert.equal(text, 'You are terse.\nsecond question');
  });

  it('reads every message when there is no user turn', () => {
    assert.equal(promptTextOf({ messages: [{ role: 'system', content: 'only a system prompt' }] }), 'only a system prompt');
  });
});
