/**
 * What one held stream costs the gateway: holds N streams open (default 1,000),
 * then takes a heap snapshot of the gateway (after a full GC, so only live objects
 * remain) and prints its RSS, heap and the largest object kinds by shallow size.
 *
 *   npx tsx bench/stream-heap.ts [streams] [holdS]
 *
 * STREAM_HEAP_SETTLE_S=<s>: then stay idle that long and print the gateway's RSS and its idle-collection log line
 * (what it gives back once idle; MODELPORT_IDLE_COLLECT_MS from STREAM_HEAP_IDLE_COLLECT_MS, default the gateway's).
 * The gateway logs at `info` then (one line per request, which its log buffer holds while the streams open);
 * STREAM_HEAP_LOG_LEVEL sets another level. STREAM_HEAP_SNAPSHOT=settled takes the snapshot after the settling
 * instead of while the streams are held (what the load left live); 0 takes none. MALLOC_ARENA_MAX, when set, is passed
 * to the gateway (glibc's arena limit: the gateway then leaves it alone; see src/lib/malloc-arenas.ts).
 *
 * Uses dist/ (build it first). The snapshot is left in a temporary directory.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { findFreePort, spawnChild, stopAllChildren, waitForHttpOk } from './child-processes.js';
import { holdConcurrentStreams } from './concurrent-streams.js';
import { sampleProcess } from './process-stats.js';
import { seedDatabase } from './seed-database.js';
import { startUpstream } from './services.js';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const streams = Number(process.argv[2] ?? '1000');
const holdS = Number(process.argv[3] ?? '30');
const settleS = Number(process.env.STREAM_HEAP_SETTLE_S ?? '0');
const idleCollectMs = process.env.STREAM_HEAP_IDLE_COLLECT_MS;

const work = mkdtempSync(join(tmpdir(), 'modelport-stream-heap-'));
const databaseUrl = join(work, 'bench.db');
try {
  const upstream = await startUpstream(ROOT, 16);
  const tenant = await seedDatabase(databaseUrl);
  const port = await findFreePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    // info when settling: the idle collection's log line (one line per request too).
    LOG_LEVEL: process.env.STREAM_HEAP_LOG_LEVEL ?? (settleS > 0 ? 'info' : 'warn'),
    MODELPORT_BOOTSTRAP: 'false',
    OPENAI_BASE_URL: `${upstream.origin}/v1`,
    OPENAI_API_KEY: 'sk-bench',
    MODELPORT_DEFAULT_RPM: '1000000000',
    MODELPORT_SHUTDOWN_TIMEOUT_MS: '5000',
    ...(idleCollectMs === undefined ? {} : { MODELPORT_IDLE_COLLECT_MS: idleCollectMs }),
    ...(process.env.MALLOC_ARENA_MAX === undefined ? {} : { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX }),
  };
  const gateway = spawnChild('gateway', process.execPath, [...(process.env.STREAM_HEAP_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''), '--heapsnapshot-signal=SIGUSR2', join(ROOT, 'dist', 'main.js')], { cwd: work, env });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttpOk(gateway, `${origin}/healthz`, 30_000);
  const before = sampleProcess(gateway.pid)?.rssMiB;
  const target = {
    name: 'gateway',
    url: `${origin}/api/router/v1/chat/completions`,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.apiKey}` },
    body: JSON.stringify({ model: tenant.routerId, messages: [{ role: 'user', content: 'Say hello in one short sentence.' }], max_tokens: 64, stream: true, stream_options: { include_usage: true } }),
  };
  const held = holdConcurrentStreams(target, streams, holdS, gateway.pid);
  // Snapshot once every stream is open (or most of the hold has passed).
  await sleep(Math.round(holdS * 600));
  const during = sampleProcess(gateway.pid)?.rssMiB;
  const snapshotWhen = process.env.STREAM_HEAP_SNAPSHOT ?? 'held';
  if (snapshotWhen !== '0' && snapshotWhen !== 'settled') process.kill(gateway.pid, 'SIGUSR2');
  const figures = await held;
  if (settleS > 0) {
    await sleep(settleS * 1000);
    const collected = gateway.output().split('\n').filter((line) => line.includes('"idle: '));
    process.stdout.write(`after ${settleS} s idle: gateway RSS ${sampleProcess(gateway.pid)?.rssMiB} MiB\n${collected.join('\n')}\n`);
    if (snapshotWhen === 'settled') {
      process.kill(gateway.pid, 'SIGUSR2');
      await waitForSnapshot(work);
    }
  }
  process.stdout.write(`streams ${figures.opened}/${streams} open, ${figures.errors} errors; gateway RSS ${before} MiB before, ${during} MiB when the snapshot was taken, ${figures.gatewayRssMaxMiB} MiB at most\n`);
  const file = readdirSync(work).find((name) => name.endsWith('.heapsnapshot'));
  if (file !== undefined) summarise(join(work, file), streams);
} finally {
  await stopAllChildren();
}

/** Until the gateway has written its heap snapshot (into its cwd): the file's size no longer changes. */
async function waitForSnapshot(directory: string): Promise<void> {
  let size = -1;
  for (let waited = 0; waited < 120; waited += 1) {
    await sleep(1_000);
    const file = readdirSync(directory).find((name) => name.endsWith('.heapsnapshot'));
    const current = file === undefined ? -1 : statSync(join(directory, file)).size;
    if (current > 0 && current === size) return;
    size = current;
  }
}

/** Shallow sizes by object kind (constructor or closure name), largest first. */
function summarise(path: string, perStream: number): void {
  const snapshot = JSON.parse(readFileSync(path, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const types = snapshot.snapshot.meta.node_types[0];
  const byKind = new Map<string, { count: number; bytes: number }>();
  let total = 0;
  for (let index = 0; index < snapshot.nodes.length; index += width) {
    const type = types[snapshot.nodes[index + typeAt] as number] ?? '?';
    const name = snapshot.strings[snapshot.nodes[index + nameAt] as number] ?? '?';
    const bytes = snapshot.nodes[index + sizeAt] as number;
    total += bytes;
    const kind = type === 'object' || type === 'closure' ? `${type} ${name}` : type;
    const entry = byKind.get(kind) ?? { count: 0, bytes: 0 };
    entry.count += 1;
    entry.bytes += bytes;
    byKind.set(kind, entry);
  }
  process.stdout.write(`heap snapshot ${path}: ${(total / 1048576).toFixed(1)} MiB live\n| kind | count | KiB | bytes per stream |\n|---|---:|---:|---:|\n`);
  for (const [kind, entry] of [...byKind].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 40)) {
    process.stdout.write(`| ${kind.slice(0, 80)} | ${entry.count} | ${Math.round(entry.bytes / 1024)} | ${Math.round(entry.bytes / perStream)} |\n`);
  }
}
