import type { CallOptions, ChatModel, ChatRequest, ChatResult, StreamPart, ToolCall } from '../contract.js';
import { invalidResponse } from '../provider-errors.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { postJsonForStream } from '../transport/post-for-stream.js';
import { postJsonForText } from '../transport/post-json-text.js';
import { upstreamTarget } from '../transport/upstream-call.js';
import { streamServerSentParts } from '../transport/sse-part-stream.js';
import { convertOpenAIUsage } from './convert-openai-usage.js';
import { mapOpenAIFinishReason } from './map-openai-finish-reason.js';
import { openAIStreamMapping } from './map-openai-stream.js';
import { readChatResponse } from './read-openai-response.js';

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
