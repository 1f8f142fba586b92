import { estimateCarbonGrams } from '../accounting/carbon.js';
import { computeCostUsd } from '../accounting/cost.js';
import type { ModelInfo } from './catalog.js';

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

/** What the strategies know about the request being routed. */
export interface RoutingContext {
  readonly promptTokens: number;
  /** The caller's max_tokens, if any. */
  readonly maxTokens: number | undefined;
  readonly needsTools: boolean;
  readonly needsVision: boolean;
}

export interface RankedCandidate {
  readonly model: ModelInfo;
  readonly expectedCostUsd: number;
  readonly expectedLatencyMs: number;
  readonly expectedCarbonGrams: number;
}

export interface DroppedCandidate {
  readonly id: string;
  readonly reason: string;
}

const DEFAULT_EXPECTED_OUTPUT_TOKENS = 256;

/** Drops the models that cannot serve this request, with the reason for each. */
export function filterEligible(models: readonly ModelInfo[], context: RoutingContext): { eligible: ModelInfo[]; dropped: DroppedCandidate[] } {
  const eligible: ModelInfo[] = [];
  const dropped: DroppedCandidate[] = [];
  for (const model of models) {
    const needed = context.promptTokens + (context.maxTokens ?? 0);
    if (needed > model.contextWindow) dropped.push({ id: model.id, reason: `context window ${model.contextWindow} < ${needed} tokens needed` });
    else if (context.needsTools && !model.capabilities.tools) dropped.push({ id: model.id, reason: 'does not support tools' });
    else if (context.needsVision && !model.capabilities.vision) dropped.push({ id: model.id, reason: 'does not accept images' });
    else eligible.push(model);
  }
  return { eligible, dropped };
}

function expectations(model: ModelInfo, context: RoutingContext): RankedCandidate {
  const outputTokens = Math.min(context.maxTokens ?? DEFAULT_EXPECTED_OUTPUT_TOKENS, model.maxOutputTokens);
  const usage = { promptTokens: context.promptTokens, completionTokens: outputTokens, estimated: true };
  const generationMs = (outputTokens / model.typicalTokensPerSecond) * 1000;
  return {
    model,
    expectedCostUsd: computeCostUsd(usage, model.pricing),
    expectedLatencyMs: model.typicalTtftMs + generationMs,
    expectedCarbonGrams: estimateCarbonGrams(usage, model, generationMs),
  };
}

/**
 * Orders eligible models best-first for the strategy. Ties keep the owner's
 * order of preference (the sort is stable).
 * The routing engine issue replaces the simple rules here with one module per strategy.
 */
export function rankCandidates(strategy: StrategyName, models: readonly ModelInfo[], context: RoutingContext): RankedCandidate[] {
  const ranked = models.map((model) => expectations(model, context));
  switch (strategy) {
    case 'cost_optimized':
      return ranked.sort((a, b) => a.expectedCostUsd - b.expectedCostUsd);
    case 'latency_optimized':
      return ranked.sort((a, b) => a.expectedLatencyMs - b.expectedLatencyMs);
    case 'quality_optimized':
      return ranked.sort((a, b) => b.model.qualityScore - a.model.qualityScore);
    case 'carbon_optimized':
      return ranked.sort((a, b) => a.expectedCarbonGrams - b.expectedCarbonGrams);
    case 'balanced':
    case 'auto': {
      const score = balancedScores(ranked);
      return ranked.map((candidate, index) => ({ candidate, score: score[index] ?? 0 })).sort((a, b) => b.score - a.score).map((entry) => entry.candidate);
    }
  }
}

/** Equal-weight blend of the four criteria, each min-max normalised to 0..1 (1 best). */
function balancedScores(ranked: readonly RankedCandidate[]): number[] {
  const normalise = (values: number[], higherIsBetter: boolean) => {
    const min = Math.min(...values);
    const max = Math.max(...values);
    return values.map((value) => (max === min ? 1 : higherIsBetter ? (value - min) / (max - min) : (max - value) / (max - min)));
  };
  const cost = normalise(ranked.map((c) => c.expectedCostUsd), false);
  const latency = normalise(ranked.map((c) => c.expectedLatencyMs), false);
  const quality = normalise(ranked.map((c) => c.model.qualityScore), true);
  const carbon = normalise(ranked.map((c) => c.expectedCarbonGrams), false);
  return ranked.map((_, i) => ((cost[i] ?? 0) + (latency[i] ?? 0) + (quality[i] ?? 0) + (carbon[i] ?? 0)) / 4);
}
