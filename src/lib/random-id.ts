import { randomBytes, randomFillSync } from 'node:crypto';

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

export interface RandomTokenSourceOptions {
  /**
   * Bytes drawn from the CSPRNG at once; tokens are cut from this pool until it runs out.
   * @default 4096
   */
  readonly poolBytes?: number;
  /** Fills a buffer with random bytes. @default crypto.randomFillSync */
  readonly fill?: (buffer: Buffer) => void;
}

/**
 * Unguessable URL-safe tokens (`bytes` random bytes, base64url) for the hot
 * path: one CSPRNG call fills a pool that serves hundreds of tokens, as
 * `crypto.randomUUID` does, instead of one `randomBytes` call per token.
 * Each byte of the pool is used once.
 */
export function createRandomTokenSource(options: RandomTokenSourceOptions = {}): (bytes: number) => string {
  const fill = options.fill ?? ((buffer: Buffer) => void randomFillSync(buffer));
  const pool = Buffer.allocUnsafe(Math.max(64, options.poolBytes ?? 4096));
  let offset = pool.length;
  return (bytes) => {
    if (bytes > pool.length) {
      const own = Buffer.allocUnsafe(bytes);
      fill(own);
      return own.toString('base64url');
    }
    if (offset + bytes > pool.length) {
      fill(pool);
      offset = 0;
    }
    const token = pool.toString('base64url', offset, offset + bytes);
    offset += bytes;
    return token;
  };
}

/** Base-36 digits of a millisecond time: nine reach the year 5188. */
const TIME_DIGITS = 9;

export interface TimeOrderedIdSourceOptions {
  /** Random bytes after the time (base64url: 4 characters per 3 bytes). @default 9 (72 bits) */
  readonly randomBytes?: number;
  /** The clock, in milliseconds since the epoch. @default Date.now */
  readonly now?: () => number;
}

/**
 * Ids that sort by the millisecond they were made (`req_` + 9 base-36 digits of the time + random base64url), as
 * ULIDs and UUIDv7 do. They are primary keys: a random key puts every new row of an index at a random place, so a
 * batch of 500 rows dirties up to 500 index pages, each written again to the WAL (SQLite) or to shared buffers
 * (Postgres), and more once the index outgrows the page cache; a time-ordered key appends to its last pages.
 * Within a millisecond the order is random; ids from several processes interleave by time.
 */
export function createTimeOrderedIdSource(prefix: string, options: TimeOrderedIdSourceOptions = {}): () => string {
  const bytes = options.randomBytes ?? 9;
  const now = options.now ?? Date.now;
  const randomToken = createRandomTokenSource();
  let lastMs = Number.NaN;
  let head = '';
  return () => {
    const ms = now();
    if (ms !== lastMs) {
      lastMs = ms;
      head = `${prefix}${Math.max(0, Math.floor(ms)).toString(36).padStart(TIME_DIGITS, '0')}`;
    }
    return head + randomToken(bytes);
  };
}
