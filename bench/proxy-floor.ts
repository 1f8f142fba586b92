import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { readFirstJsonLine, spawnChild, stopAllChildren } from './child-processes.js';
import { offerRate, saturate, type LoadFigures, type LoadTarget } from './load.js';
import { measureProcesses } from './process-stats.js';
import { startUpstream } from './services.js';
import { timeStreams } from './stream-timing.js';

/**
 * What Node itself costs a proxy on this machine: the stand-in upstream called
 * directly, through a bare pass-through proxy (`bench/bare-proxy-server.ts`), and
 * through the same proxy parsing and re-serialising both JSON bodies. Same load
 * and through a one-route Fastify app doing the same (how much Fastify adds). Same load
 * as the bench's saturation and 500 req/s phases; prints each path's req/s, its
 * p50/p99, and the proxy's CPU µs per request. The gateway's figure in a bench run
 * on the same machine, minus the proxy's, is what the gateway's own work costs.
 * Last, time to first byte of sequential streams (as the bench's streams phase times
 * them) straight to the upstream and through the bare proxy passing the stream through:
 * the least a proxy adds to a stream's first byte here.
 *
 *   flock /tmp/bench.lock npx tsx bench/proxy-floor.ts [durationS] [connections]
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const durationS = Number(process.argv[2] ?? '5');
const connections = Number(process.argv[3] ?? '16');
const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Say hello in one short sentence.' },
];
const body = JSON.stringify({ model: 'gpt-4o-mini', messages: MESSAGES, max_tokens: 64 });
const streamBody = JSON.stringify({ model: 'gpt-4o-mini', messages: MESSAGES, max_tokens: 64, stream: true, stream_options: { include_usage: true } });
const streamSamples = 400;

async function startProxy(upstreamOrigin: string, json: boolean, fastify = false): Promise<{ origin: string; pid: number }> {
  const child = spawnChild(fastify ? 'fastify proxy' : json ? 'json proxy' : 'bare proxy', process.execPath, ['--import', 'tsx', join('bench', 'bare-proxy-server.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', BARE_PROXY_UPSTREAM: upstreamOrigin, BARE_PROXY_JSON: json ? '1' : '0', BARE_PROXY_FASTIFY: fastify ? '1' : '0' },
    stdinPipe: true,
  });
  const ready = (await readFirstJsonLine(child, 20_000)) as { port?: number };
  return { origin: `http://127.0.0.1:${ready.port}`, pid: child.pid };
}

const target = (name: string, origin: string): LoadTarget => ({
  name,
  url: `${origin}/v1/chat/completions`,
  headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
  body,
});

function line(name: string, phase: string, figures: LoadFigures, proxyCpuS: number | undefined, upstreamCpuS: number | undefined, others: number | undefined): string {
  const perRequest = (cpuS: number | undefined) => (cpuS === undefined ? 'n/a' : String(Math.round((cpuS * 1e6) / figures.allResponses)));
  return `| ${phase} | ${name} | ${figures.achievedRps} | ${figures.latencyMs.p50.toFixed(3)} | ${figures.latencyMs.p99.toFixed(3)} | ${perRequest(proxyCpuS)} | ${perRequest(upstreamCpuS)} | ${others ?? 'n/a'} |`;
}

async function main(): Promise<void> {
  try {
    const upstream = await startUpstream(ROOT, 16);
    const bare = await startProxy(upstream.origin, false);
    const json = await startProxy(upstream.origin, true);
    const fastify = await startProxy(upstream.origin, true, true);
    const paths = [
      { target: target('direct', upstream.origin), pid: undefined },
      { target: target('bare proxy', bare.origin), pid: bare.pid },
      { target: target('JSON proxy', json.origin), pid: json.pid },
      { target: target('Fastify JSON proxy', fastify.origin), pid: fastify.pid },
    ];
    const rows = ['| phase | path | req/s | p50 (ms) | p99 (ms) | proxy CPU µs/req | upstream CPU µs/req | other processes CPU % |', '|---|---|---:|---:|---:|---:|---:|---:|'];
    for (const path of paths) await saturate(path.target, connections, 2);
    for (const [phase, run] of [
      [`saturation (${connections} connections)`, (t: LoadTarget) => saturate(t, connections, durationS)],
      ['500 req/s', (t: LoadTarget) => offerRate(t, 500, durationS)],
    ] as const) {
      for (const path of paths) {
        const pids: Record<string, number> = { upstream: upstream.child.pid, loadGenerator: process.pid, ...(path.pid === undefined ? {} : { proxy: path.pid }) };
        const measured = await measureProcesses(pids, () => run(path.target));
        rows.push(line(path.target.name, phase, measured.value, measured.usage.proxy?.cpuS, measured.usage.upstream?.cpuS, measured.othersPercent));
        await sleep(300);
      }
    }
    process.stdout.write(`${rows.join('\n')}\n`);
    const streamTarget = (path: LoadTarget): LoadTarget => ({ ...path, body: streamBody });
    const timings = await timeStreams([streamTarget(paths[0]!.target), streamTarget(paths[1]!.target)], streamSamples, 50);
    const direct = timings.direct?.ttfbMs;
    const bareTtfb = timings['bare proxy']?.ttfbMs;
    if (direct !== undefined && bareTtfb !== undefined) {
      process.stdout.write(
        `\nSequential streams (${streamSamples} per path, after 50 not counted), time to first byte p50 / p99 (ms): direct ${direct.p50.toFixed(3)} / ${direct.p99.toFixed(3)}, ` +
          `bare proxy ${bareTtfb.p50.toFixed(3)} / ${bareTtfb.p99.toFixed(3)}, added p50 +${(bareTtfb.p50 - direct.p50).toFixed(3)}\n`,
      );
    }
  } finally {
    await stopAllChildren();
  }
}

await main();
