import { Agent, request } from 'undici';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';
import type { LoadTarget } from './load.js';

export interface StreamTiming {
  /** Request sent → first body chunk, ms. */
  readonly ttfbMs: LatencySummary;
  /** Request sent → end of stream, ms. */
  readonly totalMs: LatencySummary;
  /** Content chunks (`data:` events other than [DONE]) in the last stream. */
  readonly events: number;
}

interface OneStream {
  readonly ttfbMs: number;
  readonly totalMs: number;
  readonly events: number;
}

async function timeOneStream(target: LoadTarget, dispatcher: Agent): Promise<OneStream> {
  const start = performance.now();
  const response = await request(target.url, { method: 'POST', headers: target.headers, body: target.body, dispatcher });
  let ttfbMs = Number.NaN;
  let text = '';
  for await (const chunk of response.body) {
    if (Number.isNaN(ttfbMs)) ttfbMs = performance.now() - start;
    text += (chunk as Buffer).toString('utf8');
  }
  const totalMs = performance.now() - start;
  if (response.statusCode !== 200) throw new Error(`${target.name} stream answered ${response.statusCode}: ${text.slice(0, 500)}`);
  if (!text.endsWith('data: [DONE]\n\n')) throw new Error(`${target.name} stream did not end with [DONE]: …${text.slice(-300)}`);
  const events = text.split('\n\n').filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]').length;
  return { ttfbMs, totalMs, events };
}

/**
 * Sequential streaming requests, the targets taken in turn (a, b, a, b…) so that
 * both see the same machine state. One keep-alive connection per target, as a
 * client would hold. The first `warmup` rounds are not counted.
 */
export async function timeStreams(targets: readonly LoadTarget[], samples: number, warmup: number): Promise<Record<string, StreamTiming>> {
  const dispatcher = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  const runs = targets.map(() => ({ ttfb: [] as number[], total: [] as number[], events: 0 }));
  try {
    for (let round = 0; round < warmup + samples; round += 1) {
      for (const [index, target] of targets.entries()) {
        const one = await timeOneStream(target, dispatcher);
        const run = runs[index];
        if (run === undefined || round < warmup) continue;
        run.ttfb.push(one.ttfbMs);
        run.total.push(one.totalMs);
        run.events = one.events;
      }
    }
  } finally {
    await dispatcher.close();
  }
  const timings: Record<string, StreamTiming> = {};
  for (const [index, target] of targets.entries()) {
    const run = runs[index];
    if (run !== undefined) timings[target.name] = { ttfbMs: summarizeLatencies(run.ttfb), totalMs: summarizeLatencies(run.total), events: run.events };
  }
  return timings;
}
