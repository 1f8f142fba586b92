import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { openUsageFixture, usageRecord, USAGE_EPOCH, type UsageFixture } from '../../test/support/usage-fixtures.js';
import { createUsageRecorder } from '../accounting/usage-recorder.js';
import type { NewUsageRecord } from './schema.js';
import { WRITER_YOUNG_GENERATION_MB, createUsageWriterThread } from './usage-writer-thread.js';

describe('SQLite usage writer thread', () => {
  let database: TestDatabase;
  let fixture: UsageFixture;

  before(async () => {
    database = createSqliteDatabase();
    fixture = await openUsageFixture(database.url, 'writer-hash');
  });
  after(async () => {
    await fixture.storage.close();
    await database.drop();
  });

  const record = (prefix: string, index: number): NewUsageRecord => ({ ...usageRecord(prefix, fixture.keyId, index), streamed: index % 2 });
  const idsLike = async (prefix: string) =>
    (await fixture.repositories.usage.list({ keyId: fixture.keyId, limit: 10_000 })).filter((row) => row.id.startsWith(`req_${prefix}_`)).map((row) => row.id);

  const setUp = (idleStopMs?: number, wideInsertRows?: number) => {
    const lost: string[] = [];
    const writer = createUsageWriterThread({
      databaseUrl: database.url,
      fallback: fixture.repositories,
      onLost: (_reason, next) => lost.push(next),
      ...(idleStopMs === undefined ? {} : { idleStopMs }),
    });
    const recorder = createUsageRecorder(writer, { flushIntervalMs: 60_000, batchSize: 100_000, maxQueued: 100_000, wideInsertRows }, (error) => {
      throw error;
    });
    return { writer, recorder, lost };
  };

  it('writes on its own thread: the rows and the key last used are readable on the main connection after flush()', async () => {
    const { writer, recorder, lost } = setUp();
    for (let index = 0; index < 120; index += 1) recorder.record(record('flush', index));
    await recorder.flush();
    assert.ok(writer.worker !== undefined, 'the thread was started');
    assert.equal(writer.worker.resourceLimits?.maxYoungGenerationSizeMb, WRITER_YOUNG_GENERATION_MB, "the thread's young generation is capped");
    const rows = await fixture.repositories.usage.list({ keyId: fixture.keyId, limit: 10_000 });
    assert.equal((await idsLike('flush')).length, 120);
    assert.equal(rows.find((row) => row.id === 'req_flush_7')?.streamed, 1);
    assert.equal(rows.find((row) => row.id === 'req_flush_7')?.latency_ms, 1.5);
    assert.equal((await fixture.repositories.apiKeys.findByHash('writer-hash'))?.lastUsedAt, USAGE_EPOCH + 119);
    await recorder.close();
    assert.equal(writer.worker, undefined, 'close() ended the thread');
    assert.deepEqual(lost, []);
  });

  it('takes 500 rows in one INSERT and the rest by 50, as the app sends them to the thread', async () => {
    const { recorder, lost } = setUp(undefined, 500);
    for (let index = 0; index < 1_010; index += 1) recorder.record(record('wide', index));
    await recorder.flush();
    assert.equal(new Set(await idsLike('wide')).size, 1_010);
    await recorder.close();
    assert.deepEqual(lost, []);
  });

  it('close() writes what is still queued, then ends the thread', async () => {
    const { writer, recorder } = setUp();
    recorder.record(record('close', 0));
    await recorder.flush();
    for (let index = 1; index < 75; index += 1) recorder.record(record('close', index));
    const thread = writer.worker;
    const exited = new Promise<number>((resolve) => thread?.once('exit', resolve));
    await recorder.close();
    assert.equal((await idsLike('close')).length, 75);
    assert.deepEqual(recorder.stats(), { queued: 0, dropped: 0, written: 75 });
    assert.equal(await exited, 0);
  });

  it('a thread terminated with batches in hand is restarted and nothing is lost or counted twice', async () => {
    const { writer, recorder, lost } = setUp();
    recorder.record(record('restart', 0));
    await recorder.flush();
    const first = writer.worker;
    for (let index = 1; index < 300; index += 1) recorder.record(record('restart', index));
    const flushing = recorder.flush();
    await first?.terminate();
    await flushing;
    assert.deepEqual(lost, ['restarted']);
    assert.ok(writer.worker !== undefined && writer.worker !== first, 'a new thread writes');
    for (let index = 300; index < 310; index += 1) recorder.record(record('restart', index));
    await recorder.close();
    const ids = await idsLike('restart');
    assert.equal(ids.length, 310);
    assert.equal(new Set(ids).size, 310);
    assert.equal(recorder.stats().written, 310);
  });

  it('a thread that dies before writing anything is given up for the main connection', async () => {
    const { writer, recorder, lost } = setUp();
    for (let index = 0; index < 60; index += 1) recorder.record(record('inline', index));
    const flushing = recorder.flush();
    await writer.worker?.terminate();
    await flushing;
    assert.deepEqual(lost, ['inline']);
    assert.equal(writer.worker, undefined);
    recorder.record(record('inline', 60));
    await recorder.close();
    assert.equal((await idsLike('inline')).length, 61);
  });

  it('stops an idle thread without reporting it lost, and starts one again for the next write', async () => {
    const { writer, recorder, lost } = setUp(50);
    recorder.record(record('idle', 0));
    await recorder.flush();
    const first = writer.worker;
    assert.ok(first !== undefined);
    const exited = new Promise<number>((resolve) => first.once('exit', resolve));
    // The idle timer does not hold the process up (nor this test): wait on a timer that does.
    for (let waited = 0; writer.worker !== undefined && waited < 10_000; waited += 10) await sleep(10);
    assert.equal(writer.worker, undefined, 'the idle thread was stopped');
    assert.equal(await exited, 0);
    recorder.record(record('idle', 1));
    await recorder.flush();
    assert.ok(writer.worker !== undefined && writer.worker !== first);
    await recorder.close();
    assert.deepEqual(lost, []);
    assert.equal((await idsLike('idle')).length, 2);
  });
});
