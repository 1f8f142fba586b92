import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readFirstJsonLine, spawnChild, waitForHttpOk, findFreePort, type BenchChild } from './child-processes.js';

/** Environment a child gets: ours minus anything that would change how the gateway or Node behaves. */
function cleanEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined) continue;
    if (/^(MODELPORT_|TLS_|OPENAI_|NODE_TEST_|BENCH_)/.test(name)) continue;
    if (['NODE_OPTIONS', 'DATABASE_URL', 'PORT', 'HOST', 'LOG_LEVEL'].includes(name)) continue;
    env[name] = value;
  }
  return env;
}

/** Newest modification time under `directory` (bounded walk: at most 10,000 entries). */
function newestMtimeMs(directory: string): number {
  let newest = 0;
  let visited = 0;
  const pending = [directory];
  while (pending.length > 0 && visited < 10_000) {
    const current = pending.pop();
    if (current === undefined) break;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      visited += 1;
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

/**
 * Builds dist/ when it is missing (or when asked), as an operator would before
 * `npm start`. Returns whether dist/ is older than src/ afterwards (a stale build
 * measures yesterday's code: the report says so).
 */
export async function ensureBuilt(root: string, force: boolean, log: (line: string) => void): Promise<{ distOlderThanSrc: boolean }> {
  const entry = join(root, 'dist', 'main.js');
  if (force || !existsSync(entry)) {
    log(force ? 'building (npm run build)…' : 'dist/main.js is missing: building (npm run build)…');
    const build = spawnChild('npm run build', 'npm', ['run', 'build'], { cwd: root, env: cleanEnvironment() });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('npm run build took over 5 minutes')), 300_000);
      build.process.once('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve();
        else reject(new Error(`npm run build failed (exit ${code}):\n${build.output()}`));
      });
    });
  }
  if (!existsSync(entry)) throw new Error('dist/main.js is still missing after the build');
  return { distOlderThanSrc: newestMtimeMs(join(root, 'src')) > statSync(entry).mtimeMs };
}

export interface RunningUpstream {
  readonly child: BenchChild;
  readonly origin: string;
}

/** The fake OpenAI upstream in its own Node process (TypeScript through tsx). */
export async function startUpstream(root: string, streamChunks: number): Promise<RunningUpstream> {
  const child = spawnChild('upstream', process.execPath, ['--import', 'tsx', join('bench', 'upstream-server.ts')], {
    cwd: root,
    env: { ...cleanEnvironment(), UPSTREAM_PORT: '0', BENCH_STREAM_CHUNKS: String(streamChunks) },
    stdinPipe: true,
  });
  const ready = await readFirstJsonLine(child, 20_000);
  const port = typeof ready === 'object' && ready !== null && 'port' in ready ? Number(ready.port) : Number.NaN;
  if (!Number.isInteger(port) || port <= 0) throw new Error(`upstream printed no port: ${JSON.stringify(ready)}`);
  return { child, origin: `http://127.0.0.1:${port}` };
}

export interface GatewaySettings {
  readonly databaseUrl: string;
  readonly upstreamOrigin: string;
  readonly logLevel: string;
  /** When set, the gateway runs under `node --cpu-prof` and writes its profile here on exit. */
  readonly cpuProfileDir: string | undefined;
  /** Extra environment (REDIS_URL and its prefix, the secret a Postgres database needs). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /** Node's own flags before the script (V8's --trace-* flags are not allowed in NODE_OPTIONS). */
  readonly nodeArgs?: readonly string[];
}

export interface RunningGateway {
  readonly child: BenchChild;
  readonly origin: string;
  /** The command line, for the report. */
  readonly command: string;
}

/** The real gateway, started the way an operator starts it: `node dist/main.js` with its environment. */
export async function startGateway(root: string, settings: GatewaySettings): Promise<RunningGateway> {
  const port = await findFreePort();
  const env = {
    ...cleanEnvironment(),
    DATABASE_URL: settings.databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: settings.logLevel,
    MODELPORT_BOOTSTRAP: 'false',
    OPENAI_BASE_URL: `${settings.upstreamOrigin}/v1`,
    OPENAI_API_KEY: 'sk-bench',
    // Far above anything the bench can send: the limiter still runs on every request.
    MODELPORT_DEFAULT_RPM: '1000000000',
    MODELPORT_SHUTDOWN_TIMEOUT_MS: '5000',
    ...settings.extraEnv,
  };
  const profile = settings.cpuProfileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfileDir}`];
  const args = [...(settings.nodeArgs ?? []), ...profile, join('dist', 'main.js')];
  const child = spawnChild('gateway', process.execPath, args, { cwd: root, env });
  spawnChild('orphan guard', process.execPath, ['--import', 'tsx', join('bench', 'orphan-guard.ts'), String(child.pid)], {
    cwd: root,
    env: cleanEnvironment(),
    stdinPipe: true,
  });
  const origin = `http://127.0.0.1:${port}`;
  await waitForHttpOk(child, `${origin}/healthz`, 30_000);
  const extra = Object.keys(settings.extraEnv ?? {}).filter((name) => name !== 'MODELPORT_SECRET_KEY');
  const shown = ['DATABASE_URL', 'PORT', 'LOG_LEVEL', 'MODELPORT_BOOTSTRAP', 'OPENAI_BASE_URL', 'OPENAI_API_KEY', 'MODELPORT_DEFAULT_RPM', ...extra];
  const command = `${shown.map((name) => `${name}=${(env as Record<string, string | undefined>)[name]}`).join(' ')} node ${args.join(' ')}`;
  return { child, origin, command };
}
