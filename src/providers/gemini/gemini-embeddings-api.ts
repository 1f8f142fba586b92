import { z } from 'zod';

/**
 * The Gemini API's embedContent and batchEmbedContents wire format (Generative
 * Language API, v1beta), as far as the gateway writes and reads it. Neither answer
 * carries a token count (only Vertex AI's does), so the gateway counts.
 * https://ai.google.dev/api/embeddings
 */

// ---- Request (written by the gateway, so plain types) ----

export interface GeminiEmbedContentRequest {
  /** `models/{model}`; in a batch, the model of the URL. */
  readonly model: string;
  readonly content: { readonly parts: readonly { readonly text: string }[] };
  /** Shortens the vector (Matryoshka): models/embedding-001 refuses it. */
  readonly outputDimensionality?: number;
}

export interface GeminiBatchEmbedContentsRequest {
  readonly requests: readonly GeminiEmbedContentRequest[];
}

// ---- Response (read by the gateway, so validated) ----

const contentEmbeddingSchema = z.looseObject({ values: z.array(z.number()) });

/** `:embedContent`'s answer. */
export const geminiEmbedContentResponseSchema = z.looseObject({ embedding: contentEmbeddingSchema });

/** `:batchEmbedContents`'s answer: the embeddings in the order of the requests. */
export const geminiBatchEmbedContentsResponseSchema = z.looseObject({ embeddings: z.array(contentEmbeddingSchema) });
