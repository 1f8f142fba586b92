import { parseArgs } from 'node:util';

export interface BenchOptions {
  /** A few seconds in all: 1 s phases, one rate, few stream samples (the smoke test). */
  readonly light: boolean;
  /** Seconds of each measured load phase. @default 10 (light: 1) */
  readonly durationS: number;
  /** Seconds of saturating load on each target before anything is measured. @default 3 (light: 0.5) */
  readonly warmupS: number;
  /** Offered request rates for the latency phases, req/s. @default [500, 2000] (light: the first only) */
  readonly rates: readonly number[];
  /** Connections of the saturation phase. @default 16 */
  readonly connections: number;
  /** Sequential streaming requests per target for time to first byte. @default 400 (light: 20) */
  readonly streamSamples: number;
  /** Content chunks of each upstream stream. @default 16 */
  readonly streamChunks: number;
  /** Streams held open at once through the gateway (0: skip the phase). @default 5000 (light: 100) */
  readonly concurrentStreams: number;
  /** Seconds each of those streams stays open: long enough for all of them to be open together. @default 40 (light: 2) */
  readonly holdS: number;
  /** Seconds after the last phase before the settled idle RSS is read (0: not read; the 2 s reading always is). @default 0 */
  readonly settleS: number;
  /** The gateway's LOG_LEVEL. `info` writes one log line per request. @default "warn" */
  readonly logLevel: string;
  /** More of the gateway's environment, as `NAME=value` (e.g. MODELPORT_HEAP_GROWING_PERCENT=0). @default {} */
  readonly gatewayEnv: Readonly<Record<string, string>>;
  /** Run the gateway under `node --cpu-prof` and summarise its hottest functions. @default false */
  readonly cpuProfile: boolean;
  /** Run `npm run build` even when dist/ exists. @default false */
  readonly build: boolean;
  /** Where results go. @default "bench/results" */
  readonly resultsDir: string;
  /** The gateway's database: a fresh SQLite file, or a fresh database on the Postgres server of BENCH_POSTGRES_URL. @default "sqlite" */
  readonly database: 'sqlite' | 'postgres';
  /** Redis for shared state (BENCH_REDIS_URL), under a random key prefix; undefined: none. */
  readonly redisUrl: string | undefined;
  /** The gateway's processes: 1, one process (the targets' case); N > 1, `MODELPORT_WORKERS=N` (a primary and N workers, measured together). @default 1 */
  readonly workers: number;
}

export class BenchOptionsError extends Error {}

const HELP = `npm run bench [-- options]

  --light                 a few seconds in all (1 s phases, one rate, few stream samples)
  --duration <s>          seconds per measured phase          (BENCH_DURATION_S, default 10)
  --rates <r1,r2>         offered req/s for latency phases     (BENCH_RATES, default 500,2000)
  --connections <n>       connections when saturating          (BENCH_CONNECTIONS, default 16)
  --stream-samples <n>    sequential streams per target        (BENCH_STREAM_SAMPLES, default 400)
  --concurrent-streams <n> streams held open at once          (BENCH_CONCURRENT_STREAMS, default 5000; 0 skips)
  --hold <s>              seconds each of them stays open      (BENCH_HOLD_S, default 40)
  --settle <s>            also read the idle RSS this long after the last phase
                          (BENCH_SETTLE_S, default 0: only the 2 s reading)
  --log-level <level>     the gateway's LOG_LEVEL              (BENCH_LOG_LEVEL, default warn)
  --gateway-env <N=v,…>   more of the gateway's environment    (BENCH_GATEWAY_ENV, e.g. MODELPORT_HEAP_GROWING_PERCENT=0)
  --cpu-prof              profile the gateway (node --cpu-prof) (BENCH_CPU_PROF=1)
  --build                 npm run build first even if dist/ exists
  --results-dir <dir>     where results go                     (BENCH_RESULTS_DIR, default bench/results)
  --database <d>          sqlite or postgres (a fresh database on BENCH_POSTGRES_URL,
                          default postgres://postgres@127.0.0.1:5432/postgres)  (BENCH_DATABASE)
  --redis                 shared state in Redis at BENCH_REDIS_URL (default redis://127.0.0.1:6379)
  --workers <n>           the gateway as MODELPORT_WORKERS=n: a primary and n workers, their CPU
                          and RSS summed (BENCH_WORKERS, default 1: one process, as the targets are)
`;

export function benchHelp(): string {
  return HELP;
}

function number(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max) throw new BenchOptionsError(`${name} must be a number from ${min} to ${max}, not "${text}".`);
  return value;
}

