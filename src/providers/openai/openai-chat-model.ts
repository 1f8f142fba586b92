import {
  UpstreamError,
  type CallOptions,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type StreamPart,
  type ToolCall,
} from '../contract.js';
import type { UpstreamHttp } from '../http-client.js';
import { postJsonForStream } from '../post-for-stream.js';
import { postJsonForText, upstreamTarget } from '../post-json-text.js';
import { streamServerSentParts, type ServerSentPartMapping } from '../sse-part-stream.js';
import { convertOpenAIUsage } from './convert-openai-usage.js';
import { openAIStreamErrorSchema, type OpenAIChunk } from './openai-api.js';
import { mapOpenAIFinishReason } from './map-openai-finish-reason.js';
import { readChatResponse, readChunk } from './read-openai-response.js';

/** What a complete call adds to the request's fields. */
const NOT_STREAMED = { stream: false, stream_options: undefined };
const STREAMED = { stream: true, stream_options: { include_usage: true } };
const STREAMED_WITHOUT_USAGE = { stream: true, stream_options: undefined };

export interface OpenAIProviderSettings {
  /** Name used in `<provider>:<model>` ids and in errors. @default "openai" */
  readonly provider: string;
  /** Base URL ending in `/v1`, as OpenAI's own SDK takes it. @example "https://api.openai.com/v1" */
  readonly baseUrl: string;
  /** Bearer token; omitted for local servers that need none. */
  readonly apiKey?: string;
  readonly http: UpstreamHttp;
  /**
   * The chat-completions URL for a model, for upstreams that put the model in the
   * path (Azure OpenAI's deployments). @default `${baseUrl}/chat/completions`
   */
  readonly url?: (modelId: string) => string;
  /** Auth and other headers sent on every call, in place of `authorization: Bearer <apiKey>`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Whether the body names the model; false where the URL already does. @default true */
  readonly sendModelInBody?: boolean;
  /**
   * Whether streams ask for usage (`stream_options.include_usage`); false for
   * upstreams that refuse the field (Azure api-versions before 2024-08-01). @default true
   */
  readonly streamUsage?: boolean;
}

/** A chat model spoken to in OpenAI's chat-completions wire format. */
export function createOpenAIChatModel(settings: OpenAIProviderSettings, modelId: string): ChatModel {
  const url = settings.url?.(modelId) ?? `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = settings.headers ? { ...settings.headers } : settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  const provider = settings.provider;
  const modelField = settings.sendModelInBody === false ? {} : { model: modelId };
  const target = upstreamTarget(url);
  const generateHeaders = { 'content-type': 'application/json', accept: 'application/json', ...headers };
  const streamHeaders = { 'content-type': 'application/json', accept: 'text/event-stream', ...headers };
  // Usage is always asked for, so cost is right even when the client did not ask (a client's own stream_options is
  // replaced; left out, as undefined, for an upstream that refuses the field).
  const streamed = settings.streamUsage === false ? STREAMED_WITHOUT_USAGE : STREAMED;

  return {
    provider,
    modelId,

    async generate(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
      // stream_options left out as undefined (JSON.stringify skips it), not by `delete` (a slow dictionary for
      // JSON.stringify) nor by rest destructuring and spreads (about 3 µs a call, docs/performance.md).
      const body = Object.assign({}, request, modelField, NOT_STREAMED);
      const { text } = await postJsonForText(settings.http, provider, target, generateHeaders, body, options.signal);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw invalidResponse(provider, 'response body is not JSON');
      }
      const parsed = readChatResponse(json);
      if (parsed === undefined) throw invalidResponse(provider, 'response body does not match the chat-completion shape');
      const choice = parsed.choices[0];
      if (choice === undefined) throw invalidResponse(provider, 'response has no choices');
      const toolCalls: ToolCall[] | undefined = choice.message.tool_calls?.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.function.name, arguments: call.function.arguments },
      }));
      return {
        message: {
          content: choice.message.content ?? null,
          ...(toolCalls && toolCalls.length > 0 ? { toolCalls } : {}),
          ...(choice.message.refusal ? { refusal: choice.message.refusal } : {}),
        },
        finishReason: mapOpenAIFinishReason(choice.finish_reason),
        usage: convertOpenAIUsage(parsed.usage),
        systemFingerprint: parsed.system_fingerprint ?? null,
      };
    },

    async stream(request: ChatRequest, options: CallOptions): Promise<AsyncIterable<StreamPart>> {
      const body = Object.assign({}, request, modelField, streamed);
      const response = await postJsonForStream(settings.http, provider, target, streamHeaders, body, options.signal);
      return streamServerSentParts(provider, response.body, options.signal, openAIStreamMapping(provider));
    },
  };
}

/** OpenAI's chunks → parts: the answer is complete at [DONE]; a body that ends before a finish_reason was cut short. */
function openAIStreamMapping(provider: string): ServerSentPartMapping {
  let finished = false;
  return {
    event(event, push) {
      if (event.data === '[DONE]') return true;
      if (pushChunkParts(parseChunk(provider, event.data), push)) finished = true;
      return false;
    },
    end() {
      // A body that ends cleanly without [DONE] or a finish_reason was cut short
      // (a proxy, a crashed worker): the answer is incomplete, not done.
      if (!finished) throw invalidResponse(provider, 'stream ended before its finish_reason and [DONE]');
    },
  };
}

/** One stream event's chunk; throws an UpstreamError for an error event or a malformed chunk. */
function parseChunk(provider: string, data: string): OpenAIChunk {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw invalidResponse(provider, 'stream event is not JSON');
  }
  // Only a body with an `error` field can be an error event: a failed zod parse on every normal chunk would
  // build an error object with its issues each time, the largest share of a stream's garbage.
  const streamError = typeof json === 'object' && json !== null && 'error' in json ? openAIStreamErrorSchema.safeParse(json) : undefined;
  if (streamError?.success === true) {
    throw new UpstreamError({
      provider,
      kind: 'http',
      isRetryable: true,
      message: streamError.data.error.message ?? `${provider} sent an error event`,
      responseBody: data.slice(0, 4_096),
    });
  }
  const chunk = readChunk(json);
  if (chunk === undefined) throw invalidResponse(provider, 'stream chunk does not match the chunk shape');
  return chunk;
}

/** Pushes a chunk's parts; true when one was the finish. */
function pushChunkParts(chunk: OpenAIChunk, push: (part: StreamPart) => void): boolean {
  const choice = chunk.choices[0];
  if (choice !== undefined) {
    const delta = choice.delta;
    if (delta?.content) push({ type: 'text-delta', text: delta.content });
    if (delta?.refusal) push({ type: 'refusal-delta', text: delta.refusal });
    for (const call of delta?.tool_calls ?? []) {
      push({
        type: 'tool-call-delta',
        index: call.index,
        ...(call.id ? { id: call.id } : {}),
        ...(call.function?.name ? { name: call.function.name } : {}),
        argumentsDelta: call.function?.arguments ?? '',
      });
    }
    if (choice.finish_reason) push({ type: 'finish', finishReason: mapOpenAIFinishReason(choice.finish_reason) });
  }
  const usage = convertOpenAIUsage(chunk.usage);
  if (usage !== undefined) push({ type: 'usage', usage });
  return Boolean(choice?.finish_reason);
}

function invalidResponse(provider: string, detail: string): UpstreamError {
  return new UpstreamError({ provider, kind: 'invalid_response', isRetryable: true, message: `${provider}: ${detail}` });
}
