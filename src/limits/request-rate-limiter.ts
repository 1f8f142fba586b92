import { createMemoryWindowStore } from './memory-window-store.js';
import { createRateLimits, type RateLimits, type RateLimitSettings } from './rate-limits.js';

/** What the HTTP layer holds (AppDependencies.rateLimiter): every rate limit of rate-limits.ts. */
export type RequestRateLimiter = RateLimits;

/**
 * Rate limits in this process only (the embedded default, without REDIS_URL):
 * the same strict sliding windows as the shared store.
 */
export function createInProcessRateLimiter(settings: RateLimitSettings = { defaultRpm: 600 }, now: () => number = Date.now): RequestRateLimiter {
  return createRateLimits(createMemoryWindowStore(), settings, now, () => undefined);
}

/** OpenAI's duration format for `x-ratelimit-reset-*`: "1s", "6m0s", "20ms". */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const totalSeconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}