function flagOn(text: string | undefined): boolean {
  return text !== undefined && ['1', 'true', 'yes'].includes(text.trim().toLowerCase());
}

/** Flags win over environment variables, which win over the defaults. */
export function parseBenchOptions(argv: readonly string[], env: Record<string, string | undefined>): BenchOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        light: { type: 'boolean', default: false },
        duration: { type: 'string' },
        rates: { type: 'string' },
        connections: { type: 'string' },
        'stream-samples': { type: 'string' },
        'concurrent-streams': { type: 'string' },
        hold: { type: 'string' },
        settle: { type: 'string' },
        'log-level': { type: 'string' },
        'gateway-env': { type: 'string' },
        'cpu-prof': { type: 'boolean', default: false },
        build: { type: 'boolean', default: false },
        'results-dir': { type: 'string' },
        database: { type: 'string' },
        redis: { type: 'boolean', default: false },
        workers: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new BenchOptionsError(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
  }
  const flags = parsed.values;
  if (flags.help === true) return 'help';
  const light = flags.light === true || flagOn(env.BENCH_LIGHT);

  const rateText = flags.rates ?? env.BENCH_RATES;
  const rates =
    rateText === undefined || rateText.trim() === ''
      ? [500, 2000]
      : rateText.split(',').map((entry) => number('BENCH_RATES entry', entry, 0, 1, 100_000));
  if (rates.length === 0 || rates.length > 8) throw new BenchOptionsError('BENCH_RATES takes one to eight rates.');

  const logLevel = flags['log-level'] ?? env.BENCH_LOG_LEVEL ?? 'warn';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    throw new BenchOptionsError(`BENCH_LOG_LEVEL must be a pino level, not "${logLevel}".`);
  }

  const gatewayEnv: Record<string, string> = {};
  for (const entry of (flags['gateway-env'] ?? env.BENCH_GATEWAY_ENV ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const match = /^\s*([A-Z_][A-Z0-9_]*)=(.*)$/.exec(entry);
    if (match === null) throw new BenchOptionsError(`BENCH_GATEWAY_ENV takes NAME=value entries, not "${entry}".`);
    gatewayEnv[match[1]!] = match[2]!.trim();
  }

  return {
    light,
    durationS: number('BENCH_DURATION_S', flags.duration ?? env.BENCH_DURATION_S, light ? 1 : 10, 0.5, 600),
    warmupS: light ? 0.5 : 3,
    rates: light ? rates.slice(0, 1) : rates,
    connections: Math.round(number('BENCH_CONNECTIONS', flags.connections ?? env.BENCH_CONNECTIONS, 16, 1, 1024)),
    streamSamples: Math.round(number('BENCH_STREAM_SAMPLES', flags['stream-samples'] ?? env.BENCH_STREAM_SAMPLES, light ? 20 : 400, 1, 100_000)),
    concurrentStreams: Math.round(number('BENCH_CONCURRENT_STREAMS', flags['concurrent-streams'] ?? env.BENCH_CONCURRENT_STREAMS, light ? 100 : 5000, 0, 20_000)),
    holdS: number('BENCH_HOLD_S', flags.hold ?? env.BENCH_HOLD_S, light ? 2 : 40, 1, 600),
    settleS: number('BENCH_SETTLE_S', flags.settle ?? env.BENCH_SETTLE_S, 0, 0, 600),
    streamChunks: Math.round(number('BENCH_STREAM_CHUNKS', env.BENCH_STREAM_CHUNKS, 16, 1, 1000)),
    logLevel,
    gatewayEnv,
    cpuProfile: flags['cpu-prof'] === true || flagOn(env.BENCH_CPU_PROF),
    build: flags.build === true,
    resultsDir: flags['results-dir'] ?? env.BENCH_RESULTS_DIR ?? 'bench/results',
    database: databaseOption(flags.database ?? env.BENCH_DATABASE),
    redisUrl: flags.redis === true || flagOn(env.BENCH_REDIS) ? (env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379') : undefined,
    // MODELPORT_WORKERS given through --gateway-env is the same choice (0 is one process, as for the gateway).
    workers: Math.round(number('BENCH_WORKERS', flags.workers ?? env.BENCH_WORKERS ?? (gatewayEnv.MODELPORT_WORKERS === '0' ? '1' : gatewayEnv.MODELPORT_WORKERS), 1, 1, 16)),
  };
}

function databaseOption(text: string | undefined): 'sqlite' | 'postgres' {
  if (text === undefined || text === '' || text === 'sqlite') return 'sqlite';
  if (text === 'postgres') return 'postgres';
  throw new BenchOptionsError(`--database takes sqlite or postgres, not "${text}".`);
}
