import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { field, isFiniteNumber } from '../support/json-field.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

// Only that the bench runs end to end and writes its result: timings on a shared CI machine prove nothing.
describe('npm run bench -- --light', () => {
  const resultsDir = mkdtempSync(join(tmpdir(), 'modelport-bench-test-'));
  after(() => rmSync(resultsDir, { recursive: true, force: true }));

  it('exits 0 and writes a JSON result with every figure', { timeout: 90_000 }, async () => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) {
      if (value !== undefined && !name.startsWith('NODE_TEST') && !name.startsWith('BENCH_') && name !== 'NODE_OPTIONS') env[name] = value;
    }
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--light', '--results-dir', resultsDir], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    const killer = setTimeout(() => child.kill('SIGINT'), 80_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);
    assert.equal(code, 0, `bench exited ${code}\n${stderr.slice(-4000)}`);

    const files = readdirSync(resultsDir).filter((name) => name.endsWith('.json'));
    assert.equal(files.length, 1, `expected one JSON result in ${resultsDir}, found ${files.join(', ')}`);
    const result: unknown = JSON.parse(readFileSync(join(resultsDir, files[0] ?? ''), 'utf8'));
    assert.equal(field(result, 'schema'), 'modelport-bench/1');
    assert.equal(field(result, 'mode'), 'light');
    assert.equal(field(result, 'valid'), true);
    for (const path of ['direct', 'gateway']) {
      for (const figure of ['achievedRps', 'latencyMs.p50', 'latencyMs.p90', 'latencyMs.p99']) {
        assert.ok(isFiniteNumber(field(result, `saturation.${path}.${figure}`)), `saturation.${path}.${figure}`);
      }
      for (const figure of ['p50', 'p90', 'p99']) assert.ok(isFiniteNumber(field(result, `streams.${path}.ttfbMs.${figure}`)), `streams.${path}.ttfbMs.${figure}`);
    }
    const rates = field(result, 'rates');
    assert.ok(Array.isArray(rates) && rates.length === 1, 'one rate in light mode');
    for (const path of ['direct', 'gateway']) {
      for (const figure of ['offeredRps', 'achievedRps', 'latencyMs.p50', 'latencyMs.p99']) assert.ok(isFiniteNumber(field(rates[0], `${path}.${figure}`)), `rates[0].${path}.${figure}`);
    }
    assert.ok(isFiniteNumber(field(result, 'headline.throughputRatio')));
    const added = field(result, 'headline.addedLatencyMs');
    assert.ok(Array.isArray(added) && added.length === 1);
    assert.ok(isFiniteNumber(field(added[0], 'p50')) && isFiniteNumber(field(added[0], 'p99')));
    assert.ok(isFiniteNumber(field(result, 'headline.addedTtfbMs.p50')) && isFiniteNumber(field(result, 'headline.addedTtfbMs.p99')));
    const processes = field(result, 'processes');
    assert.ok(Array.isArray(processes), 'processes');
    const gatewayPhases = processes.filter((phase: unknown) => typeof phase === 'object' && phase !== null && 'gateway' in phase);
    assert.ok(gatewayPhases.length > 0, 'gateway phases have process figures');
    for (const phase of gatewayPhases) for (const figure of ['cpuS', 'cpuPercent', 'rssAfterMiB']) assert.ok(isFiniteNumber(field(phase, `gateway.${figure}`)), figure);
    for (const figure of ['concurrentStreams.requested', 'concurrentStreams.maxOpenAtOnce', 'concurrentStreams.completed', 'concurrentStreams.gatewayRssMaxMiB', 'idleRssMiB.atStart', 'idleRssMiB.afterLoad']) {
      assert.ok(isFiniteNumber(field(result, figure)), figure);
    }
    assert.equal(field(result, 'concurrentStreams.errors'), 0, 'every held stream ended with [DONE]');
    // The full production path ran: the gateway wrote a usage record for its answers.
    assert.ok((field(result, 'usageRecords.ok') as number) > 0, 'usage records written');

    assert.ok(readdirSync(resultsDir).includes('latest.md'), 'latest.md written');
    assert.ok(stdout.lastIndexOf('### Headline') > stdout.lastIndexOf('### Processes'), 'headline printed last');
  });
});
