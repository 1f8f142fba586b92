import type { AssistantMessage, FinishReason, ToolCall, Usage } from '../../providers/contract.js';
import type { WholeAnswer } from '../surface-adapter.js';
import type { ToolNames } from './convert-responses-tools.js';
import type { DecodedResponsesRequest, ResponseEcho, ResponsesContext } from './decoded-responses-request.js';
import type { ResponseItem } from './openai-responses-request-schema.js';
import type { StoreOutcome } from './response-store.js';

/**
 * The gateway's answer as OpenAI's `response` object (https://platform.openai.com/docs/api-reference/responses/object):
 * output items (`message` with `output_text` or `refusal` parts, `function_call`, `custom_tool_call`), `usage`, every
 * request parameter echoed as OpenAI echoes it, `output_text` (the SDKs' convenience) and the `_meta` every surface
 * gives. Shared by the whole answer and the stream's events, so both describe a response the same way.
 */

/** What names a response: its id, when it was made (Unix seconds) and the model that answers. */
export interface ResponseHead {
  readonly id: string;
  readonly createdAt: number;
  readonly model: string;
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponseState {
  readonly status: ResponseStatus;
  readonly output: readonly ResponseItem[];
  readonly usage: Usage | undefined;
  readonly incompleteReason?: 'max_output_tokens' | 'content_filter';
  readonly error?: { readonly code: string; readonly message: string };
  /** Unix seconds; completed responses only. */
  readonly completedAt?: number;
}

/** The response object; `meta` is left out of the events before the last. */
export function responseObject(head: ResponseHead, echo: ResponseEcho, state: ResponseState, meta?: unknown): Record<string, unknown> {
  return {
    id: head.id,
    object: 'response',
    created_at: head.createdAt,
    status: state.status,
    background: false,
    completed_at: state.completedAt ?? null,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason === undefined ? null : { reason: state.incompleteReason },
    instructions: echo.instructions,
    max_output_tokens: echo.max_output_tokens,
    max_tool_calls: null,
    model: head.model,
    output: state.output,
    parallel_tool_calls: echo.parallel_tool_calls,
    previous_response_id: echo.previous_response_id,
    prompt_cache_key: echo.prompt_cache_key,
    reasoning: echo.reasoning,
    safety_identifier: echo.safety_identifier,
    store: echo.store,
    temperature: echo.temperature,
    text: echo.text,
    tool_choice: echo.tool_choice,
    tools: echo.tools,
    top_logprobs: 0,
    top_p: echo.top_p,
    truncation: echo.truncation,
    usage: state.usage === undefined ? null : responsesUsage(state.usage),
    user: echo.user,
    metadata: echo.metadata,
    output_text: outputText(state.output),
    ...(meta === undefined ? {} : { _meta: meta }),
  };
}

/** `usage` in the Responses API's words; input tokens include the cached ones, as OpenAI counts them. */
export function responsesUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: { cached_tokens: usage.cachedPromptTokens ?? 0 },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/** The response's status from how the model stopped: cut short by the token limit or by a filter is `incomplete`. */
export function finishStatus(reason: FinishReason): Pick<ResponseState, 'status' | 'incompleteReason'> {
  if (reason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (reason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed' };
}

/** An output item's id: its kind's prefix, the response id's random part, its index in `output`. */
export function outputItemId(prefix: string, responseId: string, outputIndex: number): string {
  return `${prefix}${responseId.slice(responseId.indexOf('_') + 1)}_${outputIndex}`;
}

export function outputTextPart(text: string): Record<string, unknown> {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

export function messageItem(id: string, content: readonly Record<string, unknown>[], status: 'in_progress' | 'completed' | 'incomplete'): ResponseItem {
  return { id, type: 'message', status, role: 'assistant', content };
}

/** A call of the model's as a `function_call` item, or a `custom_tool_call` for a custom tool (its input unwrapped). */
export function toolCallItem(id: string, call: ToolCall, names: ToolNames, status: 'in_progress' | 'completed' | 'incomplete'): ResponseItem {
  const tool = names.get(call.function.name);
  const namespace = tool?.namespace === undefined ? {} : { namespace: tool.namespace };
  if (tool?.kind === 'custom') {
    return { id, type: 'custom_tool_call', status, call_id: call.id, name: tool.name, ...namespace, input: customInput(call.function.arguments) };
  }
  return { id, type: 'function_call', status, arguments: call.function.arguments, call_id: call.id, name: tool?.name ?? call.function.name, ...namespace };
}

/** A custom tool's input, given by the model as `{"input": "…"}`; anything else is passed on as it came. */
export function customInput(argumentsText: string): string {
  try {
    const parsed = JSON.parse(argumentsText) as { input?: unknown } | null;
    if (typeof parsed?.input === 'string') return parsed.input;
  } catch {
    // Not JSON: the text is the input.
  }
  return argumentsText;
}

/** A whole answer's output items: the message (text or refusal), then each call. */
export function outputItems(responseId: string, message: AssistantMessage, names: ToolNames, status: 'completed' | 'incomplete'): ResponseItem[] {
  const items: ResponseItem[] = [];
  const content: Record<string, unknown>[] = [];
  if (typeof message.content === 'string' && message.content !== '') content.push(outputTextPart(message.content));
  if (typeof message.refusal === 'string' && message.refusal !== '') content.push({ type: 'refusal', refusal: message.refusal });
  if (content.length > 0) items.push(messageItem(outputItemId('msg_', responseId, 0), content, status));
  for (const call of message.toolCalls ?? []) {
    const kind = names.get(call.function.name)?.kind === 'custom' ? 'ctc_' : 'fc_';
    items.push(toolCallItem(outputItemId(kind, responseId, items.length), call, names, 'completed'));
  }
  return items;
}

/** The SDKs' `output_text`: every `output_text` part of the output's messages, joined. */
function outputText(output: readonly ResponseItem[]): string {
  let text = '';
  for (const item of output) {
    if (item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content as { type?: unknown; text?: unknown }[]) if (part.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/**
 * Stores the response with its input items when the request asked (`store`, default true), before it is answered, so
 * a `previous_response_id` naming it can follow at once. Its `store` field then says whether it was stored.
 */
export async function keepResponse(response: Record<string, unknown>, request: DecodedResponsesRequest, { store }: ResponsesContext): Promise<{ response: Record<string, unknown>; outcome: StoreOutcome }> {
  if (!request.store) return { response, outcome: 'not_requested' };
  const outcome = store === undefined || request.ownerId === undefined
    ? 'disabled'
    : await store.save({ id: String(response.id), ownerId: request.ownerId, keyId: request.keyId, response, inputItems: request.inputItems });
  return { response: outcome === 'stored' ? response : { ...response, store: false }, outcome };
}

/** A whole answer as a response object, stored first when asked; the outcome goes in `x-modelport-response-stored`. */
export async function encodeOpenAIResponsesResponse<M>(
  answer: WholeAnswer<M>,
  request: DecodedResponsesRequest,
  context: ResponsesContext,
): Promise<{ body: Record<string, unknown>; outcome: StoreOutcome }> {
  const finish = finishStatus(answer.finishReason);
  const head = { id: answer.ids.id, createdAt: answer.ids.created, model: answer.model };
  const output = outputItems(answer.ids.id, answer.message, request.toolNames, finish.status === 'completed' ? 'completed' : 'incomplete');
  const completedAt = finish.status === 'completed' ? Math.max(answer.ids.created, Math.floor(context.now() / 1000)) : undefined;
  const response = responseObject(head, request.echo, { ...finish, output, usage: answer.usage, ...(completedAt === undefined ? {} : { completedAt }) }, answer.meta);
  const kept = await keepResponse(response, request, context);
  return { body: kept.response, outcome: kept.outcome };
}
