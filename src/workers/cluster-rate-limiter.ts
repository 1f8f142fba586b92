import { RateLimiterCluster, RateLimiterClusterMaster, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateDecision, RequestRateLimiter } from '../limits/request-rate-limiter.js';

export interface ClusterRateLimiterOptions {
  /**
   * How long a worker waits for the primary's answer before the request fails (500): the primary is then
   * stuck or gone, and letting requests through unlimited would break the limit.
   * @default 2000
   */
  readonly timeoutMs?: number;
}

/**
 * Requests per minute per key, counted once for the whole fleet of workers: each
 * worker asks the primary process, which holds the counters in memory
 * (rate-limiter-flexible's cluster limiter over Node's IPC channel). A key's limit
 * therefore holds exactly whichever worker its connections land on. Used in
 * workers started by `MODELPORT_WORKERS` when no shared store (Redis) is configured.
 */
export function createClusterRateLimiter(options: ClusterRateLimiterOptions = {}): RequestRateLimiter {
  const limiters = new Map<number, RateLimiterCluster>();
  const limiterFor = (points: number) => {
    let limiter = limiters.get(points);
    if (limiter === undefined) {
      // One limiter per limit value, named by it: the primary creates the same one for every worker that asks.
      limiter = new RateLimiterCluster({ keyPrefix: `modelport-rpm-${points}`, points, duration: 60, timeoutMs: options.timeoutMs ?? 2_000 });
      limiters.set(points, limiter);
    }
    return limiter;
  };
  return {
    async consume(subject, limitPerMinute): Promise<RateDecision> {
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

/** The primary's side: answers every worker's limiter calls. Call once in the primary before forking. */
export function serveClusterRateLimits(): void {
  new RateLimiterClusterMaster();
}
