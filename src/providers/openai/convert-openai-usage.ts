import type { Usage } from '../contract.js';
import type { OpenAIUsage } from './openai-api.js';

export function convertOpenAIUsage(usage: OpenAIUsage): Usage | undefined {
  if (usage === null || usage === undefined) return undefined;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    ...(typeof cached === 'number' && cached > 0 ? { cachedPromptTokens: cached } : {}),
    ...(typeof reasoning === 'number' && reasoning > 0 ? { reasoningTokens: reasoning } : {}),
    estimated: false,
  };
}
