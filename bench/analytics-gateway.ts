import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findFreePort, spawnChild, waitForHttpOk, type BenchChild } from './child-processes.js';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';
import { sampleProcess } from './process-stats.js';
import { ensureBuilt } from './services.js';

export interface AnalyticsGateway {
  readonly child: BenchChild;
  readonly origin: string;
  /** `dist`: node dist/main.js; `src`: the working tree through tsx (its loader's memory counts in the RSS). */
  readonly code: 'dist' | 'src';
  readonly command: string;
}

/** Environment a child gets: ours minus anything that would change how the gateway or Node behaves (as services.ts). */
function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(MODELPORT_|TLS_|OPENAI_|NODE_TEST_|BENCH_)/.test(name)) continue;
    if (['NODE_OPTIONS', 'DATABASE_URL', 'PORT', 'HOST', 'LOG_LEVEL'].includes(name)) continue;
    env[name] = value;
  }
  return env;
}

/**
 * Which code to run: `auto` takes dist/ when it is at least as new as src/ (what an operator runs), else src/ through
 * tsx, so that a stale build never measures yesterday's reports (nor migrates a database it does not know).
 */
export async function chooseGatewayCode(root: string, wanted: 'auto' | 'dist' | 'src', log: (line: string) => void): Promise<'dist' | 'src'> {
  if (wanted === 'src') return 'src';
  if (wanted === 'auto' && !existsSync(join(root, 'dist', 'main.js'))) return 'src';
  const { distOlderThanSrc } = await ensureBuilt(root, false, log);
  if (!distOlderThanSrc) return 'dist';
  if (wanted === 'dist') {
    log('warning: dist/ is older than src/; this measures the last build');
    return 'dist';
  }
  log('dist/ is older than src/: running src/main.ts through tsx (build, or pass --gateway dist)');
  return 'src';
}

/** The real gateway on `databaseUrl`, as an operator starts it, with a guard that stops it if the bench dies. */
export async function startAnalyticsGateway(root: string, databaseUrl: string, code: 'dist' | 'src', extraEnv: Record<string, string>): Promise<AnalyticsGateway> {
  const port = await findFreePort();
  const env = {
    ...cleanEnvironment(),
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    MODELPORT_BOOTSTRAP: 'false',
    MODELPORT_SHUTDOWN_TIMEOUT_MS: '5000',
    ...extraEnv,
  };
  const args = code === 'dist' ? [join('dist', 'main.js')] : ['--import', 'tsx', join('src', 'main.ts')];
  const child = spawnChild('gateway', process.execPath, args, { cwd: root, env });
  spawnChild('orphan guard', process.execPath, ['--import', 'tsx', join('bench', 'orphan-guard.ts'), String(child.pid)], { cwd: root, env: cleanEnvironment(), stdinPipe: true });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttpOk(child, `${origin}/healthz`, 60_000);
  return { child, origin, code, command: `DATABASE_URL=${databaseUrl} PORT=${port} LOG_LEVEL=warn node ${args.join(' ')}` };
}

/** A dashboard session: signs in with the owner's password, as the sign-in page does; the cookie for later requests. */
export async function signIn(origin: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${origin}/api/dashboard/auth/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const text = await response.text();
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (response.status !== 200 || cookie === undefined) throw new Error(`sign-in answered ${response.status}: ${text.slice(0, 500)}`);
  return cookie;
}

export interface TimedReport {
  readonly ms: number;
  readonly status: number;
  readonly body: unknown;
}

/** GET /usage over [to - rangeMs, to), timed from the request to the whole body read. */
export async function timeReport(origin: string, cookie: string, workspaceId: string, rangeMs: number, bucket: 'hour' | 'day'): Promise<TimedReport> {
  const to = Date.now();
  const url = `${origin}/api/dashboard/workspaces/${workspaceId}/usage?from=${to - rangeMs}&to=${to}&bucket=${bucket}`;
  const started = performance.now();
  const response = await fetch(url, { headers: { cookie } });
  const text = await response.text();
  const ms = performance.now() - started;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Kept as text for the error message.
  }
  return { ms, status: response.status, body };
}

export interface Probe {
  /** Stops probing; resolves with the latencies of the probes made since start, ms. */
  stop(): Promise<number[]>;
  /** The latencies so far, and from now on into a fresh list (one list per phase). */
  take(): number[];
}

/** GET `url` every `intervalMs` (one at a time: a slow answer delays the next), each one timed. */
export function startProbe(url: string, intervalMs: number): Probe {
  let running = true;
  let latencies: number[] = [];
  let failures = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const response = await fetch(url);
        await response.arrayBuffer();
        if (response.status !== 200) failures += 1;
      } catch {
        failures += 1;
      }
      const elapsed = performance.now() - started;
      latencies.push(elapsed);
      if (elapsed < intervalMs) await sleep(intervalMs - elapsed);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failures > 0) throw new Error(`${failures} health probes failed`);
      return latencies;
    },
    take() {
      const taken = latencies;
      latencies = [];
      return taken;
    },
  };
}

export interface RssSampler {
  /** Stops sampling; the largest and the median VmRSS seen, MiB. */
  stop(): { maxMiB: number; medianMiB: number; samples: number };
}

/** Reads the process's VmRSS every `intervalMs`. */
export function sampleRss(pid: number, intervalMs: number): RssSampler {
  const values: number[] = [];
  const read = () => {
    const sample = sampleProcess(pid);
    if (sample !== undefined) values.push(sample.rssMiB);
  };
  read();
  const timer = setInterval(read, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      read();
      const sorted = [...values].sort((a, b) => a - b);
      return { maxMiB: sorted[sorted.length - 1] ?? Number.NaN, medianMiB: sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, samples: values.length };
    },
  };
}

/** Probe latencies of an idle gateway for `seconds`. */
export async function idleProbe(origin: string, intervalMs: number, seconds: number): Promise<LatencySummary> {
  const probe = startProbe(`${origin}/healthz`, intervalMs);
  await sleep(seconds * 1000);
  return summarizeLatencies(await probe.stop());
}

