import type { Usage } from '../providers/contract.js';
import type { ModelPricing } from '../routing/catalog.js';

/** USD for one call from its real token counts and the model's list prices. */
export function computeCostUsd(usage: Usage, pricing: ModelPricing): number {
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const uncached = usage.promptTokens - cached;
  const cachedPrice = pricing.cachedInputPerMTok ?? pricing.inputPerMTok;
  const micro = uncached * pricing.inputPerMTok + cached * cachedPrice + usage.completionTokens * pricing.outputPerMTok;
  // Rounded to 1e-10 USD so float noise never shows up in totals.
  return Math.round(micro / 1e-4) / 1e10;
}
