import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from './database.js';
import { routingLabelsMigration } from './migrations/0012-routing-labels.js';
import { createRepositories, type Repositories } from './repositories.js';
import type { NewUsageRecord } from './schema.js';

function record(id: string, ownerId: string, createdAt: number, extra: Partial<NewUsageRecord> = {}): NewUsageRecord {
  return {
    id,
    created_at: createdAt,
    owner_id: ownerId,
    key_id: null,
    router_id: 'rt_a',
    model: 'sim:small',
    status: 200,
    error_code: null,
    streamed: 0,
    prompt_tokens: 10,
    completion_tokens: 5,
    total_tokens: 15,
    cost_usd: 0.001,
    latency_ms: 1,
    carbon_grams: 0,
    attempts: 1,
    ...extra,
  };
}

/** Migration 0012 and the routing-label storage, on every dialect (SQLite always; Postgres when it answers). */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`routing labels on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repositories: Repositories;
    let clock = 1_700_000_000_000;

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      repositories = createRepositories(storage, () => clock);
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    it('writes a usage batch with its routing samples and counterfactual costs; records without a sample write none', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      await repositories.usage.insertMany([
        { ...record('req_auto1', 'usr_1', clock, { counterfactual_cost_usd: 0.004 }), routing_sample: { router_id: 'rt_a', model_id: 'sim:small', vector: 'AAAA' } },
        record('req_plain', 'usr_1', clock),
      ]);
      // Written twice (a retried batch): counted once, no error.
      await repositories.usage.insertMany([{ ...record('req_auto1', 'usr_1', clock), routing_sample: { router_id: 'rt_a', model_id: 'sim:small', vector: 'AAAA' } }]);
      const sample = await repositories.routingLabels.findSample('req_auto1');
      assert.deepEqual({ ...sample }, { request_id: 'req_auto1', owner_id: 'usr_1', router_id: 'rt_a', model_id: 'sim:small', vector: 'AAAA', created_at: clock });
      assert.equal(await repositories.routingLabels.findSample('req_plain'), undefined);
      assert.equal((await repositories.usage.findOwned('usr_1', 'req_auto1'))?.counterfactual_cost_usd, 0.004);
      assert.equal((await repositories.usage.findOwned('usr_1', 'req_plain'))?.counterfactual_cost_usd, null);
      assert.equal(await repositories.usage.findOwned('usr_2', 'req_auto1'), undefined);
    });

    it('keeps one feedback label per request and rater: a repeat replaces score and comment under the same id', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const sample = await repositories.routingLabels.findSample('req_auto1');
      assert.ok(sample !== undefined);
      const first = await repositories.routingLabels.upsertFeedback(sample, 'key_1', 0, 'wrong');
      clock += 1000;
      const again = await repositories.routingLabels.upsertFeedback(sample, 'key_1', 1, null);
      const other = await repositories.routingLabels.upsertFeedback(sample, 'session:usr_1', 0.5, null);
      assert.equal(again.id, first.id);
      assert.equal(again.score, 1);
      assert.equal(again.comment, null);
      assert.equal(again.createdAt, first.createdAt);
      assert.equal(again.updatedAt, clock);
      assert.notEqual(other.id, first.id);
      assert.deepEqual(await repositories.routingLabels.stats('rt_a'), { count: 2, newestAt: clock });
      assert.equal((await repositories.routingLabels.findFeedback('usr_1', 'req_auto1', 'key_1'))?.id, first.id);
      assert.equal(await repositories.routingLabels.findFeedback('usr_2', 'req_auto1', 'key_1'), undefined);
    });

    it('replaces a router calibration labels and keeps its feedback; lists newest first', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const labels = Array.from({ length: 1200 }, (_, index) => ({ modelId: index % 2 === 0 ? 'sim:small' : 'sim:medium', vector: `v${index}`, score: index % 3 === 0 ? 1 : 0 }));
      await repositories.routingLabels.replaceCalibration('usr_1', 'rt_a', labels);
      await repositories.routingLabels.replaceCalibration('usr_1', 'rt_a', labels.slice(0, 10));
      // Another owner's router with the same id is another owner's: untouched.
      await repositories.routingLabels.replaceCalibration('usr_2', 'rt_b', labels.slice(0, 3));
      assert.equal((await repositories.routingLabels.stats('rt_a')).count, 12);
      clock += 1000;
      const sample = await repositories.routingLabels.findSample('req_auto1');
      assert.ok(sample !== undefined);
      await repositories.routingLabels.upsertFeedback(sample, 'key_2', 0, null);
      const newest = await repositories.routingLabels.listNewest('rt_a', 5);
      assert.equal(newest.length, 5);
      assert.equal(newest[0]?.raterId, 'key_2');
      assert.equal((await repositories.routingLabels.stats('rt_b')).count, 3);
    });

    it('prunes samples to the newest N of each router, in batches', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const base = clock + 10_000;
      const records = Array.from({ length: 30 }, (_, index) => ({
        ...record(`req_p${String(index).padStart(2, '0')}`, 'usr_1', base + index, { router_id: 'rt_p' }),
        routing_sample: { router_id: 'rt_p', model_id: 'sim:small', vector: 'AAAA' },
      }));
      await repositories.usage.insertMany(records);
      let deleted = 0;
      for (let round = 0; round < 10; round += 1) {
        const batch = await repositories.routingLabels.pruneSamples('rt_p', 12, 7);
        assert.ok(batch <= 7);
        if (batch === 0) break;
        deleted += batch;
      }
      assert.equal(deleted, 18);
      const kept = await storage.db.selectFrom('routing_samples').select('request_id').where('router_id', '=', 'rt_p').orderBy('request_id').execute();
      assert.deepEqual(kept.map((row) => row.request_id), records.slice(18).map((row) => row.id));
      assert.equal(await repositories.routingLabels.pruneSamples('rt_p', 12, 7), 0);
      // Other routers' samples are not touched.
      assert.ok((await repositories.routingLabels.findSample('req_auto1')) !== undefined);
    });

    it('gives a refit lease to one holder at a time until it expires or is released', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const labels = repositories.routingLabels;
      assert.equal(await labels.acquireRefitLease('rt_a', 'one', clock + 1000), true);
      assert.equal(await labels.acquireRefitLease('rt_a', 'two', clock + 1000), false);
      assert.equal(await labels.acquireRefitLease('rt_a', 'one', clock + 2000), true);
      clock += 2001;
      assert.equal(await labels.acquireRefitLease('rt_a', 'two', clock + 1000), true);
      await labels.releaseRefitLease('rt_a', 'one');
      assert.equal(await labels.acquireRefitLease('rt_a', 'one', clock + 1000), false);
      await labels.releaseRefitLease('rt_a', 'two');
      assert.equal(await labels.acquireRefitLease('rt_a', 'one', clock + 1000), true);
    });

    it('sums savings and feedback per bucket', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const hour = 3_600_000;
      const start = Math.floor(clock / hour) * hour + 100 * hour;
      await repositories.usage.insertMany([
        record('req_s1', 'usr_s', start + 1, { router_id: 'rt_s', cost_usd: 0.25, counterfactual_cost_usd: 1 }),
        record('req_s2', 'usr_s', start + 2, { router_id: 'rt_s', cost_usd: 0.25, counterfactual_cost_usd: 0.5 }),
        record('req_s3', 'usr_s', start + hour + 5, { router_id: 'rt_s', cost_usd: 0.5 }),
        record('req_s4', 'usr_other', start + 3, { router_id: 'rt_s', cost_usd: 9, counterfactual_cost_usd: 9 }),
      ]);
      const buckets = await repositories.usage.savingsBuckets('usr_s', 'rt_s', start, start + 2 * hour, hour);
      assert.deepEqual(
        buckets.sort((a, b) => a.start - b.start),
        [
          { start, requests: 2, costUsd: 0.5, counterfactualCostUsd: 1.5 },
          { start: start + hour, requests: 1, costUsd: 0.5, counterfactualCostUsd: 0.5 },
        ],
      );
    });

    it('migrates down and up again', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      await routingLabelsMigration.down?.(storage.db as never);
      const tables = await storage.db.introspection.getTables();
      assert.equal(tables.some((table) => table.name === 'routing_labels'), false);
      await routingLabelsMigration.up(storage.db as never);
      await sql`select counterfactual_cost_usd from usage_records`.execute(storage.db);
      assert.equal((await repositories.routingLabels.stats('rt_a')).count, 0);
    });
  });
}
