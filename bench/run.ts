import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { BenchResult, PhaseUsage } from './bench-result.js';
import { killAllChildrenNow, stopAllChildren } from './child-processes.js';
import { formatCpuProfileSummary, summarizeCpuProfile } from './cpu-profile-summary.js';
import { holdConcurrentStreams, type ConcurrentStreamsFigures } from './concurrent-streams.js';
import { computeHeadline } from './headline.js';
import { offerRate, saturate, type LoadFigures, type LoadTarget } from './load.js';
import { benchHelp, BenchOptionsError, parseBenchOptions, type BenchOptions } from './options.js';
import { preflight } from './preflight.js';
import { measureProcesses, sampleRef, type ProcessRef, type ProcessUsage } from './process-stats.js';
import { formatHeadline, formatTables } from './report.js';
import { countUsageRecords, createBenchPostgresDatabase, seedDatabase } from './seed-database.js';
import { ensureBuilt, startGateway, startUpstream } from './services.js';
import { timeStreams } from './stream-timing.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** A small, realistic chat request (the upstream reports 19 prompt tokens for it). */
const MESSAGES = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'Say hello in one short sentence.' },
];

function loadTargets(direct: string, gateway: string, routerId: string, apiKey: string) {
  const headers = (key: string) => ({ 'content-type': 'application/json', authorization: `Bearer ${key}` });
  const body = (model: string, stream: boolean) =>
    JSON.stringify({ model, messages: MESSAGES, max_tokens: 64, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });
  const target = (name: string, origin: string, path: string, key: string, model: string, stream: boolean): LoadTarget => ({
    name,
    url: `${origin}${path}`,
    headers: headers(key),
    body: body(model, stream),
  });
  return {
    direct: target('direct', direct, '/v1/chat/completions', 'sk-bench', 'gpt-4o-mini', false),
    gateway: target('gateway', gateway, '/api/router/v1/chat/completions', apiKey, routerId, false),
    directStream: target('direct', direct, '/v1/chat/completions', 'sk-bench', 'gpt-4o-mini', true),
    gatewayStream: target('gateway', gateway, '/api/router/v1/chat/completions', apiKey, routerId, true),
  };
}

function problemsOf(phase: string, figures: LoadFigures): string[] {
  const problems: string[] = [];
  if (figures.non2xx > 0) problems.push(`${phase}: ${figures.non2xx} non-2xx answers`);
  if (figures.errors > 0) problems.push(`${phase}: ${figures.errors} connection errors (${figures.timeouts} timeouts)`);
  if (figures.requests === 0) problems.push(`${phase}: no answer at all`);
  return problems;
}

function perRequestUs(usage: ProcessUsage | undefined, requests: number): number | undefined {
  return usage === undefined || requests === 0 ? undefined : Math.round((usage.cpuS * 1e6) / requests);
}

function commit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

