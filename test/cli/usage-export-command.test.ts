import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { createRepositories } from '../../src/storage/repositories.js';
import type { NewUsageRecord } from '../../src/storage/schema.js';
import { createTempDatabase, hasStackTrace, parseJsonObject, runModelport, type CliRun } from './run-modelport.js';

const OWNER = 'owner@example.com';
const SINCE = '2026-01-01T00:00:00Z';
const UNTIL = '2026-02-01T00:00:00Z';
const T0 = Date.parse(SINCE);
const T1 = Date.parse(UNTIL);
const AWKWARD_MODEL = 'custom:my "best", model';

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

function usage(id: string, createdAt: number, ownerId: string, keyId: string, changes: Partial<NewUsageRecord> = {}): NewUsageRecord {
  return {
    id,
    created_at: createdAt,
    owner_id: ownerId,
    key_id: keyId,
    router_id: 'rt_cli',
    model: 'sim:small',
    status: 200,
    error_code: null,
    streamed: 0,
    prompt_tokens: 12,
    completion_tokens: 8,
    total_tokens: 20,
    cost_usd: 0.000_25,
    latency_ms: 40,
    carbon_grams: 0.01,
    attempts: 1,
    ...changes,
  };
}

describe('modelport usage export', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args);
  /** The owner's records in [SINCE, UNTIL): id → cost. */
  const owned = new Map<string, number>();
  let keyId = '';

  before(async () => {
    const storage = openStorage(database.url);
    await migrateToLatest(storage);
    const repositories = createRepositories(storage, () => T0);
    const owner = await repositories.users.create(OWNER, 'hash');
    const other = await repositories.users.create('other@example.com', 'hash');
    keyId = (await repositories.apiKeys.create({ ownerId: owner.id, name: 'k', keyHash: 'cli-export', displayPrefix: 'mp_cli' })).id;
    const records: NewUsageRecord[] = [];
    for (let n = 0; n < 25; n += 1) {
      const id = `req_cli_${String(n).padStart(2, '0')}`;
      const cost = 0.0001 * (n + 1);
      // Several share one millisecond; one model's name needs CSV quoting.
      records.push(usage(id, T0 + Math.floor(n / 3) * 60_000, owner.id, keyId, { cost_usd: cost, ...(n === 4 ? { model: AWKWARD_MODEL, status: 429, error_code: 'rate_limited' } : {}) }));
      owned.set(id, cost);
    }
    records.push(usage('req_cli_before', T0 - 1, owner.id, keyId), usage('req_cli_at_until', T1, owner.id, keyId), usage('req_cli_other', T0 + 5, other.id, 'key_other'));
    await repositories.usage.insertMany(records);
    await storage.close();
  });
  after(() => database.remove());

  it('CSV on stdout: the owner\'s records of the range, each once at its cost, the awkward model name intact', async () => {
    const run = await cli('usage', 'export', '--format', 'csv', '--since', SINCE, '--until', UNTIL, '--owner', OWNER);
    assertExit(run, 0);
    assert.match(run.stderr, /^database: /);
    const rows = parse(run.stdout, { columns: true }) as Record<string, string>[];
    assert.deepEqual(rows.map((row) => row.id), [...owned.keys()]);
    for (const row of rows) assert.equal(Number(row.costUsd), owned.get(row.id ?? ''));
    const awkward = rows.find((row) => row.id === 'req_cli_04');
    assert.equal(awkward?.model, AWKWARD_MODEL);
    assert.equal(awkward?.errorCode, 'rate_limited');
    assert.equal(awkward?.createdAt, new Date(T0 + 60_000).toISOString());
  });

  it('JSON lines to a file, with --json saying what was written; without --owner every owner is in it', async () => {
    const output = join(database.directory, 'january.jsonl');
    const run = await cli('usage', 'export', '--format', 'jsonl', '--since', SINCE, '--until', UNTIL, '--output', output, '--json');
    assertExit(run, 0);
    assert.deepEqual(parseJsonObject(run.stdout), { output, format: 'jsonl', from: new Date(T0).toISOString(), to: new Date(T1).toISOString(), records: owned.size + 1 });
    const lines = readFileSync(output, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line) as { id: string; costUsd: number; model: string });
    assert.deepEqual(lines.map((line) => line.id).sort(), [...owned.keys(), 'req_cli_other'].sort());
    for (const line of lines) if (line.id !== 'req_cli_other') assert.equal(line.costUsd, owned.get(line.id));
    assert.equal(lines.find((line) => line.id === 'req_cli_04')?.model, AWKWARD_MODEL);

    const human = await cli('usage', 'export', '--format', 'csv', '--since', SINCE, '--until', UNTIL, '--key', keyId, '--output', join(database.directory, 'by-key.csv'));
    assertExit(human, 0);
    assert.match(human.stdout, new RegExp(`^Wrote ${owned.size} usage records from .+ to .+by-key\\.csv\\n$`));
  });

  it('refuses mistakes before writing anything', async () => {
    const output = join(database.directory, 'never.csv');
    const unknownKey = await cli('usage', 'export', '--format', 'csv', '--since', SINCE, '--key', 'key_doesnotexist0000', '--output', output);
    assertExit(unknownKey, 1);
    assert.match(unknownKey.stderr, /No key key_doesnotexist0000/);
    assert.equal(existsSync(output), false);
    const badFormat = await cli('usage', 'export', '--format', 'xml', '--since', SINCE);
    assertExit(badFormat, 1);
    assert.match(badFormat.stderr, /--format must be csv or jsonl/);
    const backwards = await cli('usage', 'export', '--format', 'csv', '--since', UNTIL, '--until', SINCE);
    assertExit(backwards, 1);
    assert.match(backwards.stderr, /--since must be before --until/);
    assertExit(await cli('usage', 'export', '--format', 'csv'), 2);
    const jsonToStdout = await cli('usage', 'export', '--format', 'csv', '--since', SINCE, '--json');
    assertExit(jsonToStdout, 2);
    assert.ok(!hasStackTrace(jsonToStdout.stdout + jsonToStdout.stderr));
  });
});
