import { rankByScore, type RoutingStrategy } from './routing-strategy.js';

/**
 * `carbon_optimized`: the lowest expected grams of CO2e for this request, with
 * the method of docs/carbon.md (energy per token from the model's active
 * parameters, the data centre's PUE and grid intensity) applied to the expected
 * prompt and output tokens. Score: grams; lowest first.
 */
export const carbonStrategy: RoutingStrategy = {
  name: 'carbon_optimized',
  rank: (candidates) =>
    rankByScore(
      candidates,
      'lower-first',
      (candidate) => candidate.expectedCarbonGrams,
      (candidate, grams) => `expected ${formatGrams(grams)} CO2e (${candidate.model.activeParamsB}B active parameters)`,
    ),
};

function formatGrams(grams: number): string {
  return grams >= 1 ? `${grams.toFixed(2)} g` : `${Number(grams.toPrecision(2))} g`;
}
