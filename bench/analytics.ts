import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatAnalyticsTables, type AnalyticsResult, type DialectResult, type RangeName, type ReportFigures } from './analytics-result.js';
import { chooseGatewayCode, idleProbe, sampleRss, signIn, startAnalyticsGateway, startProbe, timeReport, type TimedReport } from './analytics-gateway.js';
import { benchUsageMinutes, ExpectedUsage } from './analytics-records.js';
import { seedAnalyticsTenant, writeAnalyticsRecords } from './analytics-writer.js';
import { killAllChildrenNow, stopAllChildren } from './child-processes.js';
import { summarizeLatencies, type LatencySummary } from './latency-summary.js';

/**
 * Usage analytics at volume: N usage records of one owner written through the usage recorder (rollups upserted with
 * each batch, as in production), then the real gateway on that database answering the dashboard's usage report for
 * 24 hours, 30 days and a year, while a probe times GET /healthz every 5 ms and the gateway's RSS is sampled.
 *
 *   npm run bench:analytics -- [--records N] [--dialect sqlite|postgres|both] [--database-url postgres://…] [--keep] [--light]
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const log = (line: string) => process.stderr.write(`[analytics] ${line}\n`);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const RANGES: readonly { readonly name: RangeName; readonly ms: number; readonly bucket: 'hour' | 'day' }[] = [
  { name: '24h', ms: DAY, bucket: 'hour' },
  { name: '30d', ms: 30 * DAY, bucket: 'day' },
  { name: '1y', ms: 365 * DAY, bucket: 'day' },
];
const PROBE_INTERVAL_MS = 5;

const HELP = `npm run bench:analytics [-- options]

  --records <n>          usage records to write (default 10,000,000 on Postgres, 1,000,000 on SQLite)
  --dialect <d>          sqlite, postgres or both (default both; Postgres skipped when unreachable)
  --database-url <url>   the Postgres server to create the bench database on
                         (default postgres://postgres@127.0.0.1:5432/postgres)
  --keep                 keep the database (SQLite file, Postgres database) and print where it is
  --reps <n>             timed reports per range (default 5)
  --gateway <code>       auto, dist or src (default auto: dist/ unless it is older than src/)
  --results-dir <dir>    where the JSON result goes (default bench/results)
  --light                5,000 records, 2 reports per range, 1 s idle probe (the smoke test)
`;

interface Options {
  readonly light: boolean;
  readonly records: number | undefined;
  readonly dialects: readonly ('sqlite' | 'postgres')[];
  readonly dialectAsked: boolean;
  readonly postgresUrl: string;
  readonly keep: boolean;
  readonly reps: number;
  readonly gateway: 'auto' | 'dist' | 'src';
  readonly resultsDir: string;
}

class OptionsError extends Error {}

function parseOptions(argv: readonly string[]): Options | 'help' {
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        light: { type: 'boolean', default: false },
        records: { type: 'string' },
        dialect: { type: 'string' },
        'database-url': { type: 'string' },
        keep: { type: 'boolean', default: false },
        reps: { type: 'string' },
        gateway: { type: 'string' },
        'results-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new OptionsError(`${error instanceof Error ? error.message : String(error)}\n\n${HELP}`);
  }
  if (values.help === true) return 'help';
  const whole = (name: string, text: string | undefined, min: number): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text.replaceAll('_', '').replaceAll(',', ''));
    if (!Number.isInteger(value) || value < min) throw new OptionsError(`--${name} must be a whole number of at least ${min}, not "${text}".`);
    return value;
  };
  const dialect = values.dialect ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(dialect)) throw new OptionsError(`--dialect takes sqlite, postgres or both, not "${dialect}".`);
  const gateway = values.gateway ?? 'auto';
  if (gateway !== 'auto' && gateway !== 'dist' && gateway !== 'src') throw new OptionsError(`--gateway takes auto, dist or src, not "${gateway}".`);
  const light = values.light === true;
  return {
    light,
    records: whole('records', values.records, 100) ?? (light ? 5_000 : undefined),
    dialects: dialect === 'both' ? ['sqlite', 'postgres'] : [dialect as 'sqlite' | 'postgres'],
    dialectAsked: values.dialect !== undefined && dialect !== 'both',
    postgresUrl: values['database-url'] ?? process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    keep: values.keep === true,
    reps: whole('reps', values.reps, 1) ?? (light ? 2 : 5),
    gateway,
    resultsDir: values['results-dir'] ?? 'bench/results',
  };
}

/** Cleanups still to run (databases to drop, scratch directories) should the bench be interrupted. */
const cleanups = new Set<() => Promise<void>>();

