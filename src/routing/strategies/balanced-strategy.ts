import type { RouterSettings } from '../routing-contract.js';
import type { CandidateEstimate, RankedCandidate, RoutingStrategy } from './routing-strategy.js';

/**
 * `balanced`: a weighted blend of the four criteria. Each is min-max normalised
 * over this request's eligible candidates to 0..1, 1 the best:
 *
 *   cost'    = (max − cost) / (max − min)        (likewise latency and carbon)
 *   quality' = (quality − min) / (max − min)
 *   score    = w_cost·cost' + w_latency·latency' + w_quality·quality' + w_carbon·carbon'
 *
 * with the router's weights divided by their sum. A criterion on which every
 * candidate is equal counts 1 for all (it cannot tell them apart). Score:
 * the blend, 0..1; highest first. Latency here is the expected latency without
 * `latency_optimized`'s exploration.
 */

export interface Weights {
  readonly cost: number;
  readonly latency: number;
  readonly quality: number;
  readonly carbon: number;
}

/** No weights on the router: all four count the same. */
export const EQUAL_WEIGHTS: Weights = { cost: 0.25, latency: 0.25, quality: 0.25, carbon: 0.25 };

/**
 * The router's weights normalised to sum 1. Without `weights`, equal weights;
 * with them, a criterion left out weighs 0.
 */
export function normalisedWeights(settings: RouterSettings): Weights {
  const given = settings.weights;
  if (given === undefined) return EQUAL_WEIGHTS;
  const raw = { cost: given.cost ?? 0, latency: given.latency ?? 0, quality: given.quality ?? 0, carbon: given.carbon ?? 0 };
  const sum = raw.cost + raw.latency + raw.quality + raw.carbon;
  if (!(sum > 0) || !Number.isFinite(sum)) return EQUAL_WEIGHTS;
  return { cost: raw.cost / sum, latency: raw.latency / sum, quality: raw.quality / sum, carbon: raw.carbon / sum };
}

export interface BlendScore {
  readonly score: number;
  readonly cost: number;
  readonly latency: number;
  readonly quality: number;
  readonly carbon: number;
}

/** The blend of each candidate, in the order given. */
export function blendScores(candidates: readonly CandidateEstimate[], weights: Weights): BlendScore[] {
  const cost = normalise(candidates.map((candidate) => candidate.expectedCostUsd), 'lower-better');
  const latency = normalise(candidates.map((candidate) => candidate.expectedLatencyMs), 'lower-better');
  const quality = normalise(candidates.map((candidate) => candidate.quality), 'higher-better');
  const carbon = normalise(candidates.map((candidate) => candidate.expectedCarbonGrams), 'lower-better');
  return candidates.map((_, index) => {
    const parts = { cost: cost[index] ?? 0, latency: latency[index] ?? 0, quality: quality[index] ?? 0, carbon: carbon[index] ?? 0 };
    const score = weights.cost * parts.cost + weights.latency * parts.latency + weights.quality * parts.quality + weights.carbon * parts.carbon;
    return { score, ...parts };
  });
}

export const balancedStrategy: RoutingStrategy = {
  name: 'balanced',
  rank(candidates, context) {
    const weights = normalisedWeights(context.settings);
    const blends = blendScores(candidates, weights);
    const ranked: RankedCandidate[] = candidates.map((candidate, index) => {
      const blend = blends[index] ?? { score: 0, cost: 0, latency: 0, quality: 0, carbon: 0 };
      return { candidate, score: blend.score, reason: blendReason(blend, weights) };
    });
    return ranked.sort((a, b) => b.score - a.score);
  },
};

function normalise(values: readonly number[], direction: 'lower-better' | 'higher-better'): number[] {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const value of values) {
    if (value < min) min = value;
    if (value > max) max = value;
  }
  const range = max - min;
  if (!(range > 0)) return values.map(() => 1);
  return values.map((value) => (direction === 'lower-better' ? (max - value) / range : (value - min) / range));
}

function blendReason(blend: BlendScore, weights: Weights): string {
  const parts = (['cost', 'latency', 'quality', 'carbon'] as const)
    .filter((criterion) => weights[criterion] > 0)
    .map((criterion) => `${criterion} ${blend[criterion].toFixed(2)}×${round(weights[criterion])}`);
  return `blend ${blend.score.toFixed(3)} (${parts.join(' + ')})`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
