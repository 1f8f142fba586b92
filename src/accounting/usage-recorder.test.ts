import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { openUsageFixture, usageRecord, USAGE_EPOCH, type UsageFixture } from '../../test/support/usage-fixtures.js';
import { createInlineUsageWriter } from '../storage/usage-writer.js';
import { createUsageRecorder } from './usage-recorder.js';

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`usage recorder on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let fixture: UsageFixture;

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      fixture = await openUsageFixture(database.url, 'usage-hash');
    });
    after(async () => {
      if (database === undefined) return;
      await fixture.storage.close();
      await database.drop();
    });

    const record = (index: number) => usageRecord(dialect, fixture.keyId, index);

    it('writes a big batch in small inserts, letting other work run between them, and touches the key once', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const recorder = createUsageRecorder(createInlineUsageWriter(fixture.repositories.usage, fixture.repositories.apiKeys, fixture.repositories.retention), { flushIntervalMs: 60_000, batchSize: 10_000, maxQueued: 100_000, rowsPerInsert: 20 }, (error) => {
        throw error;
      });
      for (let index = 0; index < 230; index += 1) recorder.record(record(index));
      // Work queued behind the flush: with a yield between inserts it runs before the flush ends.
      let turns = 0;
      const spin = () => {
        turns += 1;
        if (turns < 1000) setImmediate(spin);
      };
      setImmediate(spin);
      const flushing = recorder.flush();
      const turnsWhenStarted = turns;
      await flushing;
      await recorder.close();
      assert.ok(turns - turnsWhenStarted >= 11, `other work ran ${turns - turnsWhenStarted} times during 12 inserts`);
      assert.deepEqual(recorder.stats(), { queued: 0, dropped: 0, written: 230 });
      const rows = await fixture.repositories.usage.list({ keyId: fixture.keyId, limit: 1000 });
      assert.equal(rows.length, 230);
      const key = await fixture.repositories.apiKeys.findByHash('usage-hash');
      assert.equal(key?.lastUsedAt, USAGE_EPOCH + 229);
    });
  });
}

describe('usage recorder batch sizes', () => {
  it('sends wideInsertRows in one INSERT while that many wait, and the rest by rowsPerInsert', async () => {
    const sizes: number[] = [];
    const writer = {
      insertMany: async (records: readonly unknown[]) => {
        sizes.push(records.length);
      },
      touchLastUsed: async () => undefined,
      deleteExpiredBatch: async () => ({ deleted: 0, done: true }),
      close: async () => undefined,
    };
    const recorder = createUsageRecorder(writer, { flushIntervalMs: 60_000, batchSize: 10_000, maxQueued: 100_000, rowsPerInsert: 50, wideInsertRows: 500 }, (error) => {
      throw error;
    });
    for (let index = 0; index < 1_120; index += 1) recorder.record(usageRecord('sizes', 'key_1', index));
    await recorder.close();
    // Only two sizes above the small ones: the compiled INSERTs stay few.
    assert.deepEqual(sizes, [500, 500, 50, 50, 20]);
  });
});
