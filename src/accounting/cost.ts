import type { Usage } from '../providers/contract.js';
import type { ModelPricing, PriceTier } from '../catalog/catalog.js';
import { roundUsd } from '../lib/money.js';

/** The per-million-token prices one call pays. */
export interface AppliedPrices {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cachedInputPerMTok: number;
  /** Prompt tokens written to the cache; the input price when the model lists none. */
  readonly cacheWritePerMTok: number;
}

/**
 * The prices for a call with `promptTokens` prompt tokens (cached ones included):
 * the highest long-context tier the prompt exceeds, else the base prices. As
 * Google, Anthropic and OpenAI bill long prompts, the tier prices the whole
 * call, not just the tokens above its threshold.
 */
export function pricesForPrompt(pricing: ModelPricing, promptTokens: number): AppliedPrices {
  let tier: PriceTier | undefined;
  for (const candidate of pricing.tiers ?? []) {
    if (promptTokens > candidate.aboveInputTokens && (tier === undefined || candidate.aboveInputTokens > tier.aboveInputTokens)) tier = candidate;
  }
  const prices = tier ?? pricing;
  return {
    inputPerMTok: prices.inputPerMTok,
    outputPerMTok: prices.outputPerMTok,
    cachedInputPerMTok: prices.cachedInputPerMTok ?? prices.inputPerMTok,
    cacheWritePerMTok: prices.cacheWritePerMTok ?? prices.inputPerMTok,
  };
}

/** USD for one call from its real token counts and the model's list prices (long-context tiers included). */
export function computeCostUsd(usage: Usage, pricing: ModelPricing): number {
  return costAtPrices(usage, pricesForPrompt(pricing, usage.promptTokens));
}

/** USD for `usage` at the prices `pricesForPrompt` chose for it: each kind of token at its own price. */
export function costAtPrices(usage: Usage, prices: AppliedPrices): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const written = Math.min(usage.cacheWritePromptTokens ?? 0, usage.promptTokens - cached);
  const uncached = usage.promptTokens - cached - written;
  const micro =
    uncached * prices.inputPerMTok +
    cached * prices.cachedInputPerMTok +
    written * prices.cacheWritePerMTok +
    usage.completionTokens * prices.outputPerMTok;
  return roundUsd(micro / 1e6);
}
