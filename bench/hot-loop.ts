import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { chatRequestBody } from './chat-request.js';
import { stopAllChildren } from './child-processes.js';
import { saturate, type LoadTarget } from './load.js';
import { measureProcesses } from './process-stats.js';
import { seedDatabase } from './seed-database.js';
import { startGateway, startUpstream } from './services.js';

/**
 * A quick loop for work on the gateway's per-request cost: one gateway built from
 * dist/, saturated `rounds` times for `seconds` each (after a warm-up), printing
 * its CPU µs per request each round and the median. Less to run than the bench,
 * and the figure the bench's saturation phase reports.
 *
 *   flock /tmp/bench.lock npx tsx bench/hot-loop.ts [rounds] [seconds] [connections]
 *
 * HOT_LOOP_STREAM=1 saturates with streamed requests (16 chunks and the usage) instead. HOT_LOOP_PROF=<dir> profiles the gateway (--cpu-prof); HOT_LOOP_NODE_OPTIONS and HOT_LOOP_GATEWAY_ENV (JSON)
 * add to its environment. HOT_LOOP_HOLD=1 keeps the gateway running after the rounds (prints its pid) until
 * stdin closes, e.g. to attach strace or perf.
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const rounds = Number(process.argv[2] ?? '5');
const seconds = Number(process.argv[3] ?? '3');
const connections = Number(process.argv[4] ?? '16');

/** HOT_LOOP_NODE_OPTIONS (e.g. --heap-prof) and HOT_LOOP_GATEWAY_ENV (a JSON object of variables) for the gateway. */
function gatewayEnv(): Record<string, string> {
  const extra = JSON.parse(process.env.HOT_LOOP_GATEWAY_ENV ?? '{}') as Record<string, string>;
  return process.env.HOT_LOOP_NODE_OPTIONS === undefined ? extra : { ...extra, NODE_OPTIONS: process.env.HOT_LOOP_NODE_OPTIONS };
}

/** The same request streamed, with usage (HOT_LOOP_STREAM=1: the streamed path's CPU per request). */
function streamedBody(body: string): string {
  return JSON.stringify({ ...(JSON.parse(body) as object), stream: true, stream_options: { include_usage: true } });
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'modelport-hot-'));
  try {
    const databaseUrl = join(scratch, 'bench.db');
    const tenant = await seedDatabase(databaseUrl);
    const upstream = await startUpstream(ROOT, 16);
    const gateway = await startGateway(ROOT, { databaseUrl, upstreamOrigin: upstream.origin, logLevel: 'warn', cpuProfileDir: process.env.HOT_LOOP_PROF, extraEnv: gatewayEnv() });
    const target: LoadTarget = {
      name: 'gateway',
      url: `${gateway.origin}/api/router/v1/chat/completions`,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.apiKey}` },
      body: process.env.HOT_LOOP_STREAM === '1' ? streamedBody(chatRequestBody(tenant.routerId)) : chatRequestBody(tenant.routerId),
    };
    await saturate(target, connections, 2);
    const perRequest: number[] = [];
    // The main thread is the event loop every request waits on; the process's other threads are V8's helpers and workers.
    const onMainThread: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      await sleep(300);
      const { value, usage, othersPercent } = await measureProcesses({ gateway: gateway.child.pid }, () => saturate(target, connections, seconds));
      const us = Math.round(((usage.gateway?.cpuS ?? Number.NaN) * 1e6) / value.allResponses);
      const mainUs = Math.round(((usage.gateway?.mainThreadCpuS ?? Number.NaN) * 1e6) / value.allResponses);
      perRequest.push(us);
      onMainThread.push(mainUs);
      process.stdout.write(
        `round ${round + 1}: ${value.achievedRps} req/s, ${us} µs/req gateway CPU (${mainUs} on its main thread), non2xx ${value.non2xx}, errors ${value.errors}, others ${othersPercent ?? '?'} %\n`,
      );
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    process.stdout.write(`median gateway CPU µs/req: ${median(perRequest)} (min ${perRequest[0]}, max ${perRequest.at(-1)}); main thread: ${median(onMainThread)}\n`);
    if (process.env.HOT_LOOP_HOLD === '1') {
      process.stdout.write(`holding: gateway pid ${gateway.child.pid}, ${target.url}, key ${tenant.apiKey}, router ${tenant.routerId}\n`);
      process.stdin.resume();
      await new Promise((done) => process.stdin.once('end', done));
    }
    await gateway.child.stop(15_000);
  } finally {
    await stopAllChildren();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
