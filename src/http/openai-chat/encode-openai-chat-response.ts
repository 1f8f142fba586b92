import type { FinishReason, Usage } from '../../providers/contract.js';
import type { WholeAnswer } from '../surface-adapter.js';

export function openAIUsage(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedPromptTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens } } : {}),
    ...(usage.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
  };
}

/** A `chat.completion` object (spec 2.2), with the router's or the agent's `_meta`. */
export function encodeOpenAIChatResponse<M>(answer: WholeAnswer<M>): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: answer.message.content, refusal: answer.message.refusal ?? null };
  if (answer.message.toolCalls && answer.message.toolCalls.length > 0) message.tool_calls = answer.message.toolCalls;
  return {
    id: answer.ids.id,
    object: 'chat.completion',
    created: answer.ids.created,
    model: answer.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    usage: openAIUsage(answer.usage),
    system_fingerprint: answer.systemFingerprint ?? null,
    _meta: answer.meta,
  };
}

/** A `chat.completion.chunk` with one choice; `extra` adds `usage` / `_meta` on the final chunks. */
export function chunkBody(
  base: { id: string; created: number; model: string },
  delta: Record<string, unknown> | undefined,
  finishReason: FinishReason | null,
  extra: Record<string, unknown> = {},
): string {
  const choices = delta === undefined ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finishReason }];
  return JSON.stringify({ id: base.id, object: 'chat.completion.chunk', created: base.created, model: base.model, choices, ...extra });
}
