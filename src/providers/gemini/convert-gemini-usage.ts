import type { Usage } from '../contract.js';
import type { GeminiUsage } from './gemini-api.js';

/**
 * Gemini's usageMetadata onto the gateway's Usage.
 * - Tool-use prompt tokens (results of Google-run tools fed back to the model) are input.
 * - Thought tokens are billed as output, so they count as completion tokens too.
 * - promptTokenCount already includes the cached tokens.
 * https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function convertGeminiUsage(usage: GeminiUsage): Usage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const cached = usage.cachedContentTokenCount ?? 0;
  return {
    promptTokens: (usage.promptTokenCount ?? 0) + (usage.toolUsePromptTokenCount ?? 0),
    completionTokens: (usage.candidatesTokenCount ?? 0) + thoughts,
    ...(cached > 0 ? { cachedPromptTokens: cached } : {}),
    ...(thoughts > 0 ? { reasoningTokens: thoughts } : {}),
    estimated: false,
  };
}
