import { rankByScore, type RoutingStrategy } from './routing-strategy.js';

/**
 * `carbon_optimized`: the lowest expected grams of CO2e for this request, by
 * EcoLogits' method (docs/carbon.md): energy of the expected output tokens from
 * the model's active and total parameters, times the data centre's PUE and grid
 * intensity. Score: grams; lowest first. Models expected to emit the same (an
 * embedding call generates nothing, so EcoLogits counts nothing) are ordered by
 * the carbon of a kilowatt-hour where they run: the cleaner data centre first.
 */
export const carbonStrategy: RoutingStrategy = {
  name: 'carbon_optimized',
  rank: (candidates) =>
    rankByScore(
      candidates,
      'lower-first',
      (candidate) => candidate.expectedCarbonGrams,
      (candidate, grams) =>
        `expected ${formatGrams(grams)} CO2e (${candidate.model.activeParamsB}B active parameters, ${gramsPerKWh(candidate.model.region)} g/kWh with PUE)`,
    ).sort((a, b) => a.score - b.score || gramsPerKWh(a.candidate.model.region) - gramsPerKWh(b.candidate.model.region)),
};

function gramsPerKWh(region: { readonly pue: number; readonly gridGCo2PerKWh: number }): number {
  return Math.round(region.pue * region.gridGCo2PerKWh);
}

function formatGrams(grams: number): string {
  return grams >= 1 ? `${grams.toFixed(2)} g` : `${Number(grams.toPrecision(2))} g`;
}
