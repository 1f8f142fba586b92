import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { chatRequestBody } from './chat-request.js';
import { stopAllChildren } from './child-processes.js';
import { summarizeLatencies } from './latency-summary.js';
import { offerRate, saturate } from './load.js';
import { seedDatabase } from './seed-database.js';
import { startGateway, startUpstream } from './services.js';

/**
 * What one request costs when requests come one at a time (a client waiting for each answer), where the bench's
 * saturation phase measures them batched: each path's time to the response head, to its first body byte and to its
 * end (p50), and the gateway's CPU per request by thread (its main thread, and the others: V8's helpers, the usage
 * writer) over the measured requests, read from /proc. Paths are taken in turn, as the bench's streams phase does.
 *
 *   flock /tmp/bench.lock npx tsx bench/sequential-cost.ts [requests] [warmup rounds, default 5000] [paths]
 *
 * `paths`: a comma-separated choice of direct, gateway, direct-stream, gateway-stream (default: all four).
 * SEQUENTIAL_PRELOAD (e.g. `sat:10,500:10`) loads the gateway from this process before the warm-up, as the bench's
 * earlier phases do. SEQUENTIAL_NODE_ARGS (space-separated) are node's flags for the gateway (e.g. `--trace-opt --trace-deopt`, with
 * BENCH_CHILD_OUTPUT=<dir> to keep its whole output). SEQUENTIAL_GATEWAY_ENV (a JSON object) adds to the gateway's environment, e.g. `{"NODE_OPTIONS":
 * "--import=/abs/bench/allocation-sampler.mjs"}`; with SEQUENTIAL_SIGNAL=1 the gateway gets SIGUSR2 when the
 * measured requests start and again when they end (what that preload samples between). SEQUENTIAL_STRACE=<file>
 * writes `strace -f -tt -T` of the gateway over the measured requests to that file (the timeline of each request's syscalls).
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const requests = Number(process.argv[2] ?? '1000');
// V8 compiles the hot functions with TurboFan for thousands of requests (20–55 ms a large function on this machine, on
// its helper threads): with 50 warm-up rounds, the helper threads spent ~500 µs a request compiling and the main
// thread ran unoptimised code, doubling what was measured. 5,000 rounds reach the steady state (helper threads ~20 µs).
const warmup = Number(process.argv[3] ?? '5000');
const chosen = (process.argv[4] ?? 'direct,gateway,direct-stream,gateway-stream').split(',');

/** CPU ms of each thread of a process so far (utime + stime, in clock ticks of 10 ms), with its name and the system part. */
function threadCpuMs(pid: number): Map<number, { ms: number; sysMs: number; name: string }> {
  const cpu = new Map<number, { ms: number; sysMs: number; name: string }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      const user = Number(fields[11]) * 10;
      const sys = Number(fields[12]) * 10;
      cpu.set(Number(tid), { ms: user + sys, sysMs: sys, name });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return cpu;
}

/** `strace -f -tt -T` on the gateway into `file` (its syscalls with their times), once it is attached. */
async function attachStrace(pid: number, file: string): Promise<ChildProcess> {
  const child = spawn('strace', ['-f', '-tt', '-T', '-o', file, '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.stderr.on('data', (data: Buffer) => {
      if (data.toString().includes('attached')) resolve();
    });
  });
  return child;
}

interface Timing {
  head: number[];
  firstByte: number[];
  end: number[];
}

