import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ecologitsGpuCount, ecologitsImpacts } from './ecologits-method.js';

// EcoLogits 0.9.1's own US figures: `USA` row of ecologits/data/electricity_mixes.csv (0.38355 kg/kWh)
// and the PUE of the google_genai / cohere providers in ecologits/tracers/utils.py.
const GRID = 383.55;
const PUE = 1.09;

/**
 * EcoLogits 0.9.1's `compute_llm_impacts` (ecologits/impacts/llm.py) transcribed step by step,
 * in its own units (kWh, kg), with its constants typed out here rather than read from the module,
 * so that a slip in either the constants or the module's arithmetic shows.
 */
function byHand(activeB: number, totalB: number, tokens: number, measuredSeconds = Infinity) {
  const batch = 64;
  const gpuKWhPerToken = (1.1665273170451914e-6 * Math.exp(-0.011205921025579175 * batch) * activeB + 4.052928146734005e-5) / 1000;
  const gpuKWh = tokens * gpuKWhPerToken;
  const latency = Math.min(measuredSeconds, tokens * (0.0006785088094353663 * activeB + 0.0003119310311688259 * batch + 0.019473717579473387));
  const memoryGb = (1.2 * totalB * 16) / 8;
  const gpus = 2 ** Math.ceil(Math.log2(Math.ceil(memoryGb / 80)));
  const serverKWh = (latency / 3600) * 1.2 * (gpus / 8) * (1 / batch);
  const energyKWh = PUE * (serverKWh + gpus * gpuKWh);
  const usageKg = energyKWh * (GRID / 1000);
  const embodiedKg = (latency * ((gpus / 8) * 5700 + gpus * 164)) / (3 * 365 * 24 * 3600 * batch);
  return { energyWh: energyKWh * 1000, carbonGrams: usageKg * 1000, embodiedGrams: embodiedKg * 1000, gpus, latency };
}

function within(actual: number, expected: number, share: number, label: string): void {
  assert.ok(Math.abs(actual - expected) <= share * Math.abs(expected), `${label}: ${actual} is not within ${share * 100} % of ${expected}`);
}

const cases = [
  { name: '70B dense, 1,000 tokens, modelled latency', activeB: 70, totalB: 70, tokens: 1000, measured: undefined, publishedWh: 0.597, gpus: 4 },
  { name: '70B dense, 1,000 tokens, measured 20 s', activeB: 70, totalB: 70, tokens: 1000, measured: 20, publishedWh: 0.407, gpus: 4 },
  { name: '8B dense, 500 tokens', activeB: 8, totalB: 8, tokens: 500, measured: undefined, publishedWh: 0.0405, gpus: 1 },
  { name: '400B total / 40B active MoE, 1,000 tokens', activeB: 40, totalB: 400, tokens: 1000, measured: undefined, publishedWh: 1.86, gpus: 16 },
] as const;

describe('EcoLogits 0.9.1 method', () => {
  for (const c of cases) {
    it(`reproduces EcoLogits for ${c.name}`, () => {
      const expected = byHand(c.activeB, c.totalB, c.tokens, c.measured);
      const actual = ecologitsImpacts({
        activeParamsB: c.activeB,
        totalParamsB: c.totalB,
        outputTokens: c.tokens,
        ...(c.measured === undefined ? {} : { measuredGenerationSeconds: c.measured }),
        pue: PUE,
        gridGramsPerKWh: GRID,
      });

      assert.equal(actual.method, 'ecologits-0.9');
      assert.equal(actual.gpus, c.gpus);
      assert.equal(expected.gpus, c.gpus);
      within(actual.latencySeconds, expected.latency, 1e-9, 'latency');
      within(actual.energyWh, expected.energyWh, 0.01, 'energy against the formula');
      within(expected.energyWh, c.publishedWh, 0.01, 'formula against the published figure');
      within(actual.energyWh, c.publishedWh, 0.01, 'energy against the published figure');
      within(actual.carbonGrams, expected.carbonGrams, 0.01, 'emissions against the formula');
      within(actual.carbonGrams, (actual.energyWh * GRID) / 1000, 1e-12, 'emissions = energy × grid');
      within(actual.embodiedGrams, expected.embodiedGrams, 0.01, 'embodied against the formula');
    });
  }

  it('charges embodied emissions for the server share and every GPU over three years', () => {
    // 70B dense: 4 GPUs, so half the server (2,850 kg) and 4 × 164 kg, for 20 s of a 64-request batch.
    const result = ecologitsImpacts({ activeParamsB: 70, totalParamsB: 70, outputTokens: 1000, measuredGenerationSeconds: 20, pue: PUE, gridGramsPerKWh: GRID });
    const grams = (20 * (2850 + 656) * 1000) / (94_608_000 * 64);
    within(result.embodiedGrams, grams, 1e-9, 'embodied');
    // Embodied does not depend on the grid or the PUE.
    const elsewhere = ecologitsImpacts({ activeParamsB: 70, totalParamsB: 70, outputTokens: 1000, measuredGenerationSeconds: 20, pue: 1.5, gridGramsPerKWh: 0 });
    assert.equal(elsewhere.embodiedGrams, result.embodiedGrams);
    assert.equal(elsewhere.carbonGrams, 0);
  });

  it('keeps the modelled latency when the measured time is longer', () => {
    const modelled = ecologitsImpacts({ activeParamsB: 8, totalParamsB: 8, outputTokens: 500, pue: PUE, gridGramsPerKWh: GRID });
    const slow = ecologitsImpacts({ activeParamsB: 8, totalParamsB: 8, outputTokens: 500, measuredGenerationSeconds: 600, pue: PUE, gridGramsPerKWh: GRID });
    assert.equal(slow.latencySeconds, modelled.latencySeconds);
    assert.equal(slow.energyWh, modelled.energyWh);
  });

  it('rounds the GPU count up to a power of two from the total parameters', () => {
    // 1.2 × B × 2 bytes against 80 GB cards: 33B needs 79.2 GB, 34B 81.6 GB, 405B 972 GB (13 cards).
    assert.equal(ecologitsGpuCount(33), 1);
    assert.equal(ecologitsGpuCount(34), 2);
    assert.equal(ecologitsGpuCount(100), 4);
    assert.equal(ecologitsGpuCount(405), 16);
    assert.equal(ecologitsGpuCount(0), 1);
  });

  it('costs nothing for no output tokens', () => {
    const none = ecologitsImpacts({ activeParamsB: 70, totalParamsB: 70, outputTokens: 0, pue: PUE, gridGramsPerKWh: GRID });
    assert.equal(none.energyWh, 0);
    assert.equal(none.embodiedGrams, 0);
  });
});
