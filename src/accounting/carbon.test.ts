import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelInfo } from '../routing/catalog.js';
import { carbonModel, estimateCarbonGrams, estimateEnergyWh } from './carbon.js';

function model(activeParamsB: number, pue = 1.2, grid = 400): ModelInfo {
  return {
    id: 'x:y', provider: 'x', model: 'y', displayName: 'y',
    pricing: { inputPerMTok: 1, outputPerMTok: 1 },
    contextWindow: 1000, maxOutputTokens: 100,
    capabilities: { tools: true, vision: true, jsonMode: true, streaming: true },
    qualityScore: 1000, activeParamsB, region: { pue, gridGCo2PerKWh: grid },
    typicalTtftMs: 100, typicalTokensPerSecond: 100, simulated: false,
  };
}

describe('carbon estimate', () => {
  const usage = { promptTokens: 0, completionTokens: 100, estimated: false };

  it('follows the documented formula', () => {
    const perToken = carbonModel.alphaWhPerTokenPerB * 70 + carbonModel.betaWhPerToken;
    const expectedWh = (100 * perToken + carbonModel.serverOverheadKw * 1000 * (2000 / 3_600_000)) * 1.2;
    assert.ok(Math.abs(estimateEnergyWh(usage, model(70), 2000) - expectedWh) < 1e-12);
    assert.ok(Math.abs(estimateCarbonGrams(usage, model(70), 2000) - (expectedWh / 1000) * 400) < 1e-6);
  });

  it('grows with active parameters, output tokens, PUE and grid intensity', () => {
    const base = estimateCarbonGrams(usage, model(8), 1000);
    assert.ok(estimateCarbonGrams(usage, model(70), 1000) > base);
    assert.ok(estimateCarbonGrams({ ...usage, completionTokens: 200 }, model(8), 1000) > base);
    assert.ok(estimateCarbonGrams(usage, model(8, 1.5), 1000) > base);
    assert.ok(estimateCarbonGrams(usage, model(8, 1.2, 800), 1000) > base);
  });

  it('is zero on a carbon-free grid', () => {
    assert.equal(estimateCarbonGrams(usage, model(70, 1.2, 0), 1000), 0);
  });
});
