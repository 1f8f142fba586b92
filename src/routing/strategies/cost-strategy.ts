import { formatUsdEstimate } from '../../lib/money.js';
import { rankByScore, type RoutingStrategy } from './routing-strategy.js';

/**
 * `cost_optimized`: the lowest expected cost of this request, in USD: prompt
 * tokens (counted) at the input price plus expected output tokens
 * (estimates.ts) at the output price. Score: that cost; lowest first.
 */
export const costStrategy: RoutingStrategy = {
  name: 'cost_optimized',
  rank: (candidates) =>
    rankByScore(
      candidates,
      'lower-first',
      (candidate) => candidate.expectedCostUsd,
      (candidate, cost) => `expected ${formatUsdEstimate(cost)} (${candidate.promptTokens} prompt + ${candidate.outputTokens} output tokens)`,
    ),
};
