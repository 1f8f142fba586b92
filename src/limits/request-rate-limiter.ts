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
