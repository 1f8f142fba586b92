import type { Usage } from '../../providers/contract.js';
import type { RouterMeta } from '../../pipeline/router-meta.js';

/** OpenAI's list of embeddings (`object: "list"`), with the router's `_meta`. */
export function encodeOpenAIEmbeddingsResponse(answer: {
  readonly embeddings: readonly (readonly number[])[];
  readonly model: string;
  readonly usage: Usage;
  readonly encodingFormat: 'float' | 'base64';
  readonly meta: RouterMeta;
}): Record<string, unknown> {
  return {
    object: 'list',
    data: answer.embeddings.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: answer.encodingFormat === 'base64' ? float32Base64(vector) : vector,
    })),
    model: answer.model,
    usage: { prompt_tokens: answer.usage.promptTokens, total_tokens: answer.usage.promptTokens },
    _meta: answer.meta,
  };
}

/** OpenAI's `base64` encoding: the vector as little-endian 32-bit floats, base64 (what its SDKs decode). */
export function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}