async function postgresReachable(url: string): Promise<boolean> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** A fresh database on the Postgres server of `adminUrl`; `drop` removes it. */
async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const { default: pg } = await import('pg');
  const name = `modelport_bench_analytics_${Date.now().toString(36)}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), name, drop: () => run(`drop database if exists ${name} with (force)`) };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Whether a report's totals are what was written in its range (widened to whole buckets, as it says). */
function checkReport(report: TimedReport, expected: ExpectedUsage, problems: string[], label: string): Omit<ReportFigures, 'firstMs' | 'medianMs' | 'maxMs' | 'samplesMs' | 'healthz' | 'bucket'> {
  if (report.status !== 200 || typeof report.body !== 'object' || report.body === null) {
    problems.push(`${label}: answered ${report.status}: ${JSON.stringify(report.body).slice(0, 300)}`);
    return { from: '', to: '', requests: Number.NaN, expectedRequests: Number.NaN, costUsd: Number.NaN, expectedCostUsd: Number.NaN, matched: false };
  }
  const body = report.body as { from: string; to: string; totals: { requests: number; costUsd: number }; series: { requests: number }[] };
  const want = expected.between(Date.parse(body.from), Date.parse(body.to));
  const seriesRequests = body.series.reduce((sum, point) => sum + point.requests, 0);
  const matched = body.totals.requests === want.requests && Math.round(body.totals.costUsd * 1e10) === want.costUnits && seriesRequests === want.requests;
  if (!matched) {
    problems.push(`${label}: totals ${body.totals.requests} requests, $${body.totals.costUsd} (series ${seriesRequests}); wrote ${want.requests}, $${want.costUnits / 1e10} in [${body.from}, ${body.to})`);
  }
  return { from: body.from, to: body.to, requests: body.totals.requests, expectedRequests: want.requests, costUsd: body.totals.costUsd, expectedCostUsd: want.costUnits / 1e10, matched };
}

async function runDialect(dialect: 'sqlite' | 'postgres', options: Options, code: 'dist' | 'src', problems: string[]): Promise<DialectResult> {
  const records = options.records ?? (dialect === 'postgres' ? 10_000_000 : 1_000_000);
  const scratch = mkdtempSync(join(tmpdir(), 'modelport-bench-analytics-'));
  const postgres = dialect === 'postgres' ? await createPostgresDatabase(options.postgresUrl) : undefined;
  const databaseUrl = postgres?.url ?? join(scratch, 'analytics.db');
  const cleanup = async () => {
    await stopAllChildren();
    if (!options.keep) {
      await postgres?.drop();
      rmSync(scratch, { recursive: true, force: true });
    }
  };
  cleanups.add(cleanup);
  const label = (what: string) => `${dialect} ${what}`;
  try {
    log(`${dialect}: ${records.toLocaleString('en')} records into ${databaseUrl}`);
    const tenant = await seedAnalyticsTenant(databaseUrl);
    const now = Date.now();
    const minutes = benchUsageMinutes(now);
    const expected = new ExpectedUsage(minutes.firstMinute, minutes.minutes);
    const write = await writeAnalyticsRecords(databaseUrl, tenant, records, now, expected, log);
    if (write.dropped > 0 || write.flushErrors > 0) problems.push(label(`writing: ${write.dropped} records not written, ${write.flushErrors} failed flushes`));
    log(`${dialect}: wrote ${write.records.toLocaleString('en')} records in ${write.seconds} s (${write.recordsPerS.toLocaleString('en')} records/s)`);

    const extraEnv = dialect === 'postgres' ? { MODELPORT_SECRET_KEY: randomBytes(32).toString('base64') } : {};
    const gateway = await startAnalyticsGateway(ROOT, databaseUrl, code, extraEnv);
    log(`${dialect}: gateway ${gateway.origin} (pid ${gateway.child.pid}, ${code})`);
    // Past its start-up work (first queries, timers set up, the writer thread's first stop) before anything is timed.
    await sleep(options.light ? 1_000 : 5_000);
    const cookie = await signIn(gateway.origin, tenant.email, tenant.password);

    log(`${dialect}: idle probe…`);
    // The probe's own path warmed first (connection, the handler compiled): idle is then what a quiet gateway answers.
    await idleProbe(gateway.origin, PROBE_INTERVAL_MS, 1);
    const idleRss = sampleRss(gateway.child.pid, 20);
    const idle = await idleProbe(gateway.origin, PROBE_INTERVAL_MS, options.light ? 2 : 5);
    const rssIdle = idleRss.stop().medianMiB;

    const reports = {} as Record<RangeName, ReportFigures>;
    const underReports: number[] = [];
    const probe = startProbe(`${gateway.origin}/healthz`, PROBE_INTERVAL_MS);
    for (const range of RANGES) {
      log(`${dialect}: ${range.name} report × ${options.reps + 1}…`);
      const first = await timeReport(gateway.origin, cookie, tenant.ownerId, range.ms, range.bucket);
      const check = checkReport(first, expected, problems, label(range.name));
      const samples: number[] = [];
      for (let rep = 0; rep < options.reps; rep += 1) {
        const timed = await timeReport(gateway.origin, cookie, tenant.ownerId, range.ms, range.bucket);
        checkReport(timed, expected, problems, label(`${range.name} #${rep + 2}`));
        samples.push(timed.ms);
      }
      const latencies = probe.take();
      underReports.push(...latencies);
      reports[range.name] = {
        bucket: range.bucket,
        ...check,
        firstMs: round(first.ms),
        medianMs: round(median(samples)),
        maxMs: round(Math.max(...samples)),
        samplesMs: samples.map((ms) => round(ms)),
        healthz: summarizeLatencies(latencies),
      };
    }
    underReports.push(...(await probe.stop()));

    log(`${dialect}: two 1-year reports at once × ${options.reps}…`);
    await sleep(500);
    const rssBeforePair = sampleRss(gateway.child.pid, 20);
    await sleep(500);
    const rssIdleBeforePair = rssBeforePair.stop().medianMiB;
    const pairRss = sampleRss(gateway.child.pid, 10);
    const pairProbe = startProbe(`${gateway.origin}/healthz`, PROBE_INTERVAL_MS);
    const pairMs: number[] = [];
    for (let rep = 0; rep < options.reps; rep += 1) {
      const started = performance.now();
      const pair = await Promise.all([0, 1].map(() => timeReport(gateway.origin, cookie, tenant.ownerId, 365 * DAY, 'day')));
      pairMs.push(performance.now() - started);
      for (const [index, report] of pair.entries()) checkReport(report, expected, problems, label(`two at once #${rep + 1}.${index + 1}`));
    }
    const pairLatencies = await pairProbe.stop();
    const pairRssFigures = pairRss.stop();

    log(`${dialect}: stopping the gateway…`);
    await gateway.child.stop(15_000);
    const healthzUnderReports = summarizeLatencies(underReports);
    const ratio = (of: LatencySummary) => ({ p50: round(of.p50 / idle.p50), p99: round(of.p99 / idle.p99), max: round(of.max / idle.max) });
    return {
      dialect,
      database: options.keep ? databaseUrl : undefined,
      records,
      write,
      gateway: { code, command: gateway.command },
      reports,
      healthz: { intervalMs: PROBE_INTERVAL_MS, idle, underReports: healthzUnderReports, underTwoReports: summarizeLatencies(pairLatencies), ratioUnderReports: ratio(healthzUnderReports) },
      rss: { idleMiB: rssIdle, beforeTwoReportsMiB: rssIdleBeforePair, twoReportsMaxMiB: pairRssFigures.maxMiB, samples: pairRssFigures.samples },
      twoReports: { pairs: options.reps, medianMs: round(median(pairMs)), maxMs: round(Math.max(...pairMs)) },
      totalsMatched: RANGES.every((range) => reports[range.name].matched) && !problems.some((problem) => problem.startsWith(`${dialect} `)),
    };
  } finally {
    cleanups.delete(cleanup);
    await cleanup();
    if (options.keep) log(`${dialect}: kept ${databaseUrl}`);
  }
}