async function runBench(options: BenchOptions): Promise<{ result: BenchResult; profileText: string | undefined }> {
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replaceAll(':', '-');
  const resultsDir = resolve(ROOT, options.resultsDir);
  mkdirSync(resultsDir, { recursive: true });
  const { distOlderThanSrc } = await ensureBuilt(ROOT, options.build, log);
  if (distOlderThanSrc) log('warning: dist/ is older than src/; this measures the last build (pass --build to rebuild)');

  const scratch = mkdtempSync(join(tmpdir(), 'modelport-bench-'));
  const postgres = options.database === 'postgres' ? await createBenchPostgresDatabase() : undefined;
  const databaseUrl = postgres?.url ?? join(scratch, 'bench.db');
  const extraEnv: Record<string, string> = {
    ...(postgres === undefined ? {} : { MODELPORT_SECRET_KEY: randomBytes(32).toString('base64') }),
    ...(options.redisUrl === undefined ? {} : { REDIS_URL: options.redisUrl, MODELPORT_REDIS_PREFIX: `bench-${randomBytes(6).toString('hex')}:` }),
    ...options.gatewayEnv,
    ...(options.workers > 1 ? { MODELPORT_WORKERS: String(options.workers) } : {}),
  };
  if (postgres !== undefined || options.redisUrl !== undefined) log(`gateway on ${options.database}${options.redisUrl === undefined ? '' : ' + Redis'}`);
  try {
    const tenant = await seedDatabase(databaseUrl);
    const upstream = await startUpstream(ROOT, options.streamChunks);
    const cpuProfileDir = options.cpuProfile ? join(resultsDir, `profile-${stamp}`) : undefined;
    // BENCH_GATEWAY_NODE_ARGS: node's own flags for the gateway (V8's --trace-* are not allowed in NODE_OPTIONS);
    // BENCH_CHILD_OUTPUT=<dir> keeps what they print.
    const nodeArgs = (process.env.BENCH_GATEWAY_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
    const gateway = await startGateway(ROOT, { databaseUrl, upstreamOrigin: upstream.origin, logLevel: options.logLevel, cpuProfileDir, extraEnv, nodeArgs });
    log(`upstream ${upstream.origin} (pid ${upstream.child.pid}), gateway ${gateway.origin} (pid ${gateway.child.pid})`);
    log(`gateway: ${gateway.command}`);

    // With --workers, the gateway is a primary and its workers: sampled together (CPU and RSS summed).
    const gatewayRef: ProcessRef | undefined = gateway.child.pid === undefined ? undefined : options.workers > 1 ? { tree: gateway.child.pid } : gateway.child.pid;
    const gatewayRss = () => (gatewayRef === undefined ? Number.NaN : (sampleRef(gatewayRef)?.rssMiB ?? Number.NaN));
    // Idle: started, nothing asked yet (give start-up garbage a moment to be collected).
    await sleep(1_000);
    const idleAtStart = gatewayRss();
    const paths = loadTargets(upstream.origin, gateway.origin, tenant.routerId, tenant.apiKey);
    await preflight(paths.direct, paths.directStream, { model: 'gpt-4o-mini', meta: false });
    await preflight(paths.gateway, paths.gatewayStream, { model: 'openai:gpt-4o-mini', meta: true });
    let gatewayAnswered = 2;

    const pids = { ...(gatewayRef === undefined ? {} : { gateway: gatewayRef }), upstream: upstream.child.pid, loadGenerator: process.pid };
    const processes: PhaseUsage[] = [];
    const problems: string[] = [];
    const measured = async <F extends LoadFigures>(phase: string, target: LoadTarget, work: () => Promise<F>): Promise<F> => {
      log(`${phase}…`);
      const { value, usage, machineBusyPercent, othersPercent } = await measureProcesses(pids, work);
      const isGateway = target === paths.gateway || target === paths.gatewayStream;
      if (isGateway) gatewayAnswered += value.allResponses;
      processes.push({
        phase,
        // In a direct phase the gateway is idle beside it; its CPU there is what it takes from the direct path.
        gateway: usage.gateway,
        upstream: usage.upstream,
        gatewayCpuUsPerRequest: isGateway ? perRequestUs(usage.gateway, value.allResponses) : undefined,
        upstreamCpuUsPerRequest: perRequestUs(usage.upstream, value.allResponses),
        loadGenerator: usage.loadGenerator,
        machineBusyPercent,
        othersPercent,
      });
      problems.push(...problemsOf(phase, value));
      // Let the usage flush and the change poll run outside the next measurement.
      await sleep(300);
      return value;
    };

    await measured('warm-up direct', paths.direct, () => saturate(paths.direct, options.connections, options.warmupS));
    await measured('warm-up gateway', paths.gateway, () => saturate(paths.gateway, options.connections, options.warmupS));
    // The streamed path runs code the non-streamed one does not (the SSE parser, the relay, the chunk encoder). Without
    // its own warm-up it got 20 sequential streams before being measured, while TurboFan compiles a large function in
    // 20–55 ms on this machine, on helper threads that share the two cores: time to first byte is measured on a warm
    // gateway, as the rest.
    await measured('warm-up direct streams', paths.directStream, () => saturate(paths.directStream, options.connections, options.warmupS));
    await measured('warm-up gateway streams', paths.gatewayStream, () => saturate(paths.gatewayStream, options.connections, options.warmupS));
    processes.length = 0;

    const saturation = {
      connections: options.connections,
      direct: await measured('saturation direct', paths.direct, () => saturate(paths.direct, options.connections, options.durationS)),
      gateway: await measured('saturation gateway', paths.gateway, () => saturate(paths.gateway, options.connections, options.durationS)),
    };
    const rates: BenchResult['rates'][number][] = [];
    for (const rate of options.rates) {
      const direct = await measured(`${rate} req/s direct`, paths.direct, () => offerRate(paths.direct, rate, options.durationS));
      const routed = await measured(`${rate} req/s gateway`, paths.gateway, () => offerRate(paths.gateway, rate, options.durationS));
      rates.push({ offeredRps: rate, direct, gateway: routed });
    }

    log(`streams: ${options.streamSamples} sequential streams per path…`);
    const warmupStreams = options.light ? 3 : 20;
    const streamPhase = await measureProcesses(pids, () => timeStreams([paths.directStream, paths.gatewayStream], options.streamSamples, warmupStreams));
    gatewayAnswered += options.streamSamples + warmupStreams;
    processes.push({
      phase: 'streams (both paths, sequential)',
      gateway: streamPhase.usage.gateway,
      upstream: streamPhase.usage.upstream,
      gatewayCpuUsPerRequest: perRequestUs(streamPhase.usage.gateway, options.streamSamples + warmupStreams),
      loadGenerator: streamPhase.usage.loadGenerator,
      machineBusyPercent: streamPhase.machineBusyPercent,
      othersPercent: streamPhase.othersPercent,
    });
    const directStream = streamPhase.value.direct;
    const gatewayStream = streamPhase.value.gateway;
    if (directStream === undefined || gatewayStream === undefined) throw new Error('stream timings missing');

    let concurrentStreams: ConcurrentStreamsFigures | undefined;
    if (options.concurrentStreams > 0) {
      log(`${options.concurrentStreams} streams held open at once for ${options.holdS} s…`);
      await sleep(300);
      const phase = await measureProcesses(pids, () => holdConcurrentStreams(paths.gatewayStream, options.concurrentStreams, options.holdS, gatewayRef));
      concurrentStreams = phase.value;
      gatewayAnswered += concurrentStreams.completed;
      processes.push({
        phase: `${options.concurrentStreams} streams at once (gateway)`,
        gateway: phase.usage.gateway,
        upstream: phase.usage.upstream,
        gatewayCpuUsPerRequest: perRequestUs(phase.usage.gateway, options.concurrentStreams),
        loadGenerator: phase.usage.loadGenerator,
        machineBusyPercent: phase.machineBusyPercent,
        othersPercent: phase.othersPercent,
      });
      if (concurrentStreams.errors > 0) problems.push(`concurrent streams: ${concurrentStreams.errors} errors (${concurrentStreams.errorSamples.join('; ')})`);
    }
    // Idle again after every phase: what the load left behind (usage flushed, sockets closed, one GC cycle or more).
    await sleep(2_000);
    const idleAfterLoad = gatewayRss();
    let settled: BenchResult['idleRssMiB']['settled'];
    if (options.settleS > 2) {
      log(`waiting until ${options.settleS} s after the last phase for the settled idle RSS…`);
      await sleep((options.settleS - 2) * 1000);
      settled = { afterS: options.settleS, rssMiB: gatewayRss() };
    }
    const idleRssMiB = { atStart: idleAtStart, afterLoad: idleAfterLoad, settled };

    log('stopping the gateway (SIGTERM: drain, flush usage)…');
    await gateway.child.stop(15_000);
    await upstream.child.stop();
    const usage = await countUsageRecords(databaseUrl);

    let profileText: string | undefined;
    let cpuProfile: BenchResult['cpuProfile'];
    if (cpuProfileDir !== undefined) {
      const file = readdirSync(cpuProfileDir).find((name) => name.endsWith('.cpuprofile'));
      if (file === undefined) problems.push('the gateway wrote no CPU profile');
      else {
        const path = join(cpuProfileDir, file);
        const summary = summarizeCpuProfile(path);
        cpuProfile = { file: path, summary };
        profileText = formatCpuProfileSummary(summary, path);
      }
    }

    const { headline, targets: targetList } = computeHeadline(saturation, rates, { direct: directStream, gateway: gatewayStream }, concurrentStreams, idleRssMiB);

    const cpuList = cpus();
    const result: BenchResult = {
      schema: 'modelport-bench/1',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      mode: options.light ? 'light' : 'full',
      valid: problems.length === 0,
      problems,
      machine: {
        cpus: cpuList.length,
        cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        kernel: release(),
        note: 'Load generator, upstream and gateway all share this machine.',
      },
      commit: commit(),
      settings: {
        durationS: options.durationS,
        warmupS: options.warmupS,
        connections: options.connections,
        rates: options.rates,
        streamSamples: options.streamSamples,
        streamChunks: options.streamChunks,
        concurrentStreams: options.concurrentStreams,
        holdS: options.holdS,
        gatewayLogLevel: options.logLevel,
        workers: options.workers,
        cpuProfile: options.cpuProfile,
        distOlderThanSrc,
      },
      saturation,
      rates,
      streams: { samples: options.streamSamples, chunks: options.streamChunks, direct: directStream, gateway: gatewayStream },
      ...(concurrentStreams === undefined ? {} : { concurrentStreams }),
      idleRssMiB,
      processes,
      usageRecords: { gatewayAnswered, written: usage.total, ok: usage.ok, streamed: usage.streamed },
      headline,
      targets: targetList,
      ...(cpuProfile === undefined ? {} : { cpuProfile }),
    };
    writeFileSync(join(resultsDir, `${stamp}.json`), `${JSON.stringify(result, null, 2)}\n`);
    log(`wrote ${join(resultsDir, `${stamp}.json`)}`);
    return { result, profileText };
  } finally {
    await stopAllChildren();
    await postgres?.drop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  if (options === 'help') {
    process.stdout.write(benchHelp());
    return 0;
  }
  const { result, profileText } = await runBench(options);
  const tables = formatTables(result);
  const headline = formatHeadline(result);
  const resultsDir = resolve(ROOT, options.resultsDir);
  writeFileSync(join(resultsDir, 'latest.md'), [tables, profileText ?? '', headline].filter((part) => part !== '').join('\n'));
  process.stdout.write(`${tables}\n`);
  if (profileText !== undefined) process.stdout.write(`${profileText}\n`);
  process.stdout.write(headline);
  return result.valid ? 0 : 1;
}

// Children must never outlive the bench: on a signal, stop them and leave.
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping children`);
    void stopAllChildren().finally(() => process.exit(130));
  });
}
process.on('exit', killAllChildrenNow);

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(`${error instanceof BenchOptionsError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await stopAllChildren();
    process.exit(error instanceof BenchOptionsError ? 2 : 1);
  },
);
