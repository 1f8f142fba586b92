import { createHash } from 'node:crypto';
import { abortableDelay } from '../../lib/client-abort.js';
import { UpstreamError, type EmbeddingModel, type EmbeddingResult } from '../contract.js';
import { countTextTokens } from '../token-counter.js';
import type { SimSettings } from './sim-chat-model.js';

/** The simulator's vector length when the request names none. */
const SIM_DIMENSIONS = 256;

/**
 * The offline simulator's embedding model: NOT a real model. Each input's vector is drawn from a generator seeded by
 * the model id and the input (text, or token ids), so the same input always gives the same unit-length vector and
 * different inputs give unrelated ones; a shorter `dimensions` is the first values made unit length again, as
 * OpenAI's text-embedding-3 models shorten. Tokens are counted with the real tokenizer (token arrays by length).
 */
export function createSimEmbeddingModel(settings: SimSettings, modelId: string): EmbeddingModel {
  const timing = settings.timing(modelId);
  return {
    provider: 'sim',
    modelId,
    async embed(request, { signal }): Promise<EmbeddingResult> {
      const scaled = timing.ttftMs * settings.timeScale;
      if (scaled >= 1) {
        await abortableDelay(scaled, signal).catch((error: unknown) => {
          throw new UpstreamError({ provider: 'sim', kind: 'aborted', message: 'The call was aborted.', isRetryable: false, cause: error });
        });
      }
      const dimensions = request.dimensions ?? SIM_DIMENSIONS;
      const embeddings = request.input.map((item) => unitVector(`${modelId}\u0000${typeof item === 'string' ? item : item.join(',')}`, dimensions));
      const promptTokens = request.input.reduce((sum, item) => sum + (typeof item === 'string' ? countTextTokens(item) : item.length), 0);
      return { embeddings, usage: { promptTokens } };
    },
  };
}

/** A unit vector of `length` values from a xorshift generator seeded by the text's SHA-256. */
function unitVector(seedText: string, length: number): number[] {
  const seed = createHash('sha256').update(seedText).digest();
  let state = seed.readUInt32LE(0) || 1;
  const values: number[] = [];
  let norm = 0;
  for (let index = 0; index < length; index += 1) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const value = (state >>> 0) / 2 ** 32 - 0.5;
    values.push(value);
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm);
  return values.map((value) => Math.round(value * scale * 1e8) / 1e8);
}
