import {
  UpstreamError,
  type CallOptions,
  type ChatModel,
  type ChatRequest,
  type ChatResult,
  type StreamPart,
  type ToolCall,
} from '../contract.js';
import { postJson, toUpstreamError, type UpstreamHttp } from '../http-client.js';
import { readServerSentEvents } from '../sse.js';
import { convertOpenAIUsage } from './convert-openai-usage.js';
import { openAIChatResponseSchema, openAIChunkSchema, openAIStreamErrorSchema } from './openai-api.js';
import { mapOpenAIFinishReason } from './map-openai-finish-reason.js';

export interface OpenAIProviderSettings {
  /** Name used in `<provider>:<model>` ids and in errors. @default "openai" */
  readonly provider: string;
  /** Base URL ending in `/v1`, as OpenAI's own SDK takes it. @example "https://api.openai.com/v1" */
  readonly baseUrl: string;
  /** Bearer token; omitted for local servers that need none. */
  readonly apiKey?: string;
  readonly http: UpstreamHttp;
}

/** A chat model spoken to in OpenAI's chat-completions wire format. */
export function createOpenAIChatModel(settings: OpenAIProviderSettings, modelId: string): ChatModel {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  const provider = settings.provider;

  return {
    provider,
    modelId,

    async generate(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
      const body = { ...request, model: modelId, stream: false };
      delete (body as { stream_options?: unknown }).stream_options;
      const response = await postJson(settings.http, provider, url, headers, body, options.signal);
      let json: unknown;
      try {
        json = await response.body.json();
      } catch (error) {
        throw toUpstreamError(provider, error, options.signal);
      }
      const parsed = openAIChatResponseSchema.safeParse(json);
      if (!parsed.success) throw invalidResponse(provider, 'response body does not match the chat-completion shape');
      const choice = parsed.data.choices[0];
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
        usage: convertOpenAIUsage(parsed.data.usage),
        systemFingerprint: parsed.data.system_fingerprint ?? null,
      };
    },

    async stream(request: ChatRequest, options: CallOptions): Promise<AsyncIterable<StreamPart>> {
      // Usage is always asked for, so cost is right even when the client did not ask.
      const body = { ...request, model: modelId, stream: true, stream_options: { include_usage: true } };
      const response = await postJson(settings.http, provider, url, { ...headers, accept: 'text/event-stream' }, body, options.signal);
      return mapOpenAIStream(provider, response.body, options.signal);
    },
  };
}

async function* mapOpenAIStream(
  provider: string,
  body: AsyncIterable<Buffer | string>,
  signal: AbortSignal,
): AsyncGenerator<StreamPart> {
  try {
    for await (const event of readServerSentEvents(body)) {
      if (event.data === '[DONE]') return;
      let json: unknown;
      try {
        json = JSON.parse(event.data);
      } catch {
        throw invalidResponse(provider, 'stream event is not JSON');
      }
      const streamError = openAIStreamErrorSchema.safeParse(json);
      if (streamError.success) {
        throw new UpstreamError({
          provider,
          kind: 'http',
          isRetryable: true,
          message: streamError.data.error.message ?? `${provider} sent an error event`,
          responseBody: event.data.slice(0, 4_096),
        });
      }
      const parsed = openAIChunkSchema.safeParse(json);
      if (!parsed.success) throw invalidResponse(provider, 'stream chunk does not match the chunk shape');
      yield* chunkToParts(parsed.data);
    }
  } catch (error) {
    throw toUpstreamError(provider, error, signal);
  }
}

function* chunkToParts(chunk: import('./openai-api.js').OpenAIChunk): Generator<StreamPart> {
  const choice = chunk.choices[0];
  if (choice !== undefined) {
    const delta = choice.delta;
    if (delta?.content) yield { type: 'text-delta', text: delta.content };
    if (delta?.refusal) yield { type: 'refusal-delta', text: delta.refusal };
    for (const call of delta?.tool_calls ?? []) {
      yield {
        type: 'tool-call-delta',
        index: call.index,
        ...(call.id ? { id: call.id } : {}),
        ...(call.function?.name ? { name: call.function.name } : {}),
        argumentsDelta: call.function?.arguments ?? '',
      };
    }
    if (choice.finish_reason) yield { type: 'finish', finishReason: mapOpenAIFinishReason(choice.finish_reason) };
  }
  const usage = convertOpenAIUsage(chunk.usage);
  if (usage !== undefined) yield { type: 'usage', usage };
}

function invalidResponse(provider: string, detail: string): UpstreamError {
  return new UpstreamError({ provider, kind: 'invalid_response', isRetryable: true, message: `${provider}: ${detail}` });
}
