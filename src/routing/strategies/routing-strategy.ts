import type { ChatRequest } from '../../providers/contract.js';
import type { ModelInfo } from '../../catalog/catalog.js';
import type { RouterSettings } from '../routing-contract.js';

/**
 * The one interface every routing strategy implements. A strategy only orders
 * models that can already serve the request (eligibility.ts filters first);
 * fallback and health are mechanisms beside it, not cases inside it.
 */

export const STRATEGY_NAMES = [
  'cost_optimized',
  'latency_optimized',
  'quality_optimized',
  'carbon_optimized',
  'balanced',
  'auto',
] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];

export function isStrategyName(value: string): value is StrategyName {
  return (STRATEGY_NAMES as readonly string[]).includes(value);
}

/** One eligible model with what this request is expected to cost it (estimates.ts). */
export interface CandidateEstimate {
  readonly model: ModelInfo;
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** USD at list price (no cache hit is assumed before the provider reports one). */
  readonly expectedCostUsd: number;
  /** Time to first token plus the expected output at the expected speed, ms. */
  readonly expectedLatencyMs: number;
  readonly ttftMs: number;
  readonly tokensPerSecond: number;
  /** `measured`: live moving averages from health; `catalog`: the catalog's typical figures. */
  readonly latencySource: 'measured' | 'catalog';
  /** How many calls the live latency figures rest on (0 when unmeasured). */
  readonly latencySamples: number;
  readonly expectedCarbonGrams: number;
  /** The catalog's quality rating (LMArena-style text score). */
  readonly quality: number;
}

/** What a strategy may know besides the candidates. Clock and randomness are injected, never global. */
export interface StrategyContext {
  readonly settings: RouterSettings;
  /** Epoch milliseconds. */
  readonly now: number;
  /** Uniform in [0, 1); `Math.random` in production, fixed in tests. */
  readonly random: () => number;
  /** The request being routed, for strategies that read the prompt (`auto`). */
  readonly request: ChatRequest;
  /** Where a strategy leaves what the plan reports beyond the ranking; planRoute passes one per decision. */
  readonly notes?: StrategyNotes;
}

/** What a strategy tells the plan beside its ranking. */
export interface StrategyNotes {
  auto?: AutoPlanNote;
}

/** `auto`: what feedback and savings need of this decision. */
export interface AutoPlanNote {
  /** The prompt vector (auto/prompt-vector.ts), base64: what a label on this request is fitted on. */
  readonly promptVector: string;
  /** Whether Thompson sampling changed the first choice. */
  readonly explored: boolean;
  /** The candidate with the highest predicted quality: the "always use the strongest" counterfactual. */
  readonly strongestModel: string;
}

export interface RankedCandidate {
  readonly candidate: CandidateEstimate;
  /**
   * The number the strategy sorted by, in its own unit: USD (cost), ms
   * (latency), quality rating (quality), grams CO2e (carbon), blend 0..1 (balanced, auto).
   */
  readonly score: number;
  /** A short reason for people, e.g. "expected $0.00012". */
  readonly reason: string;
  /** `auto` only: the predicted probability of a good answer, 0..1. */
  readonly predictedQuality?: number;
}

export interface RoutingStrategy {
  readonly name: StrategyName;
  /**
   * Orders `candidates` best-first. Returns a permutation of exactly the
   * candidates given; ties keep their order (the owner's order of preference).
   */
  rank(candidates: readonly CandidateEstimate[], context: StrategyContext): RankedCandidate[];
}

/**
 * Scores every candidate and sorts by score (ascending when lower is better),
 * stably, so equal scores keep the owner's order.
 */
export function rankByScore(
  candidates: readonly CandidateEstimate[],
  direction: 'lower-first' | 'higher-first',
  score: (candidate: CandidateEstimate) => number,
  reason: (candidate: CandidateEstimate, score: number) => string,
): RankedCandidate[] {
  const scored = candidates.map((candidate) => {
    const value = score(candidate);
    return { candidate, score: value, reason: reason(candidate, value) };
  });
  const sign = direction === 'lower-first' ? 1 : -1;
  return scored.sort((a, b) => sign * (a.score - b.score));
}

/** Milliseconds for people: 310 ms, 2.4 s. */
export function formatMs(value: number): string {
  return value < 1000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`;
}
