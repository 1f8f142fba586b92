import { createHash } from 'node:crypto';

/**
 * The vectors the fake upstreams answer embedding requests with: deterministic, so
 * that tests can compare them across calls, fakes and encodings, and shaped like the
 * real ones (unit length, the model's own length, shortened as Matryoshka models are).
 */

/** Native vector lengths of the embedding models the tests use. */
const NATIVE_DIMENSIONS: Readonly<Record<string, number>> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
  'gemini-embedding-001': 3072,
  'text-embedding-004': 768,
  'embedding-001': 768,
  'amazon.titan-embed-text-v2:0': 1024,
  'amazon.titan-embed-text-v1': 1536,
  'mistral-embed': 1024,
  'nomic-embed-text': 768,
};

/** Any other model's vector length. */
const OTHER_DIMENSIONS = 768;

/** A model's native vector length (`models/…` prefixes ignored). */
export function nativeDimensions(model: string): number {
  return NATIVE_DIMENSIONS[model.replace(/^models\//, '')] ?? OTHER_DIMENSIONS;
}

/** sfc32, seeded from a SHA-256: fast, and the same numbers on every platform. */
function generator(seed: Buffer): () => number {
  let a = seed.readUInt32LE(0);
  let b = seed.readUInt32LE(4);
  let c = seed.readUInt32LE(8);
  let d = seed.readUInt32LE(12);
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4_294_967_296;
  };
}

/**
 * The vector of one input: seeded by the model and the input, so equal inputs to one
 * model give equal vectors (across calls, and across fakes serving that model, e.g.
 * OpenAI's and Azure's `text-embedding-3-small`), and different models different ones.
 * `dimensions` keeps the first values of the full vector, scaled back to unit length, as
 * OpenAI's text-embedding-3 and Gemini's models shorten theirs. Values are float32s, so
 * JSON and base64 carry the same numbers.
 */
export function fakeEmbedding(model: string, input: string | readonly number[], dimensions = nativeDimensions(model)): number[] {
  const key = typeof input === 'string' ? `text:${input}` : `tokens:${input.join(',')}`;
  const next = generator(createHash('sha256').update(`${model.replace(/^models\//, '')}\n${key}`, 'utf8').digest());
  const full = Array.from({ length: nativeDimensions(model) }, () => next() * 2 - 1);
  const kept = full.slice(0, dimensions);
  const norm = Math.hypot(...kept) || 1;
  return kept.map((value) => Math.fround(value / norm));
}

/** A vector as OpenAI's `encoding_format: "base64"` sends it: the base64 of its little-endian float32s. */
export function float32Base64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}

/** The inverse of `float32Base64`. */
export function fromFloat32Base64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
}

/** A token count for a text, as the fakes count when none is scripted (about four characters a token). */
export function fakeTokenCount(input: string | readonly number[]): number {
  return typeof input === 'string' ? Math.max(1, Math.ceil(input.length / 4)) : input.length;
}
