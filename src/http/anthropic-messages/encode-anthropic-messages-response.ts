import type { AssistantMessage, FinishReason, ToolCall, Usage } from '../../providers/contract.js';
import type { WholeAnswer } from '../surface-adapter.js';

/**
 * The gateway's answer in Anthropic's Messages format
 * (https://docs.claude.com/en/api/messages, "Response").
 */

export type AnthropicStopReason = 'end_turn' | 'max_tokens' | 'tool_use' | 'refusal';

/**
 * `stop` is `end_turn`: providers report a matched stop sequence as a plain stop
 * without saying which, so `stop_sequence` is always null.
 */
export function anthropicStopReason(reason: FinishReason): AnthropicStopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case 'stop':
      return 'end_turn';
  }
}

/**
 * Anthropic counts cache reads and writes apart from `input_tokens`; the
 * gateway's prompt count includes both.
 */
export function anthropicUsage(usage: Usage): { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number } {
  const cached = usage.cachedPromptTokens ?? 0;
  const written = usage.cacheWritePromptTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.promptTokens - cached - written),
    output_tokens: usage.completionTokens,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
  };
}

/**
 * A tool call's arguments as the `input` object Anthropic's clients expect.
 * Arguments that are not a JSON object (a model can emit broken JSON) cannot be
 * an `input`: they become `{}`; the raw text is still in the stream's deltas.
 */
export function toolInput(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export type AnthropicResponseBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: Record<string, unknown> };

function contentBlocks(message: AssistantMessage): AnthropicResponseBlock[] {
  const blocks: AnthropicResponseBlock[] = [];
  // Anthropic has no refusal field: a refusal is the text of the answer, and stop_reason says "refusal".
  for (const text of [message.content, message.refusal]) if (typeof text === 'string' && text !== '') blocks.push({ type: 'text', text });
  for (const call of message.toolCalls ?? []) blocks.push(toolUseBlock(call));
  return blocks;
}

function toolUseBlock(call: ToolCall): AnthropicResponseBlock {
  return { type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) };
}

/** The `message` object of a non-streamed answer, with the gateway's `_meta`. */
export function encodeAnthropicMessagesResponse<M>(answer: WholeAnswer<M>): Record<string, unknown> {
  return {
    id: answer.ids.id,
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content: contentBlocks(answer.message),
    stop_reason: anthropicStopReason(answer.finishReason),
    stop_sequence: null,
    usage: anthropicUsage(answer.usage),
    _meta: answer.meta,
  };
}
