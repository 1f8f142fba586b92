import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { errors } from '../lib/errors.js';

export interface LoginThrottleOptions {
  /** Failed sign-ins per email and IP before that pair is blocked (MODELPORT_LOGIN_FAILURES_PER_EMAIL). @default 5 */
  readonly failuresPerEmail?: number;
  /** The window for those failures, and how long the block lasts, seconds. @default 900 */
  readonly failureWindowSeconds?: number;
  /** Sign-in and sign-up attempts per IP in the window (MODELPORT_LOGIN_ATTEMPTS_PER_IP). @default 100 */
  readonly attemptsPerIp?: number;
  /** @default 900 */
  readonly ipWindowSeconds?: number;
  /**
   * Counts kept in Redis, so every instance sees every attempt (REDIS_URL). Each count is one atomic script
   * (increment and expiry); while Redis does not answer, this process counts in its own memory.
   */
  readonly redis?: Redis | undefined;
  /** @default "modelport:" */
  readonly redisPrefix?: string;
}

export interface LoginThrottle {
  /** Counts an attempt (sign-up or sign-in) from this IP before its body is read; 429 when the IP is over its limit. */
  admitAddress(ip: string): Promise<void>;
  /** Sign-up: 429 while the email + IP pair is blocked; nothing is counted. */
  beforeAttempt(ip: string, email: string): Promise<void>;
  /**
   * Sign-in: counts the attempt as a failure of the email + IP pair before the password is checked, in one atomic
   * step, and answers 429 once the pair is over its limit. Counting first is what keeps parallel guesses from all
   * passing a check that none of them has counted yet.
   */
  beforeSignIn(ip: string, email: string): Promise<void>;
  /** The attempt ended without a verdict on the password (no hashing slot, the database down): it does not count. */
  cancelled(ip: string, email: string): Promise<void>;
  /** A successful sign-in forgets the pair's failures. */
  succeeded(ip: string, email: string): Promise<void>;
}

/** rate-limiter-flexible in Redis with an in-memory stand-in when Redis fails, or in memory only. */
function createLimiter(options: LoginThrottleOptions, keyPrefix: string, points: number, duration: number, blockDuration: number): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration, blockDuration });
  if (options.redis === undefined) return memory;
  return new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.redisPrefix ?? 'modelport:'}${keyPrefix}`,
    points,
    duration,
    blockDuration,
    // The link's client queues nothing while down: a failed command falls to this process's memory at once.
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}

/**
 * Login throttling with rate-limiter-flexible. Without Redis the counts live in this process: an attacker spreading
 * guesses over several instances (or worker processes) gets the limits once per instance.
 */
export function createLoginThrottle(options: LoginThrottleOptions = {}): LoginThrottle {
  const failureWindow = options.failureWindowSeconds ?? 900;
  const perEmail = createLimiter(options, 'login-email', options.failuresPerEmail ?? 5, failureWindow, failureWindow);
  const perIp = createLimiter(options, 'login-ip', options.attemptsPerIp ?? 100, options.ipWindowSeconds ?? 900, 0);
  // Hashed, so the store (Redis above all) holds no email addresses.
  const pairKey = (ip: string, email: string) => createHash('sha256').update(`${email.trim().toLowerCase()}|${ip}`).digest('base64url');
  const refuse = (result: RateLimiterRes): never => {
    throw errors.tooManyAttempts(Math.max(1, Math.ceil(result.msBeforeNext / 1000)));
  };
  const consume = (limiter: RateLimiterAbstract, key: string) =>
    limiter.consume(key).then(
      () => undefined,
      (result: unknown) => {
        if (result instanceof RateLimiterRes) refuse(result);
        throw result;
      },
    );
  return {
    admitAddress: (ip) => consume(perIp, ip),
    async beforeAttempt(ip, email) {
      const pair = await perEmail.get(pairKey(ip, email));
      if (pair !== null && pair.consumedPoints > perEmail.points) refuse(pair);
    },
    beforeSignIn: (ip, email) => consume(perEmail, pairKey(ip, email)),
    async cancelled(ip, email) {
      await perEmail.reward(pairKey(ip, email));
    },
    async succeeded(ip, email) {
      await perEmail.delete(pairKey(ip, email));
    },
  };
}
