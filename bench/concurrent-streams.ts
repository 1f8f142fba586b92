import { Agent, request } from 'undici';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';
import type { LoadTarget } from './load.js';
import { sampleRef, type ProcessRef } from './process-stats.js';

/** What holding many streams open at once through one gateway process showed. */
export interface ConcurrentStreamsFigures {
  readonly requested: number;
  /** Seconds each upstream stream stays open (one content chunk a second). */
  readonly holdS: number;
  /** Streams that got their first byte. */
  readonly opened: number;
  /** Streams that ended with `data: [DONE]` after status 200. */
  readonly completed: number;
  /** Non-200 answers, broken or incomplete streams, connection errors. */
  readonly errors: number;
  /** Up to five error messages, for the report. */
  readonly errorSamples: readonly string[];
  /** Most streams open (first byte in, end not yet) at the same moment. */
  readonly maxOpenAtOnce: number;
  /** From the first request to the moment every stream had its first byte, ms (NaN if some never did). */
  readonly allOpenAfterMs: number;
  /** Request sent → first byte, while the others were opening too. */
  readonly ttfbMs: LatencySummary;
  /** The gateway's resident memory before the phase and at most during it (sampled every 100 ms), MiB; with workers, summed over its processes. */
  readonly gatewayRssBeforeMiB: number;
  readonly gatewayRssMaxMiB: number;
}

/**
 * Opens `count` streams at once to `target`, each held open `holdS` seconds by the
 * upstream, and watches the gateway process: how many were open together, how
 * much memory it took, and whether every one of them ended properly.
 */
export async function holdConcurrentStreams(target: LoadTarget, count: number, holdS: number, gateway: ProcessRef | undefined): Promise<ConcurrentStreamsFigures> {
  const body = JSON.stringify({ ...(JSON.parse(target.body) as Record<string, unknown>), user: `bench-hold-${Math.round(holdS * 1000)}` });
  const dispatcher = new Agent({ connections: count + 16, pipelining: 1, keepAliveTimeout: 10_000, headersTimeout: 120_000, bodyTimeout: 120_000 });
  const rssBefore = gateway === undefined ? undefined : sampleRef(gateway)?.rssMiB;
  let rssMax = rssBefore ?? Number.NaN;
  const sampler = setInterval(() => {
    const sample = gateway === undefined ? undefined : sampleRef(gateway);
    if (sample !== undefined) rssMax = Number.isNaN(rssMax) ? sample.rssMiB : Math.max(rssMax, sample.rssMiB);
  }, 100);
  const ttfb: number[] = [];
  const errorSamples: string[] = [];
  let open = 0;
  let maxOpen = 0;
  let opened = 0;
  let completed = 0;
  let errors = 0;
  let lastOpenedAt = Number.NaN;
  const started = performance.now();

  const one = async (): Promise<void> => {
    const sent = performance.now();
    let isOpen = false;
    try {
      const response = await request(target.url, { method: 'POST', headers: target.headers, body, dispatcher });
      let tail = '';
      for await (const chunk of response.body) {
        if (!isOpen) {
          isOpen = true;
          opened += 1;
          open += 1;
          maxOpen = Math.max(maxOpen, open);
          lastOpenedAt = performance.now();
          ttfb.push(lastOpenedAt - sent);
        }
        tail = (tail + (chunk as Buffer).toString('utf8')).slice(-64);
      }
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}: ${tail}`);
      if (!tail.endsWith('data: [DONE]\n\n')) throw new Error(`stream did not end with [DONE]: …${tail}`);
      completed += 1;
    } catch (error) {
      errors += 1;
      if (errorSamples.length < 5) errorSamples.push(error instanceof Error ? error.message : String(error));
    } finally {
      if (isOpen) open -= 1;
    }
  };

  try {
    await Promise.all(Array.from({ length: count }, one));
  } finally {
    clearInterval(sampler);
    await dispatcher.close();
  }
  return {
    requested: count,
    holdS,
    opened,
    completed,
    errors,
    errorSamples,
    maxOpenAtOnce: maxOpen,
    allOpenAfterMs: opened === count ? Math.round(lastOpenedAt - started) : Number.NaN,
    ttfbMs: summarizeLatencies(ttfb),
    gatewayRssBeforeMiB: rssBefore ?? Number.NaN,
    gatewayRssMaxMiB: rssMax,
  };
}
