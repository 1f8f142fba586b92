import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// OWASP's scrypt recommendation: N=2^17, r=8, p=1.
const PARAMS = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 } as const;
const KEY_LENGTH = 64;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** `scrypt$N$r$p$salt$hash`, base64url parts, so the parameters can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/**
 * Verified against when a sign-in names an unknown email, so that answer takes as long as a wrong password: the same
 * scheme and parameters as {@link hashPassword}, hence the same scrypt work. Its salt and hash are zeros rather than
 * a real hash: no password can be known to match it (the caller discards the result anyway), and nothing is computed
 * at start-up (a real hash costs 128 MiB and a third of a second of scrypt).
 */
export const DECOY_PASSWORD_HASH = ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, Buffer.alloc(16).toString('base64url'), Buffer.alloc(KEY_LENGTH).toString('base64url')].join('$');

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
