import type { CallOptions, ChatModel, ChatRequest, ChatResult, StreamPart, ToolCall } from '../contract.js';
import { parseJsonOrUndefined } from '../parse-json.js';
import { invalidResponse } from '../provider-errors.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { postJsonForStream } from '../transport/post-for-stream.js';
import { postJsonForText } from '../transport/post-json-text.js';
import { upstreamTarget } from '../transport/upstream-call.js';
import { streamServerSentParts } from '../transport/sse-part-stream.js';
import { anthropicMessageSchema, textBlockSchema, toolUseBlockSchema } from './anthropic-api.js';
import { convertAnthropicUsage } from './convert-anthropic-usage.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';
import { mapAnthropicRequest } from './map-anthropic-request.js';
import { anthropicStreamMapping } from './map-anthropic-stream.js';

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
      const parsed = anthropicMessageSchema.safeParse(parseJsonOrUndefined(text));
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
