import { formatMs, rankByScore, type CandidateEstimate, type RankedCandidate, type RoutingStrategy, type StrategyContext } from './routing-strategy.js';

/**
 * `latency_optimized`: the lowest expected time to the whole answer,
 *
 *   expected latency = TTFT + expected output tokens / tokens per second
 *
 * from live moving averages per model (health) once a model has been measured,
 * else the catalog's typical figures. Score: that time in ms; lowest first.
 *
 * Exploration, so new and recovered models get measured (and a model measured
 * slow once is not written off forever):
 * 1. Warm-up: while an eligible model has fewer than `minSamples` measurements,
 *    the one with the fewest goes first (ties: the faster expected one).
 * 2. Otherwise, with probability `explorationRate` (ε-greedy), a uniformly
 *    chosen other eligible model goes first.
 * Only the first place changes; the rest keep their order, so fallback still
 * walks to the fastest models. Both draws use the injected `random`.
 */
export interface LatencyStrategyOptions {
  /** Measurements a model needs before its live figures are trusted without warm-up. @default 3 */
  readonly minSamples: number;
  /** Probability of trying a model other than the fastest, once all are warmed up. @default 0.05 */
  readonly explorationRate: number;
}

export const DEFAULT_LATENCY_OPTIONS: LatencyStrategyOptions = { minSamples: 3, explorationRate: 0.05 };

export function createLatencyStrategy(options: LatencyStrategyOptions = DEFAULT_LATENCY_OPTIONS): RoutingStrategy {
  return {
    name: 'latency_optimized',
    rank(candidates, context) {
      const ranked = rankByScore(candidates, 'lower-first', (candidate) => candidate.expectedLatencyMs, (candidate, ms) => latencyReason(candidate, ms));
      return explore(ranked, context, options);
    },
  };
}

export const latencyStrategy: RoutingStrategy = createLatencyStrategy();

function explore(ranked: RankedCandidate[], context: StrategyContext, options: LatencyStrategyOptions): RankedCandidate[] {
  if (ranked.length < 2) return ranked;
  let index = -1;
  let why = '';
  ranked.forEach((entry, at) => {
    const samples = entry.candidate.latencySamples;
    if (samples < options.minSamples && (index === -1 || samples < (ranked[index]?.candidate.latencySamples ?? 0))) index = at;
  });
  if (index !== -1) why = `exploring: ${samples(ranked[index]?.candidate.latencySamples ?? 0)} < ${options.minSamples} needed`;
  else if (context.random() < options.explorationRate) {
    index = 1 + Math.min(ranked.length - 2, Math.floor(context.random() * (ranked.length - 1)));
    why = `exploring: re-measuring (ε = ${options.explorationRate})`;
  }
  if (index <= 0) return ranked;
  const promoted = ranked[index];
  if (promoted === undefined) return ranked;
  const rest = ranked.filter((_, at) => at !== index);
  return [{ ...promoted, reason: `${why}; ${promoted.reason}` }, ...rest];
}

function latencyReason(candidate: CandidateEstimate, ms: number): string {
  const source = candidate.latencySource === 'measured' ? `measured, ${samples(candidate.latencySamples)}` : 'catalog figures';
  return `expected ${formatMs(ms)}: TTFT ${formatMs(candidate.ttftMs)} + ${candidate.outputTokens} tokens at ${Math.round(candidate.tokensPerSecond)} tok/s (${source})`;
}

function samples(count: number): string {
  return count === 1 ? '1 sample' : `${count} samples`;
}
