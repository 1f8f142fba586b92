import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateDecision {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  /** Until the window frees a request. */
  readonly resetMs: number;
}

export interface RequestRateLimiter {
  /** Counts one request for `subject` against `limitPerMinute`. */
  consume(subject: string, limitPerMinute: number): Promise<RateDecision>;
}

/**
 * Requests per minute per key, in process (rate-limiter-flexible's memory store).
 * The scale-out issue puts the same interface on a shared store.
 */
export function createInProcessRateLimiter(): RequestRateLimiter {
  const limiters = new Map<number, RateLimiterMemory>();
  const limiterFor = (points: number) => {
    let limiter = limiters.get(points);
    if (limiter === undefined) {
      limiter = new RateLimiterMemory({ points, duration: 60 });
      limiters.set(points, limiter);
    }
    return limiter;
  };
  return {
    async consume(subject, limitPerMinute) {
      try {
        const result = await limiterFor(limitPerMinute).consume(subject, 1);
        return { allowed: true, limit: limitPerMinute, remaining: result.remainingPoints, resetMs: result.msBeforeNext };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { allowed: false, limit: limitPerMinute, remaining: 0, resetMs: rejection.msBeforeNext };
      }
    },
  };
}

/** OpenAI's duration format for `x-ratelimit-reset-*`: "1s", "6m0s", "20ms". */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const totalSeconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit-requests': String(decision.limit),
    'x-ratelimit-remaining-requests': String(decision.remaining),
    'x-ratelimit-reset-requests': formatResetDuration(decision.resetMs),
  };
}
