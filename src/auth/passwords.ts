import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { errors } from '../lib/errors.js';

/**
 * Parameters of new hashes. scrypt holds 128·N·r bytes while it runs and computes the p lanes one after another, so
 * N=2^15, r=8 holds 32 MiB where the older N=2^17, r=8, p=1 held 128 MiB: the memory of a burst of sign-ins is what
 * bounds a small container. p=5 does more mixing than the older setting (N·r·p 1.25 times as large) and takes about
 * as long, so a password stored with the older parameters is not told apart from an unknown email by its timing.
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 5 } as const;
/** Enough for hashes stored with N=2^17, r=8 (128 MiB), which still verify with the parameters stored beside them. */
const MAX_MEMORY = 256 * 1024 * 1024;
const KEY_LENGTH = 64;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$salt$hash`, base64url parts, so the parameters can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, { ...PARAMS, maxmem: MAX_MEMORY });
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Verified against when a sign-in names an unknown email, so that answer takes as long as a wrong password: the same
 * scheme and parameters as {@link hashPassword}, hence the same scrypt work. Its salt and hash are zeros rather than
 * a real hash: no password can be known to match it (the caller discards the result anyway), and nothing is computed
 * at start-up.
 */
export const DECOY_PASSWORD_HASH = ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, Buffer.alloc(16).toString('base64url'), Buffer.alloc(KEY_LENGTH).toString('base64url')].join('$');

/** Checks a password against a stored hash with the parameters stored in it (older, costlier hashes included). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export interface PasswordHasherOptions {
  /**
   * Hashes computed at once in this process. Each holds 32 MiB (128 MiB for a hash stored with the older
   * parameters) and one of libuv's four threads, which file and DNS work share. @default 2
   */
  readonly concurrency?: number;
  /** Hashes waiting for a slot; one more is refused at once with 503 `auth_busy` and `Retry-After: 1`. @default 16 */
  readonly queue?: number;
}

/** {@link hashPassword} and {@link verifyPassword} with a bound on how many run at once: for requests anyone can send. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
}

export function createPasswordHasher(options: PasswordHasherOptions = {}): PasswordHasher {
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const queueLimit = Math.max(0, options.queue ?? 16);
  let running = 0;
  const waiting: Array<() => void> = [];
  const inSlot = async <T>(work: () => Promise<T>): Promise<T> => {
    if (running < concurrency) running += 1;
    else if (waiting.length >= queueLimit) throw errors.authBusy();
    // A freed slot is handed to the first waiter as it is, so `running` never drops below a waiting queue.
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next !== undefined) next();
      else running -= 1;
    }
  };
  return {
    hash: (password) => inSlot(() => hashPassword(password)),
    verify: (password, stored) => inSlot(() => verifyPassword(password, stored)),
  };
}
