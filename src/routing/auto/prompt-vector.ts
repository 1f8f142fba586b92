import { createFeatureBuffer, extractFeatures, META_COUNT, type FeatureBuffer } from './features.js';
import { traitsOf, type AutoRouterModel, type FamiliarityGate, type PromptTraits, type ScoredPrompt } from './model.js';

/**
 * The compact vector a router's own fit (router-fit.ts) reads, kept per
 * auto-routed request so feedback can label it later without the prompt text:
 *
 *   [1, weak anchor's log-odds, gap (strong − weak), familiarity, the meta features…, a text sketch…]
 *
 * The sketch is a signed hash of the prompt's hashed text features into
 * {@link SKETCH_DIMS} dimensions, L2-normalised: enough to tell an owner's
 * kinds of prompt apart, too coarse to read the text back.
 */

/** Bumped whenever the layout or the features change: fits for another version are ignored. */
export const PROMPT_VECTOR_VERSION = 1;
export const SKETCH_DIMS = 32;
/** Index of each part of the vector. */
export const VECTOR_INDEX = { bias: 0, weakLogit: 1, gap: 2, familiarity: 3, meta: 4, sketch: 4 + META_COUNT } as const;
export const PROMPT_VECTOR_LENGTH = VECTOR_INDEX.sketch + SKETCH_DIMS;

/**
 * Fills `out` from features already extracted into `buffer` and their traits. The sketch uses the bucket's
 * low bits as its dimension and the next bit as its sign (buckets are already well mixed).
 */
export function fillPromptVector(buffer: FeatureBuffer, traits: ScoredPrompt, out: Float32Array): Float32Array {
  out[VECTOR_INDEX.bias] = 1;
  out[VECTOR_INDEX.weakLogit] = traits.weakLogit;
  out[VECTOR_INDEX.gap] = traits.strongLogit - traits.weakLogit;
  out[VECTOR_INDEX.familiarity] = traits.familiarity;
  out.set(buffer.meta, VECTOR_INDEX.meta);
  const from = VECTOR_INDEX.sketch;
  out.fill(0, from, from + SKETCH_DIMS);
  const indices = buffer.textIndices;
  for (let k = 0; k < buffer.textCount; k += 1) {
    const bucket = (indices[k] ?? 0) - META_COUNT;
    const at = from + (bucket & (SKETCH_DIMS - 1));
    out[at] = (out[at] ?? 0) + ((bucket >>> 5) & 1 ? 1 : -1);
  }
  let norm = 0;
  for (let j = from; j < from + SKETCH_DIMS; j += 1) norm += (out[j] ?? 0) ** 2;
  if (norm > 0) {
    const scale = 1 / Math.sqrt(norm);
    for (let j = from; j < from + SKETCH_DIMS; j += 1) out[j] = (out[j] ?? 0) * scale;
  }
  return out;
}

/** Text → a new prompt vector, with one feature pass. `gate` overrides the model's own. Not reentrant. */
export function createPromptVectorizer(model: AutoRouterModel, gate: FamiliarityGate | null | undefined = model.gate): (text: string) => Float32Array {
  const buffer = createFeatureBuffer(model.features);
  const traits: ScoredPrompt = { weakLogit: 0, strongLogit: 0, familiarity: 0, gate: 1 };
  return (text) => {
    extractFeatures(text, model.features, buffer);
    return fillPromptVector(buffer, traitsOf(model, buffer, traits, gate), new Float32Array(PROMPT_VECTOR_LENGTH));
  };
}

/** The anchors' log-odds a vector was made with. */
export function traitsOfVector(vector: ArrayLike<number>, out: PromptTraits = { weakLogit: 0, strongLogit: 0 }): PromptTraits {
  const weak = vector[VECTOR_INDEX.weakLogit] ?? 0;
  out.weakLogit = weak;
  out.strongLogit = weak + (vector[VECTOR_INDEX.gap] ?? 0);
  return out;
}

/** Base64 of the vector as little-endian float32. */
export function encodePromptVector(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i += 1) bytes.writeFloatLE(vector[i] ?? 0, i * 4);
  return bytes.toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The vector of {@link encodePromptVector}; undefined unless it is a whole vector of this version's length with finite values. */
export function decodePromptVector(encoded: string): Float32Array | undefined {
  if (encoded.length % 4 !== 0 || !BASE64.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length !== PROMPT_VECTOR_LENGTH * 4) return undefined;
  const vector = new Float32Array(PROMPT_VECTOR_LENGTH);
  for (let i = 0; i < PROMPT_VECTOR_LENGTH; i += 1) {
    const value = bytes.readFloatLE(i * 4);
    if (!Number.isFinite(value)) return undefined;
    vector[i] = value;
  }
  return vector;
}
