import type { CallOptions, EmbeddingModel, EmbeddingRequest, EmbeddingResult } from '../contract.js';
import { UpstreamError } from '../contract.js';
import { parseJsonOrUndefined } from '../parse-json.js';
import { invalidResponse } from '../provider-errors.js';
import { postJsonForText } from '../transport/post-json-text.js';
import { upstreamTarget } from '../transport/upstream-call.js';
import type { GeminiProviderSettings } from './gemini-chat-model.js';
import {
  geminiBatchEmbedContentsResponseSchema,
  geminiEmbedContentResponseSchema,
  type GeminiBatchEmbedContentsRequest,
  type GeminiEmbedContentRequest,
} from './gemini-embeddings-api.js';
import { invalidGeminiRequest, refineGeminiError, unsupportedByGemini } from './gemini-errors.js';

/**
 * An embedding model spoken to in the Gemini API's own format: one input through
 * `:embedContent`, several through `:batchEmbedContents` (one call, the vectors in
 * the order of the requests). Gemini takes text only: token arrays are refused, and
 * another model may serve them. Its answers carry no token count: usage is undefined.
 * https://ai.google.dev/api/embeddings
 */
export function createGeminiEmbeddingModel(settings: GeminiProviderSettings, modelId: string): EmbeddingModel {
  const provider = settings.provider;
  // `gemini-embedding-001` is a model of the `models` collection; `models/…` is already a full name.
  const name = modelId.includes('/') ? modelId : `models/${modelId}`;
  const base = `${settings.baseUrl.replace(/\/+$/, '')}/${settings.apiVersion ?? 'v1beta'}/${name.split('/').map(encodeURIComponent).join('/')}`;
  const singleTarget = upstreamTarget(`${base}:embedContent`);
  const batchTarget = upstreamTarget(`${base}:batchEmbedContents`);
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...(settings.apiKey ? { 'x-goog-api-key': settings.apiKey } : {}) };

  const post = async (target: typeof singleTarget, body: unknown, options: CallOptions): Promise<unknown> => {
    let text: string;
    try {
      text = (await postJsonForText(settings.http, provider, target, headers, body, options.signal)).text;
    } catch (error) {
      throw error instanceof UpstreamError ? refineGeminiError(error) : error;
    }
    const json = parseJsonOrUndefined(text);
    if (json === undefined) throw invalidResponse(provider, 'response body is not JSON');
    return json;
  };

  return {
    provider,
    modelId,

    async embed(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResult> {
      const requests = request.input.map((input): GeminiEmbedContentRequest => {
        if (typeof input !== 'string') throw unsupportedByGemini(provider, 'token arrays cannot be embedded: Gemini takes text only');
        return { model: name, content: { parts: [{ text: input }] }, ...(request.dimensions !== undefined ? { outputDimensionality: request.dimensions } : {}) };
      });
      const [only] = requests;
      if (only === undefined) throw invalidGeminiRequest(provider, 'no input to embed');
      if (requests.length === 1) {
        const parsed = geminiEmbedContentResponseSchema.safeParse(await post(singleTarget, only, options));
        if (!parsed.success) throw invalidResponse(provider, 'response body does not match the EmbedContentResponse shape');
        return { embeddings: [parsed.data.embedding.values], usage: undefined };
      }
      const body: GeminiBatchEmbedContentsRequest = { requests };
      const parsed = geminiBatchEmbedContentsResponseSchema.safeParse(await post(batchTarget, body, options));
      if (!parsed.success) throw invalidResponse(provider, 'response body does not match the BatchEmbedContentsResponse shape');
      const { embeddings } = parsed.data;
      if (embeddings.length !== requests.length) throw invalidResponse(provider, `${embeddings.length} embeddings for ${requests.length} inputs`);
      return { embeddings: embeddings.map((embedding) => embedding.values), usage: undefined };
    },
  };
}
