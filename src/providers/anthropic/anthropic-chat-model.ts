import type { z } from 'zod';
import type { CallOptions, ChatModel, ChatRequest, ChatResult, FinishReason, StreamPart, ToolCall } from '../contract.js';
import type { UpstreamHttp } from '../http-client.js';
import { postJsonForStream } from '../post-for-stream.js';
import { postJsonForText, upstreamTarget } from '../post-json-text.js';
import { streamServerSentParts, type ServerSentPartMapping } from '../sse-part-stream.js';
import {
  anthropicErrorSchema,
  anthropicMessageSchema,
  contentBlockDeltaEventSchema,
  contentBlockStartEventSchema,
  contentBlockStopEventSchema,
  messageDeltaEventSchema,
  messageStartEventSchema,
  streamEventHeadSchema,
  textBlockSchema,
  toolUseBlockSchema,
  type AnthropicUsage,
} from './anthropic-api.js';
import { invalidResponse, streamErrorToUpstreamError } from './anthropic-errors.js';
import { convertAnthropicUsage } from './convert-anthropic-usage.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';
import { mapAnthropicRequest } from './map-anthropic-request.js';

export interface AnthropicProviderSettings {
  /** Name used in `<provider>:<model>` ids and in errors. @default "anthropic" */
  readonly provider: string;
  /** Bare origin, as ANTHROPIC_BASE_URL is for Anthropic's SDK. @example "https://api.anthropic.com" */
  readonly baseUrl: string;
  /** Sent as `x-api-key`; omitted for proxies that add their own. */
  readonly apiKey?: string;
  readonly http: UpstreamHttp;
  /** The `anthropic-version` header. @default "2023-06-01" */
  readonly anthropicVersion?: string;
  /** `max_tokens` when the request sets neither max_completion_tokens nor max_tokens. @default 4096 */
  readonly defaultMaxTokens?: number;
}

