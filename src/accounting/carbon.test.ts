import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelInfo } from '../catalog/catalog.js';
import { carbonModel, embodiedModel, estimateCarbonGrams, estimateEmbodiedGrams, estimateEnergyWh, gpusNeeded } from './carbon.js';

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

describe('embodied emissions', () => {
  it('spreads the server footprint over its lifetime, for the GPUs the model needs and the generation time', () => {
    // 70 B × 2 bytes × 1.2 = 168 GB → 3 of 8 GPUs; one hour of generation.
    assert.equal(gpusNeeded(model(70)), 3);
    const expected = ((embodiedModel.serverKgCo2e * 1000) / embodiedModel.lifetimeHours) * (3 / 8);
    assert.ok(Math.abs(estimateEmbodiedGrams(model(70), 3_600_000) - expected) < 1e-6);
  });

  it('needs at least one and at most a whole server, and nothing for no time', () => {
    assert.equal(gpusNeeded(model(1)), 1);
    assert.equal(gpusNeeded(model(2000)), embodiedModel.gpusPerServer);
    assert.equal(estimateEmbodiedGrams(model(70), 0), 0);
    assert.ok(estimateEmbodiedGrams(model(400), 1000) > estimateEmbodiedGrams(model(8), 1000));
  });
});
