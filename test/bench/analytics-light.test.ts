import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { field, isFiniteNumber } from '../support/json-field.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

// That the bench runs end to end, writes every figure and finds the reports' totals equal to what it wrote; timings
// on a shared machine prove nothing.
describe('npm run bench:analytics -- --light', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'modelport-bench-analytics-test-'));
  after(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('exits 0 and writes a JSON result whose totals matched', { timeout: 240_000 }, async () => {
    const withPostgres = await postgresReachable();
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('NODE_TEST') && !name.startsWith('BENCH_') && name !== 'NODE_OPTIONS') env[name] = value;
    }
    const args = ['--import', 'tsx', 'bench/analytics.ts', '--light', '--records', '20000', '--dialect', withPostgres ? 'both' : 'sqlite', '--database-url', POSTGRES_URL, '--results-dir', resultsDir];
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    const killer = setTimeout(() => child.kill('SIGINT'), 220_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);
    assert.equal(code, 0, `bench exited ${code}\n${stdout.slice(-3000)}\n${stderr.slice(-4000)}`);

    const files = readdirSync(resultsDir).filter((name) => name.endsWith('.json'));
    assert.equal(files.length, 1, `expected one JSON result in ${resultsDir}, found ${files.join(', ')}`);
    const result: unknown = JSON.parse(readFileSync(join(resultsDir, files[0] ?? ''), 'utf8'));
    assert.equal(field(result, 'schema'), 'modelport-bench-analytics/1');
    assert.equal(field(result, 'mode'), 'light');
    assert.equal(field(result, 'valid'), true);
    assert.deepEqual(field(result, 'problems'), []);
    const dialects = field(result, 'dialects') as unknown[];
    assert.deepEqual(
      dialects.map((dialect) => field(dialect, 'dialect')),
      withPostgres ? ['sqlite', 'postgres'] : ['sqlite'],
    );
    for (const dialect of dialects) {
      const name = String(field(dialect, 'dialect'));
      assert.equal(field(dialect, 'records'), 20_000, name);
      assert.equal(field(dialect, 'write.records'), 20_000, `${name}: every record written`);
      assert.equal(field(dialect, 'write.dropped'), 0, name);
      assert.equal(field(dialect, 'write.writer'), name === 'sqlite' ? 'sqlite-writer-thread' : 'inline');
      assert.ok(isFiniteNumber(field(dialect, 'write.recordsPerS')), `${name} write.recordsPerS`);
      assert.equal(field(dialect, 'totalsMatched'), true, `${name}: totals matched`);
      for (const range of ['24h', '30d', '1y']) {
        const report = field(dialect, `reports.${range}`);
        assert.equal(field(report, 'matched'), true, `${name} ${range} matched`);
        assert.equal(field(report, 'requests'), field(report, 'expectedRequests'), `${name} ${range} requests`);
        assert.equal(field(report, 'costUsd'), field(report, 'expectedCostUsd'), `${name} ${range} cost`);
        for (const figure of ['firstMs', 'medianMs', 'maxMs', 'healthz.p50', 'healthz.p99', 'healthz.max']) assert.ok(isFiniteNumber(field(report, figure)), `${name} ${range} ${figure}`);
      }
      // 80 % of the records in the last day, all of them in the last year.
      assert.equal(field(dialect, 'reports.1y.requests'), 20_000, `${name}: the year holds every record`);
      assert.ok((field(dialect, 'reports.24h.requests') as number) >= 15_900, `${name}: the last day holds about 80 %`);
      for (const figure of [
        'healthz.idle.p50',
        'healthz.idle.p99',
        'healthz.idle.max',
        'healthz.underReports.p50',
        'healthz.underReports.p99',
        'healthz.underReports.max',
        'healthz.underTwoReports.p99',
        'healthz.ratioUnderReports.p50',
        'healthz.ratioUnderReports.p99',
        'healthz.ratioUnderReports.max',
        'rss.idleMiB',
        'rss.twoReportsMaxMiB',
        'twoReports.medianMs',
        'twoReports.maxMs',
      ]) {
        assert.ok(isFiniteNumber(field(dialect, figure)), `${name} ${figure}`);
      }
    }
    assert.ok(stdout.includes('Totals equal what was written: **yes**'), 'the table says the totals matched');
  });
});
