import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';

/** Where load goes: one POST, the same for every request. */
export interface LoadTarget {
  readonly name: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** What one load phase measured on one target. */
export interface LoadFigures {
  /** 2xx responses counted (inside the measuring window). */
  readonly requests: number;
  /** 2xx responses over the whole phase, ramp-up and ramp-down included (for CPU per request). */
  readonly allResponses: number;
  /** Responses that were not 2xx, and connection errors / timeouts, over the whole phase. */
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  /** Length of the measuring window, seconds. */
  readonly durationS: number;
  readonly achievedRps: number;
  /** Client-side response time (request written → response complete), ms. */
  readonly latencyMs: LatencySummary;
}

export interface RateFigures extends LoadFigures {
  readonly offeredRps: number;
  /** Whether at least 95 % of the offered rate was served. */
  readonly reached: boolean;
  /** autocannon instances (one connection each) the rate was spread over. */
  readonly lanes: number;
}

/** 2xx response times (ms) and the time each request was sent, from one or more autocannon instances. */
class ResponseLog {
  readonly sentAtMs: number[] = [];
  readonly latencyMs: number[] = [];
  non2xx = 0;
  errors = 0;
  timeouts = 0;

  onResponse = (_client: autocannon.Client, statusCode: number, _bytes: number, responseTimeMs: number): void => {
    if (statusCode < 200 || statusCode >= 300) {
      this.non2xx += 1;
      return;
    }
    this.sentAtMs.push(performance.now() - responseTimeMs);
    this.latencyMs.push(responseTimeMs);
  };

  figures(windowStartMs: number, windowEndMs: number): LoadFigures {
    const inside: number[] = [];
    for (let index = 0; index < this.sentAtMs.length; index += 1) {
      const sentAt = this.sentAtMs[index] ?? Number.NaN;
      if (sentAt >= windowStartMs && sentAt < windowEndMs) inside.push(this.latencyMs[index] ?? Number.NaN);
    }
    const durationS = (windowEndMs - windowStartMs) / 1000;
    return {
      requests: inside.length,
      allResponses: this.latencyMs.length,
      non2xx: this.non2xx,
      errors: this.errors,
      timeouts: this.timeouts,
      durationS,
      achievedRps: Math.round(inside.length / durationS),
      latencyMs: summarizeLatencies(inside),
    };
  }
}

/** One autocannon run; resolves when it is done. */
function runInstance(target: LoadTarget, options: { connections: number; durationS: number; overallRate?: number }, log: ResponseLog): Promise<void> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: 'POST',
        headers: target.headers,
        body: target.body,
        connections: options.connections,
        duration: options.durationS,
        // autocannon stops at the first sample tick after `duration`; a short tick keeps phases exact.
        sampleInt: 100,
        timeout: 10,
        // Our own log keeps raw response times; autocannon's correction would assume a 1 ms spacing.
        ...(options.overallRate !== undefined ? { overallRate: options.overallRate, ignoreCoordinatedOmission: true } : {}),
      },
      (error: unknown, result: autocannon.Result) => {
        if (error !== null && error !== undefined) {
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        log.errors += result.errors;
        log.timeouts += result.timeouts;
        resolve();
      },
    );
    instance.on('response', log.onResponse);
  });
}

/** Closed loop: `connections` connections each send the next request as soon as the previous answer is in. */
export async function saturate(target: LoadTarget, connections: number, durationS: number): Promise<LoadFigures> {
  const log = new ResponseLog();
  const start = performance.now();
  await runInstance(target, { connections, durationS }, log);
  return log.figures(start, start + durationS * 1000);
}

/** Requests per second each lane aims to carry; above MAX_LANES lanes each carries more. */
const REQUESTS_PER_LANE = 10;
const MAX_LANES = 100;

/**
 * Offers `rate` requests per second for `durationS` seconds (measured) and reports
 * the latency of the requests sent in that window.
 *
 * autocannon's rate limit lets each connection send its whole per-second quota
 * back to back at the start of each second, so one instance with `overallRate`
 * offers one burst a second. To get close to evenly spaced arrivals the rate is
 * spread over up to 100 single-connection instances ("lanes") whose seconds start
 * 1000/lanes ms apart; each lane sends 10 (20 at 2000 req/s) requests a second.
 * Lanes start over the first second, so the window opens one second in, once
 * every lane is running, and closes before any stops.
 */
export async function offerRate(target: LoadTarget, rate: number, durationS: number): Promise<RateFigures> {
  const lanes = Math.max(1, Math.min(MAX_LANES, Math.round(rate / REQUESTS_PER_LANE)));
  const log = new ResponseLog();
  const start = performance.now();
  const laneDurationS = durationS + 1.2;
  const runs: Promise<void>[] = [];
  for (let lane = 0; lane < lanes; lane += 1) {
    const laneRate = Math.floor(rate / lanes) + (lane < rate % lanes ? 1 : 0);
    const startAt = start + (lane * 1000) / lanes;
    const wait = startAt - performance.now();
    if (wait > 0) await sleep(wait);
    if (laneRate > 0) runs.push(runInstance(target, { connections: 1, durationS: laneDurationS, overallRate: laneRate }, log));
  }
  await Promise.all(runs);
  const windowStart = start + 1000;
  const figures = log.figures(windowStart, windowStart + durationS * 1000);
  return { ...figures, offeredRps: rate, reached: figures.achievedRps >= 0.95 * rate, lanes };
}
