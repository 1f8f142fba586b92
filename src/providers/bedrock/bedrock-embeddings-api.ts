import { z } from 'zod';

/**
 * Amazon Titan Text Embeddings v2 on Bedrock's InvokeModel: the model's own body,
 * one text a call. https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html
 */

// ---- Request (written by the gateway: types only) ----

export interface TitanEmbeddingRequest {
  readonly inputText: string;
  /** 1024 (the default), 512 or 256. */
  readonly dimensions?: number;
  /** Unit vectors, as OpenAI's and Gemini's are. */
  readonly normalize: true;
}

// ---- Response (read by the gateway: validated) ----

/** Also `embeddingsByType` (the same floats, and binary ones when asked for), which the gateway does not read. */
export const titanEmbeddingResponseSchema = z.looseObject({
  embedding: z.array(z.number()),
  inputTextTokenCount: z.number().int().nonnegative(),
});