const scratch = mkdtempSync(join(tmpdir(), 'modelport-sequential-'));
try {
  const databaseUrl = join(scratch, 'bench.db');
  const tenant = await seedDatabase(databaseUrl);
  const upstream = await startUpstream(ROOT, 16);
  const extraEnv = JSON.parse(process.env.SEQUENTIAL_GATEWAY_ENV ?? '{}') as Record<string, string>;
  const nodeArgs = (process.env.SEQUENTIAL_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const gateway = await startGateway(ROOT, { databaseUrl, upstreamOrigin: upstream.origin, logLevel: 'warn', cpuProfileDir: undefined, extraEnv, nodeArgs });
  const pid = gateway.child.pid;
  const streamed = (body: string) => JSON.stringify({ ...(JSON.parse(body) as object), stream: true, stream_options: { include_usage: true } });
  const gatewayHeaders = { 'content-type': 'application/json', authorization: `Bearer ${tenant.apiKey}` };
  const all = {
    direct: { url: `${upstream.origin}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: chatRequestBody('gpt-4o-mini') },
    gateway: { url: `${gateway.origin}/api/router/v1/chat/completions`, headers: gatewayHeaders, body: chatRequestBody(tenant.routerId) },
    'direct-stream': { url: `${upstream.origin}/v1/chat/completions`, headers: { 'content-type': 'application/json' }, body: streamed(chatRequestBody('gpt-4o-mini')) },
    'gateway-stream': { url: `${gateway.origin}/api/router/v1/chat/completions`, headers: gatewayHeaders, body: streamed(chatRequestBody(tenant.routerId)) },
  };
  const paths = Object.entries(all).filter(([name]) => chosen.includes(name));
  // SEQUENTIAL_PRELOAD=<rate|sat>:<s>[,…]: load from this process first, as bench/run.ts's phases before its streams
  // do (e.g. `sat:10,500:10,2000:10`), to see what such phases leave behind in the client or the gateway.
  for (const step of (process.env.SEQUENTIAL_PRELOAD ?? '').split(',').filter((entry) => entry !== '')) {
    const [kind, seconds] = step.split(':');
    const target = { name: 'gateway', ...all.gateway };
    if (kind === 'sat') await saturate(target, 16, Number(seconds));
    else await offerRate(target, Number(kind), Number(seconds));
  }
  const timings = new Map<string, Timing>(paths.map(([name]) => [name, { head: [], firstByte: [], end: [] }]));
  const dispatcher = new Agent({ connections: 1, keepAliveTimeout: 60_000 });
  let before: ReturnType<typeof threadCpuMs> = new Map();
  let strace: ChildProcess | undefined;
  for (let round = 0; round < warmup + requests; round += 1) {
    if (round === warmup) {
      if (process.env.SEQUENTIAL_STRACE !== undefined) strace = await attachStrace(pid, process.env.SEQUENTIAL_STRACE);
      await sleep(500);
      before = threadCpuMs(pid);
      if (process.env.SEQUENTIAL_SIGNAL === '1') process.kill(pid, 'SIGUSR2');
    }
    for (const [name, target] of paths) {
      const start = performance.now();
      const response = await request(target.url, { method: 'POST', headers: target.headers, body: target.body, dispatcher });
      const head = performance.now() - start;
      let firstByte = Number.NaN;
      for await (const _chunk of response.body) if (Number.isNaN(firstByte)) firstByte = performance.now() - start;
      const end = performance.now() - start;
      if (response.statusCode !== 200) throw new Error(`${name} answered ${response.statusCode}`);
      if (round < warmup) continue;
      const timing = timings.get(name) as Timing;
      timing.head.push(head);
      timing.firstByte.push(firstByte);
      timing.end.push(end);
    }
  }
  const after = threadCpuMs(pid);
  strace?.kill('SIGINT');
  if (process.env.SEQUENTIAL_SIGNAL === '1') {
    process.kill(pid, 'SIGUSR2');
    await sleep(2_000);
  }
  await dispatcher.close();

  const lines = ['| path | head p50 (ms) | first byte p50 (ms) | end p50 (ms) |', '|---|---:|---:|---:|'];
  for (const [name, timing] of timings) {
    const p50 = (values: number[]) => summarizeLatencies(values).p50.toFixed(3);
    lines.push(`| ${name} | ${p50(timing.head)} | ${p50(timing.firstByte)} | ${p50(timing.end)} |`);
  }
  const gatewayRequests = requests * paths.filter(([name]) => name.startsWith('gateway')).length;
  const perRequest = (ms: number) => (ms * 1000) / Math.max(1, gatewayRequests);
  const used = [...after]
    .map(([tid, now]) => {
      const then = before.get(tid);
      return { tid, name: now.name, us: perRequest(now.ms - (then?.ms ?? 0)), sysUs: perRequest(now.sysMs - (then?.sysMs ?? 0)) };
    })
    .filter(({ us }) => us > 0);
  const main = used.find(({ tid }) => tid === pid);
  const others = used.filter(({ tid }) => tid !== pid).sort((a, b) => b.us - a.us);
  lines.push(
    '',
    `Gateway CPU per gateway request (${gatewayRequests} requests, /proc ticks of 10 ms; of which in the kernel): main thread ${Math.round(main?.us ?? 0)} µs (${Math.round(main?.sysUs ?? 0)}), ` +
      `other threads ${Math.round(others.reduce((sum, { us }) => sum + us, 0))} µs (${others.map(({ name, us, sysUs }) => `${name}: ${Math.round(us)} (${Math.round(sysUs)})`).join(', ')})`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
  await gateway.child.stop(15_000);
} finally {
  await stopAllChildren();
  rmSync(scratch, { recursive: true, force: true });
}
