import type { ClientSignal } from '../../lib/client-abort.js';
import { UpstreamError, type CallOptions, type ChatModel, type ChatRequest, type ChatResult, type StreamPart, type ToolCall } from '../contract.js';
import { invalidResponse } from '../provider-errors.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { postJsonForStream, type UpstreamStream } from '../transport/post-for-stream.js';
import { postJsonForText } from '../transport/post-json-text.js';
import { upstreamTarget } from '../transport/upstream-call.js';
import { streamServerSentParts } from '../transport/sse-part-stream.js';
import { convertGeminiUsage } from './convert-gemini-usage.js';
import { geminiResponseSchema, type GeminiResponse } from './gemini-api.js';
import { failedGeneration, refineGeminiError } from './gemini-errors.js';
import { isFailedGeneration, mapGeminiFinishReason } from './map-gemini-finish-reason.js';
import { mapGeminiRequest } from './map-gemini-request.js';
import { geminiStreamMapping, toolCallId } from './map-gemini-stream.js';

export interface GeminiProviderSettings {
  /** Name used in `<provider>:<model>` ids and in errors. @default "gemini" */
  readonly provider: string;
  /** The bare host, as GEMINI_BASE_URL takes it. @example "https://generativelanguage.googleapis.com" */
  readonly baseUrl: string;
  /** Sent as `x-goog-api-key`; omitted for local servers that need none. */
  readonly apiKey?: string;
  readonly http: UpstreamHttp;
  /** @default "v1beta" (the version that has every field used here) */
  readonly apiVersion?: string;
}

/**
 * A chat model spoken to in the Gemini API's own format (generateContent and
 * streamGenerateContent?alt=sse), not through its OpenAI-compatible endpoint.
 * https://ai.google.dev/api/generate-content
 */
export function createGeminiChatModel(settings: GeminiProviderSettings, modelId: string): ChatModel {
  const provider = settings.provider;
  const base = `${settings.baseUrl.replace(/\/+$/, '')}/${settings.apiVersion ?? 'v1beta'}/${modelPath(modelId)}`;
  const headers: Record<string, string> = settings.apiKey ? { 'x-goog-api-key': settings.apiKey } : {};

  const generateTarget = upstreamTarget(`${base}:generateContent`);
  const generateHeaders = { 'content-type': 'application/json', accept: 'application/json', ...headers };
  const streamTarget = upstreamTarget(`${base}:streamGenerateContent?alt=sse`);
  const streamHeaders = { 'content-type': 'application/json', accept: 'text/event-stream', ...headers };

  const generateText = async (request: ChatRequest, signal: ClientSignal): Promise<string> => {
    const body = mapGeminiRequest(request, { provider, modelId });
    try {
      return (await postJsonForText(settings.http, provider, generateTarget, generateHeaders, body, signal)).text;
    } catch (error) {
      throw refined(error);
    }
  };

  const postStream = async (request: ChatRequest, signal: ClientSignal): Promise<UpstreamStream> => {
    const body = mapGeminiRequest(request, { provider, modelId });
    try {
      return await postJsonForStream(settings.http, provider, streamTarget, streamHeaders, body, signal);
    } catch (error) {
      throw refined(error);
    }
  };

  return {
    provider,
    modelId,

    async generate(request: ChatRequest, options: CallOptions): Promise<ChatResult> {
      const text = await generateText(request, options.signal);
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw invalidResponse(provider, 'response body is not JSON');
      }
      const parsed = geminiResponseSchema.safeParse(json);
      if (!parsed.success) throw invalidResponse(provider, 'response body does not match the GenerateContentResponse shape');
      return toChatResult(provider, parsed.data);
    },

    async stream(request: ChatRequest, options: CallOptions): Promise<AsyncIterable<StreamPart>> {
      const response = await postStream(request, options.signal);
      return streamServerSentParts(provider, response.body, options.signal, geminiStreamMapping(provider));
    },
  };
}

/** `gemini-2.5-flash` is a model of the `models` collection; `tunedModels/…` and `models/…` are full names. */
function modelPath(modelId: string): string {
  const name = modelId.includes('/') ? modelId : `models/${modelId}`;
  return name.split('/').map(encodeURIComponent).join('/');
}

function toChatResult(provider: string, response: GeminiResponse): ChatResult {
  const usage = convertGeminiUsage(response.usageMetadata);
  const candidate = response.candidates?.[0];
  if (candidate === undefined) {
    // The prompt itself was blocked: a finished, filtered answer, as OpenAI reports filtered output.
    if (response.promptFeedback?.blockReason) return { message: { content: null }, finishReason: 'content_filter', usage };
    throw invalidResponse(provider, 'response has neither candidates nor a promptFeedback.blockReason');
  }
  if (isFailedGeneration(candidate.finishReason)) throw failedGeneration(provider, candidate);
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const part of candidate.content?.parts ?? []) {
    if (part.functionCall) {
      const id = toolCallId(response.responseId, toolCalls.length, part.functionCall.id);
      toolCalls.push({ id, type: 'function', function: { name: part.functionCall.name, arguments: JSON.stringify(part.functionCall.args ?? {}) } });
    } else if (part.text && part.thought !== true) {
      text += part.text;
    }
  }
  return {
    message: { content: text === '' ? null : text, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
    finishReason: mapGeminiFinishReason(candidate.finishReason, toolCalls.length > 0),
    usage,
  };
}

/** An upstream error completed with what only Google's error body says; anything else as it is. */
function refined(error: unknown): unknown {
  return error instanceof UpstreamError ? refineGeminiError(error) : error;
}
