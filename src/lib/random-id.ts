import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * `length` base62 characters from the CSPRNG, without modulo bias: bytes of 248
 * and above are rejected (248 = 4 × 62), so every character is equally likely.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(Math.ceil((length - out.length) * 1.1) + 4);
    for (const byte of bytes) {
      if (byte >= 248) continue;
      out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** An opaque, unguessable, URL-safe id such as `rt_4fQ…` (22 base62 characters ≈ 131 bits). */
export function createId(prefix: string, length = 22): string {
  return `${prefix}_${randomBase62(length)}`;
}
