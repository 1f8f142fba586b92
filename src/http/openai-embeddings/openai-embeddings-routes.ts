import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { completeEmbeddingCall, prepareEmbeddingCall } from '../../pipeline/embedding-call.js';
import { runCall } from '../../pipeline/routed-call.js';
import type { AppDependencies } from '../dependencies.js';
import { abortOnClose, requireBody } from '../routed-endpoint.js';
import { decodeOpenAIEmbeddingsRequest } from './decode-openai-embeddings-request.js';
import { encodeOpenAIEmbeddingsResponse } from './encode-openai-embeddings-response.js';
import { openAIEmbeddingsRequestSchema, type OpenAIEmbeddingsRequestBody } from './openai-embeddings-request-schema.js';

/** As chat completions: `{base}` or `{base}/v1`, a router id in the path winning over `model`. */
export const EMBEDDINGS_PATHS = [
  '/api/router/embeddings',
  '/api/router/v1/embeddings',
  '/api/router/:routerId/embeddings',
  '/api/router/v1/:routerId/embeddings',
] as const;

/**
 * POST …/embeddings: OpenAI's embeddings surface on the pipeline (limits, budgets, routing among one vector space,
 * fallback, accounting, usage records, `_meta`). Embeddings are never streamed, and errors take OpenAI's shape from
 * the server-wide handler, so this surface has neither a stream encoder nor an error file of its own.
 */
export function registerOpenAIEmbeddings(app: FastifyInstance, deps: AppDependencies): void {
  const handler = embeddingsHandler(deps);
  for (const path of EMBEDDINGS_PATHS) app.post(path, { schema: { body: openAIEmbeddingsRequestSchema }, preValidation: requireBody }, handler);
}

/**
 * The embeddings handler, for the gateway's routes and the dashboard's playground: decode, run the pipeline, encode.
 * `authorize` runs once the body is decoded, for another authorisation than the key's (the dashboard's session).
 */
export function embeddingsHandler(deps: AppDependencies, options: { readonly authorize?: (request: FastifyRequest, reply: FastifyReply, model: string | null | undefined) => Promise<void> } = {}) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const decoded = decodeOpenAIEmbeddingsRequest(request.body as OpenAIEmbeddingsRequestBody);
    if (options.authorize !== undefined) await options.authorize(request, reply, decoded.model);
    const call = request.gateway;
    const target = (request.params as { routerId?: string }).routerId ?? decoded.model;
    const prepared = await prepareEmbeddingCall(call, { request: decoded.request, target, signal: abortOnClose(reply), sink: reply, log: request.log }, deps);
    return runCall(call, prepared, deps, async () => {
      const { embeddings, model, usage, meta } = await completeEmbeddingCall(call, prepared, deps);
      return encodeOpenAIEmbeddingsResponse({ embeddings, model: model.id, usage, encodingFormat: decoded.encodingFormat, meta });
    });
  };
}
