import type { SurfaceAdapter } from '../surface-adapter.js';
import { decodeOpenAIResponsesRequest } from './decode-openai-responses-request.js';
import type { DecodedResponsesRequest, ResponsesContext } from './decoded-responses-request.js';
import { encodeOpenAIResponsesResponse } from './encode-openai-responses-response.js';
import type { OpenAIResponsesRequestBody } from './openai-responses-request-schema.js';
import { createOpenAIResponsesStreamEncoder } from './openai-responses-stream-encoder.js';
import type { StoreOutcome } from './response-store.js';

/** The Responses surface, and how each whole answer it encoded was stored (for `x-modelport-response-stored`). */
export interface OpenAIResponsesSurface extends SurfaceAdapter<OpenAIResponsesRequestBody, DecodedResponsesRequest> {
  storedOutcome(body: unknown): StoreOutcome | undefined;
}

/**
 * OpenAI's Responses API (the `openai` SDKs' `responses.*`, the AI SDK's default OpenAI provider, the Agents SDK,
 * Codex CLI), on the same pipeline as chat completions: routers, and agents by `model: "agent:<name>"`. Unlike the
 * other surfaces it keeps state: answers are stored (and conversations continued) through `context.store`.
 */
export function createOpenAIResponsesSurface(context: ResponsesContext): OpenAIResponsesSurface {
  const outcomes = new WeakMap<object, StoreOutcome>();
  return {
    idPrefix: 'resp_',
    decode: (body, decodeContext) => decodeOpenAIResponsesRequest(body, decodeContext, context),
    async encode(answer, request) {
      const { body, outcome } = await encodeOpenAIResponsesResponse(answer, request, context);
      outcomes.set(body, outcome);
      return body;
    },
    streamEncoder: (ids, model, request) => createOpenAIResponsesStreamEncoder(ids, model, request, context),
    storedOutcome: (body) => (typeof body === 'object' && body !== null ? outcomes.get(body) : undefined),
  };
}