function commit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  if (options === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  const startedAt = new Date();
  const problems: string[] = [];
  const skipped: string[] = [];
  const dialects: DialectResult[] = [];
  const code = await chooseGatewayCode(ROOT, options.gateway, log);
  for (const dialect of options.dialects) {
    if (dialect === 'postgres' && !(await postgresReachable(options.postgresUrl))) {
      if (options.dialectAsked) throw new Error(`Postgres is not reachable at ${options.postgresUrl}`);
      skipped.push(`postgres: not reachable at ${options.postgresUrl}`);
      log(`postgres not reachable at ${options.postgresUrl}: skipped`);
      continue;
    }
    dialects.push(await runDialect(dialect, options, code, problems));
  }
  const cpuList = cpus();
  const result: AnalyticsResult = {
    schema: 'modelport-bench-analytics/1',
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    mode: options.light ? 'light' : 'full',
    valid: problems.length === 0 && dialects.length > 0,
    problems,
    skipped,
    machine: { cpus: cpuList.length, cpuModel: cpuList[0]?.model.trim() ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version, kernel: release() },
    commit: commit(),
    settings: { reps: options.reps, probeIntervalMs: PROBE_INTERVAL_MS, gatewayCode: code },
    dialects,
  };
  const resultsDir = resolve(ROOT, options.resultsDir);
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `analytics-${startedAt.toISOString().replaceAll(':', '-')}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(formatAnalyticsTables(result));
  log(`wrote ${file}`);
  return result.valid ? 0 : 1;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    log(`${signal}: stopping the gateway and dropping the bench database`);
    void Promise.allSettled([...cleanups].map((cleanup) => cleanup())).finally(() => process.exit(130));
  });
}
process.on('exit', killAllChildrenNow);

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    process.stderr.write(`${error instanceof OptionsError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    await Promise.allSettled([...cleanups].map((cleanup) => cleanup()));
    process.exit(error instanceof OptionsError ? 2 : 1);
  },
);
