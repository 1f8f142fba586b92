import type { EmbeddingRequest } from '../../providers/contract.js';
import type { OpenAIEmbeddingsRequestBody } from './openai-embeddings-request-schema.js';

/** An embeddings request in the gateway's terms. */
export interface DecodedEmbeddingsRequest {
  readonly request: EmbeddingRequest;
  /** The body's `model`: a router id; a router id in the path wins over it. */
  readonly model: string | null | undefined;
  readonly encodingFormat: 'float' | 'base64';
}

/** OpenAI's four shapes of `input` as one list of inputs (a lone string or token array is a list of one). */
export function decodeOpenAIEmbeddingsRequest(body: OpenAIEmbeddingsRequestBody): DecodedEmbeddingsRequest {
  const input = body.input;
  const inputs: (string | readonly number[])[] =
    typeof input === 'string' ? [input] : input.length > 0 && typeof input[0] === 'number' ? [input as number[]] : (input as (string | number[])[]);
  const request: EmbeddingRequest = {
    input: inputs,
    ...(typeof body.dimensions === 'number' ? { dimensions: body.dimensions } : {}),
    ...(typeof body.user === 'string' ? { user: body.user } : {}),
  };
  return { request, model: body.model, encodingFormat: body.encoding_format === 'base64' ? 'base64' : 'float' };
}
