import type { AssistantMessage, FinishReason, Usage } from '../providers/contract.js';
import type { AgentMeta } from '../agents/agent-executor.js';
import type { RoutingMeta } from '../routing/plan-route.js';

/** The `_meta` object of a router response (spec 2.3), plus ModelPort's extra fields. */
export interface RouterMeta {
  readonly modelUsed: string;
  readonly cost: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  /** Manufacturing emissions of the hardware for this call, apart from carbonGrams. */
  readonly embodiedCarbonGrams: number;
  readonly routerDecision: string;
  readonly routerId: string;
  readonly requestId: string;
  readonly provider: string;
  readonly usageEstimated: boolean;
  readonly timeToFirstTokenMs?: number;
  readonly attempts: readonly { model: string; outcome: string; reason?: string; status?: number; latencyMs: number }[];
  /** The models the router considered, ranked with reasons, and those it dropped (docs/routing.md). */
  readonly routing: RoutingMeta;
}

export function openAIUsage(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    ...(usage.cachedPromptTokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cachedPromptTokens } } : {}),
    ...(usage.reasoningTokens !== undefined ? { completion_tokens_details: { reasoning_tokens: usage.reasoningTokens } } : {}),
  };
}

export function chatCompletionBody(input: {
  id: string;
  created: number;
  model: string;
  message: AssistantMessage;
  finishReason: FinishReason;
  usage: Usage;
  systemFingerprint: string | null | undefined;
  meta: RouterMeta | AgentMeta;
}): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: input.message.content, refusal: input.message.refusal ?? null };
  if (input.message.toolCalls && input.message.toolCalls.length > 0) message.tool_calls = input.message.toolCalls;
  return {
    id: input.id,
    object: 'chat.completion',
    created: input.created,
    model: input.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: input.finishReason }],
    usage: openAIUsage(input.usage),
    system_fingerprint: input.systemFingerprint ?? null,
    _meta: input.meta,
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
