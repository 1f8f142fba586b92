import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { errors } from '../lib/errors.js';

export interface LoginThrottleOptions {
  /** Failed sign-ins per email and IP before that pair is blocked. @default 5 */
  readonly failuresPerEmail?: number;
  /** The window for those failures, and how long the block lasts, seconds. @default 900 */
  readonly failureWindowSeconds?: number;
  /** Sign-in and sign-up attempts per IP in the window. @default 100 */
  readonly attemptsPerIp?: number;
  /** @default 900 */
  readonly ipWindowSeconds?: number;
}

export interface LoginThrottle {
  /** Counts an attempt from this IP; throws 429 when the IP or the email + IP pair is over its limit. */
  beforeAttempt(ip: string, email: string): Promise<void>;
  /** Counts a failed sign-in for the email + IP pair. */
  failed(ip: string, email: string): Promise<void>;
  /** A successful sign-in forgets the pair's failures. */
  succeeded(ip: string, email: string): Promise<void>;
}

/**
 * Login throttling with rate-limiter-flexible, in this process's memory: an
 * attacker spreading guesses over several instances gets the limit once per
 * instance, which still bounds guessing to a handful per minute.
 */
export function createLoginThrottle(options: LoginThrottleOptions = {}): LoginThrottle {
  const failureWindow = options.failureWindowSeconds ?? 900;
  const perEmail = new RateLimiterMemory({ keyPrefix: 'login-email', points: options.failuresPerEmail ?? 5, duration: failureWindow, blockDuration: failureWindow });
  const perIp = new RateLimiterMemory({ keyPrefix: 'login-ip', points: options.attemptsPerIp ?? 100, duration: options.ipWindowSeconds ?? 900 });
  const pairKey = (ip: string, email: string) => `${email.trim().toLowerCase()}|${ip}`;
  const refuse = (result: RateLimiterRes): never => {
    throw errors.tooManyAttempts(Math.max(1, Math.ceil(result.msBeforeNext / 1000)));
  };
  return {
    async beforeAttempt(ip, email) {
      const pair = await perEmail.get(pairKey(ip, email));
      if (pair !== null && pair.remainingPoints <= 0) refuse(pair);
      await perIp.consume(ip).catch((result: unknown) => {
        if (result instanceof RateLimiterRes) refuse(result);
        throw result;
      });
    },
    async failed(ip, email) {
      await perEmail.consume(pairKey(ip, email)).catch((result: unknown) => {
        if (!(result instanceof RateLimiterRes)) throw result;
      });
    },
    async succeeded(ip, email) {
      await perEmail.delete(pairKey(ip, email));
    },
  };
}
