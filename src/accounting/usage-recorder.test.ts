import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from '../storage/database.js';
import { createRepositories, type Repositories } from '../storage/repositories.js';
import type { NewUsageRecord } from '../storage/schema.js';
import { createUsageRecorder } from './usage-recorder.js';

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`usage recorder on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repositories: Repositories;
    let keyId: string;

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      repositories = createRepositories(storage, () => 1_700_000_000_000);
      const user = await repositories.users.create('usage@example.com', 'hash');
      keyId = (await repositories.apiKeys.create({ ownerId: user.id, name: 'k', keyHash: 'usage-hash', displayPrefix: 'mp_usage' })).id;
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    const record = (index: number): NewUsageRecord => ({
      id: `req_${dialect}_${index}`,
      created_at: 1_700_000_000_000 + index,
      owner_id: null,
      key_id: keyId,
      router_id: null,
      model: 'openai:gpt-4o-mini',
      status: 200,
      error_code: null,
      streamed: 0,
      prompt_tokens: 19,
      completion_tokens: 9,
      total_tokens: 28,
      cost_usd: 0.00001,
      latency_ms: 1.5,
      carbon_grams: 0.0001,
      attempts: 1,
    });

    it('writes a big batch in small inserts, letting other work run between them, and touches the key once', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const recorder = createUsageRecorder(repositories.usage, repositories.apiKeys, { flushIntervalMs: 60_000, batchSize: 10_000, maxQueued: 100_000, rowsPerInsert: 20 }, (error) => {
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
      const rows = await repositories.usage.list({ keyId, limit: 1000 });
      assert.equal(rows.length, 230);
      const key = await repositories.apiKeys.findByHash('usage-hash');
      assert.equal(key?.lastUsedAt, 1_700_000_000_000 + 229);
    });
  });
}
