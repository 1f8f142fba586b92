/** Arithmetic on embedding vectors, for showing what a call gave. */

/** A vector as the API answers it: numbers, or OpenAI's base64 of little-endian 32-bit floats. */
export function vectorOf(embedding: readonly number[] | string): readonly number[] {
  if (typeof embedding !== 'string') return embedding;
  const bytes = Uint8Array.from(atob(embedding), (character) => character.charCodeAt(0));
  const view = new DataView(bytes.buffer);
  return Array.from({ length: Math.floor(bytes.length / 4) }, (_, index) => view.getFloat32(index * 4, true));
}

/**
 * The cosine of the angle between two vectors: 1 the same direction, 0 unrelated, −1 opposite. Vectors of different
 * lengths, or a zero vector, have none (NaN): only vectors of one model and one length are comparable.
 */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return Number.NaN;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index += 1) {
    const x = a[index] ?? 0;
    const y = b[index] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? Number.NaN : dot / Math.sqrt(normA * normB);
}
