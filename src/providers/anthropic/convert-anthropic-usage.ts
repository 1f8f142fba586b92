import type { Usage } from '../contract.js';
import type { AnthropicUsage } from './anthropic-api.js';

/**
 * Anthropic counts cached prompt tokens apart from `input_tokens`
 * (https://docs.claude.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance):
 * the whole prompt is input + cache writes + cache reads. Cache reads are
 * billed at the cached rate, cache writes at the cache-write rate (1.25× the
 * input price for 5-minute caching), so both are reported apart.
 *
 * `latest` (a stream's `message_delta`) wins field by field over `first`
 * (its `message_start`), since its counts are cumulative.
 */
export function convertAnthropicUsage(first: AnthropicUsage | null | undefined, latest?: AnthropicUsage | null): Usage | undefined {
  const pick = (field: 'input_tokens' | 'output_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens'): number | undefined => {
    const value = latest?.[field] ?? first?.[field];
    return typeof value === 'number' ? value : undefined;
  };
  const input = pick('input_tokens');
  const output = pick('output_tokens');
  if (input === undefined && output === undefined) return undefined;
  const cacheWrite = pick('cache_creation_input_tokens') ?? 0;
  const cacheRead = pick('cache_read_input_tokens') ?? 0;
  return {
    promptTokens: (input ?? 0) + cacheWrite + cacheRead,
    completionTokens: output ?? 0,
    ...(cacheRead > 0 ? { cachedPromptTokens: cacheRead } : {}),
    ...(cacheWrite > 0 ? { cacheWritePromptTokens: cacheWrite } : {}),
    estimated: false,
  };
}