/** A Claude model spoken to in Anthropic's native Messages API (never its OpenAI-compatible endpoint). */
export function createAnthropicChatModel(settings: AnthropicProviderSettings, modelId: string): ChatModel {
  // A base URL given with /v1 (as OpenAI-style settings often are) must not become /v1/v1/messages.
  const url = `${settings.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1/messages`;
  const headers: Record<string, string> = {
    'anthropic-version': settings.anthropicVersion ?? '2023-06-01',
    ...(settings.apiKey ? { 'x-api-key': settings.apiKey } : {}),
  };
  const provider = settings.provider;
  const target = upstreamTarget(url);
  const generateHeaders = { 'content-type': 'application/json', accept: 'application/json', ...headers };
  const streamHeaders = { 'content-type': 'application/json', accept: 'text/event-stream', ...headers };
  const requestOptions = { provider, modelId, ...(settings.defaultMaxTokens !== undefined ? { defaultMaxTokens: settings.defaultMaxTokens } : {}) };

  return {
    provider,
    modelId,

    async generate(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
      const body = mapAnthropicRequest(request, { ...requestOptions, stream: false });
      const { text } = await postJsonForText(settings.http, provider, target, generateHeaders, body, options.signal);
      const parsed = anthropicMessageSchema.safeParse(parseJson(text));
      if (!parsed.success) throw invalidResponse(provider, 'response body is not an Anthropic message');
      const texts: string[] = [];
      const toolCalls: ToolCall[] = [];
      // Thinking, redacted thinking and server-tool blocks are Anthropic's own: not part of the OpenAI answer.
      for (const block of parsed.data.content) {
        const asText = textBlockSchema.safeParse(block);
        if (asText.success) texts.push(asText.data.text);
        const asToolUse = toolUseBlockSchema.safeParse(block);
        if (asToolUse.success) {
          const { id, name, input } = asToolUse.data;
          toolCalls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(input ?? {}) } });
        }
      }
      return {
        message: { content: texts.length > 0 ? texts.join('') : null, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
        finishReason: mapAnthropicFinishReason(parsed.data.stop_reason),
        usage: convertAnthropicUsage(parsed.data.usage),
      };
    },

    async stream(request: ChatRequest, options: CallOptions): Promise<AsyncIterable<StreamPart>> {
      const body = mapAnthropicRequest(request, { ...requestOptions, stream: true });
      const response = await postJsonForStream(settings.http, provider, target, streamHeaders, body, options.signal);
      return streamServerSentParts(provider, response.body, options.signal, anthropicStreamMapping(provider));
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A tool_use block being streamed: its place among the tool calls, and whether arguments came. */
interface OpenToolCall {
  readonly index: number;
  hasArguments: boolean;
}

/**
 * Anthropic's stream events → StreamParts
 * (https://docs.claude.com/en/docs/build-with-claude/streaming#event-types).
 * The finish part comes with `message_delta`, the usage part (input counts from
 * `message_start`, output counts from `message_delta`) with `message_stop`.
 */
function anthropicStreamMapping(provider: string): ServerSentPartMapping {
  const toolCalls = new Map<number, OpenToolCall>();
  let startUsage: AnthropicUsage | null | undefined;
  let deltaUsage: AnthropicUsage | null | undefined;
  let finishReason: FinishReason | undefined;
  const pushUsage = (push: (part: StreamPart) => void) => {
    const usage = convertAnthropicUsage(startUsage, deltaUsage);
    if (usage !== undefined) push({ type: 'usage', usage });
  };
  return {
    event(event, push) {
      const json = parseJson(event.data);
      const head = streamEventHeadSchema.safeParse(json);
      if (!head.success) throw invalidResponse(provider, 'stream event is not an Anthropic event');
      switch (head.data.type) {
        case 'message_start': {
          startUsage = parseEvent(provider, messageStartEventSchema, json).message.usage;
          break;
        }
        case 'content_block_start': {
          const { index, content_block: block } = parseEvent(provider, contentBlockStartEventSchema, json);
          if (block.type === 'text' && block.text) push({ type: 'text-delta', text: block.text });
          if (block.type === 'tool_use') {
            const call: OpenToolCall = { index: toolCalls.size, hasArguments: false };
            toolCalls.set(index, call);
            push({ type: 'tool-call-delta', index: call.index, ...(block.id ? { id: block.id } : {}), ...(block.name ? { name: block.name } : {}), argumentsDelta: '' });
          }
          break;
        }
        case 'content_block_delta': {
          const { index, delta } = parseEvent(provider, contentBlockDeltaEventSchema, json);
          if (delta.type === 'text_delta' && delta.text) push({ type: 'text-delta', text: delta.text });
          const call = toolCalls.get(index);
          // input_json_delta of server tools (web search…) has no tool call: it is skipped, as thinking is.
          if (delta.type === 'input_json_delta' && call !== undefined && delta.partial_json) {
            call.hasArguments = true;
            push({ type: 'tool-call-delta', index: call.index, argumentsDelta: delta.partial_json });
          }
          break;
        }
        case 'content_block_stop': {
          const call = toolCalls.get(parseEvent(provider, contentBlockStopEventSchema, json).index);
          // A call without arguments streams none, where a complete answer says `{}`: say `{}` too.
          if (call !== undefined && !call.hasArguments) push({ type: 'tool-call-delta', index: call.index, argumentsDelta: '{}' });
          break;
        }
        case 'message_delta': {
          const { delta, usage } = parseEvent(provider, messageDeltaEventSchema, json);
          if (usage) deltaUsage = usage;
          if (delta.stop_reason && finishReason === undefined) {
            finishReason = mapAnthropicFinishReason(delta.stop_reason);
            push({ type: 'finish', finishReason });
          }
          break;
        }
        case 'message_stop':
          // The rest of the body is read to its end, so the connection can be reused; a failure there takes nothing.
          pushUsage(push);
          return true;
        case 'error': {
          const error = anthropicErrorSchema.safeParse(json);
          if (!error.success) throw invalidResponse(provider, 'stream error event is not an Anthropic error');
          throw streamErrorToUpstreamError(provider, error.data, event.data);
        }
        // ping, and event types added after this was written.
        default:
          break;
      }
      return false;
    },
    end(push) {
      // A body cut after the stop reason lost nothing but message_stop; one cut before it is incomplete.
      if (finishReason === undefined) throw invalidResponse(provider, 'stream ended before its stop_reason and message_stop');
      pushUsage(push);
    },
  };
}

function parseEvent<T>(provider: string, schema: z.ZodType<T>, json: unknown): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw invalidResponse(provider, 'stream event does not match its Anthropic shape');
  return parsed.data;
}
