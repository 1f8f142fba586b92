import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ModelInfo } from '../catalog/catalog.js';
import { estimateCarbon, expectedCarbonGrams } from './carbon.js';
import { ecologitsImpacts } from './ecologits-method.js';

function model(activeParamsB: number, totalParamsB: number | undefined, pue = 1.2, grid = 400): ModelInfo {
  return {
    id: 'x:y', provider: 'x', model: 'y', displayName: 'y',
    pricing: { inputPerMTok: 1, outputPerMTok: 1 },
    contextWindow: 1000, maxOutputTokens: 100,
    capabilities: { tools: true, vision: true, jsonMode: true, streaming: true },
    qualityScore: 1000, activeParamsB, ...(totalParamsB === undefined ? {} : { totalParamsB }), region: { pue, gridGCo2PerKWh: grid },
    typicalTtftMs: 100, typicalTokensPerSecond: 100, simulated: false,
  };
}

function close(actual: number, expected: number, share: number, label: string): void {
  assert.ok(Math.abs(actual - expected) <= share * Math.abs(expected), `${label}: ${actual} vs ${expected}`);
}

describe('the carbon of a call', () => {
  it('is EcoLogits’ estimate for the model’s active and total parameters and its region', () => {
    const moe = model(40, 400, 1.09, 383.55);
    const estimate = estimateCarbon(moe, 1000, 60_000);
    const reference = ecologitsImpacts({ activeParamsB: 40, totalParamsB: 400, outputTokens: 1000, measuredGenerationSeconds: 60, pue: 1.09, gridGramsPerKWh: 383.55 });
    close(estimate.energyWh, reference.energyWh, 1e-5, 'energy');
    close(estimate.carbonGrams, reference.carbonGrams, 1e-5, 'carbon');
    close(estimate.embodiedGrams, reference.embodiedGrams, 1e-5, 'embodied');
    assert.equal(estimate.gpus, 16);
    assert.deepEqual(
      { active: estimate.activeParamsB, total: estimate.totalParamsB, pue: estimate.pue, grid: estimate.gridGramsPerKWh, tokens: estimate.outputTokens, method: estimate.method },
      { active: 40, total: 400, pue: 1.09, grid: 383.55, tokens: 1000, method: 'ecologits-0.9' },
    );
  });

  it('takes a model without a total as dense', () => {
    const dense = estimateCarbon(model(70, undefined), 500);
    assert.equal(dense.totalParamsB, 70);
    assert.equal(dense.gpus, 4);
    const moeOfSameActive = estimateCarbon(model(70, 700), 500);
    assert.ok(moeOfSameActive.gpus > dense.gpus && moeOfSameActive.energyWh > dense.energyWh);
  });

  it('recomputes from its own reported inputs: grams = Wh / 1000 × grid', () => {
    for (const [active, total, tokens, ms] of [[8, 8, 1, 5], [70, 70, 1000, 20_000], [37, 671, 250, undefined], [3, 3, 12, 900]] as const) {
      const estimate = estimateCarbon(model(active, total, 1.16, 35.82), tokens, ms);
      close(estimate.carbonGrams, (estimate.energyWh / 1000) * estimate.gridGramsPerKWh, 1e-5, `${active}B`);
      const again = ecologitsImpacts({
        activeParamsB: estimate.activeParamsB, totalParamsB: estimate.totalParamsB, outputTokens: estimate.outputTokens,
        measuredGenerationSeconds: estimate.latencySeconds, pue: estimate.pue, gridGramsPerKWh: estimate.gridGramsPerKWh,
      });
      close(again.energyWh, estimate.energyWh, 1e-5, `${active}B from the reported latency`);
    }
  });

  it('uses the measured time when it is shorter than EcoLogits’ latency model', () => {
    const modelled = estimateCarbon(model(70, 70), 1000);
    const fast = estimateCarbon(model(70, 70), 1000, 20_000);
    assert.equal(fast.latencySeconds, 20);
    assert.ok(modelled.latencySeconds > 20 && fast.energyWh < modelled.energyWh);
    assert.equal(estimateCarbon(model(70, 70), 1000, 10 * 60_000).latencySeconds, modelled.latencySeconds);
  });

  it('is nothing for nothing generated, and nothing on a carbon-free grid', () => {
    assert.equal(estimateCarbon(model(70, 70), 0, 1000).carbonGrams, 0);
    assert.equal(estimateCarbon(model(70, 70, 1.2, 0), 100, 1000).carbonGrams, 0);
    assert.ok(estimateCarbon(model(70, 70, 1.2, 0), 100, 1000).energyWh > 0);
  });

  it('rounds nothing away, however small the call', () => {
    const tiny = estimateCarbon(model(1, 1, 1.1, 35), 1, 10);
    assert.ok(tiny.carbonGrams > 0 && tiny.carbonGrams < 1e-4);
    assert.equal(tiny.carbonGrams, (tiny.energyWh / 1000) * 35);
  });

  it('gives routing the same grams as the whole estimate', () => {
    const moe = model(37, 671, 1.45, 559.55);
    assert.equal(expectedCarbonGrams(moe, 256, 3_000), estimateCarbon(moe, 256, 3_000).carbonGrams);
  });
});
