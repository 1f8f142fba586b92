import type { Usage } from '../contract.js';
import type { BedrockUsage } from './bedrock-api.js';

/**
 * Converse's TokenUsage onto the gateway's Usage. `inputTokens` counts the
 * prompt tokens that were neither read from nor written to the cache (as
 * Anthropic's `input_tokens` does; `totalTokens` is input + output + both cache
 * counts), so the whole prompt is their sum; reads and writes are reported apart
 * so each is billed at its own rate.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */
export function convertBedrockUsage(usage: BedrockUsage | null | undefined): Usage | undefined {
  if (usage === null || usage === undefined) return undefined;
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  return {
    promptTokens: (usage.inputTokens ?? 0) + cacheRead + cacheWrite,
    completionTokens: usage.outputTokens ?? 0,
    ...(cacheRead > 0 ? { cachedPromptTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWritePromptTokens: cacheWrite } : {}),
    estimated: false,
  };
}
