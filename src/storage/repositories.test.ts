import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from './database.js';
import { usageIndexDuplicateMigration } from './migrations/0008-usage-index-duplicate.js';
import { createRepositories, type Repositories } from './repositories.js';

/** The same storage suite on every dialect (SQLite always; Postgres when it answers). */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`storage on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repositories: Repositories;
    let clock = 1_700_000_000_000;

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      // Migrating twice (a second instance starting) is a no-op.
      await migrateToLatest(storage);
      repositories = createRepositories(storage, () => clock);
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    it('stores users, routers and keys, and bumps the change counter on every write', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const v0 = await repositories.changes.current();
      const user = await repositories.users.create('Owner@Example.com', 'hash');
      assert.equal((await repositories.users.findByEmail('owner@example.com'))?.id, user.id);

      const router = await repositories.routers.create({ ownerId: user.id, name: 'r', strategy: 'cost_optimized', models: ['sim:small', 'sim:large'] });
      assert.match(router.id, /^rt_[0-9A-Za-z]{22}$/);
      assert.deepEqual((await repositories.routers.findById(router.id))?.models, ['sim:small', 'sim:large']);
      const v1 = await repositories.changes.current();
      assert.ok(v1 > v0);

      const key = await repositories.apiKeys.create({ ownerId: user.id, name: 'k', keyHash: 'h1', displayPrefix: 'mp_abc', routerIds: [router.id], rpmLimit: 5, expiresAt: clock + 1000 });
      const found = await repositories.apiKeys.findByHash('h1');
      assert.deepEqual(found?.routerIds, [router.id]);
      assert.equal(found?.rpmLimit, 5);
      assert.equal(found?.expiresAt, clock + 1000);
      assert.equal(found?.createdAt, clock);
      const v2 = await repositories.changes.current();
      assert.ok(v2 > v1);

      clock += 10;
      assert.equal(await repositories.apiKeys.revoke(user.id, key.id), true);
      assert.equal(await repositories.apiKeys.revoke(user.id, key.id), false);
      assert.equal((await repositories.apiKeys.findByHash('h1'))?.revokedAt, clock);
      assert.ok((await repositories.changes.current()) > v2);

      assert.equal(await repositories.routers.remove('someone-else', router.id), false);
      assert.equal(await repositories.routers.remove(user.id, router.id), true);
      assert.equal(await repositories.routers.findById(router.id), undefined);
    });

    it('stores router settings and updates routers, bumping the change counter', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const user = await repositories.users.create('settings@example.com', 'hash');
      const plain = await repositories.routers.create({ ownerId: user.id, name: 'plain', strategy: 'cost_optimized', models: ['sim:small'] });
      assert.deepEqual((await repositories.routers.findById(plain.id))?.settings, {});
      const settings = { weights: { cost: 0.5, quality: 0.5 }, qualityTarget: 0.8, maxCostPerRequestUsd: 0.01 };
      const router = await repositories.routers.create({ ownerId: user.id, name: 'r', strategy: 'balanced', models: ['sim:small'], settings });
      assert.deepEqual((await repositories.routers.findById(router.id))?.settings, settings);

      const before = await repositories.changes.current();
      clock += 10;
      const updated = await repositories.routers.update(user.id, router.id, { strategy: 'quality_optimized', models: ['sim:large', 'sim:small'], settings: { qualityTarget: 0.9 } });
      assert.equal(updated?.strategy, 'quality_optimized');
      assert.equal(updated?.name, 'r');
      assert.equal(updated?.updatedAt, clock);
      assert.deepEqual(updated?.models, ['sim:large', 'sim:small']);
      assert.deepEqual((await repositories.routers.findById(router.id))?.settings, { qualityTarget: 0.9 });
      assert.ok((await repositories.changes.current()) > before);
      assert.equal(await repositories.routers.update('someone-else', router.id, { name: 'x' }), undefined);
      assert.equal((await repositories.routers.update(user.id, router.id, { settings: {} }))?.settings.qualityTarget, undefined);
    });

    it('keeps one index per usage query shape: 0007 repeated 0001s (key_id, created_at) index, 0008 drops it', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const usageIndexes = async () => {
        const query =
          dialect === 'sqlite'
            ? sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'usage_records' and sql is not null`
            : sql<{ name: string }>`select indexname as name from pg_indexes where tablename = 'usage_records' and indexname <> 'usage_records_pk'`;
        return (await query.execute(storage.db)).rows.map((row) => row.name).sort();
      };
      // SQLite's retention sweep deletes by time; Postgres drops whole day partitions instead.
      const intended = ['usage_records_key_time_idx', 'usage_records_owner_time_idx', 'usage_records_router_time', ...(dialect === 'sqlite' ? ['usage_records_time'] : [])];
      assert.deepEqual(await usageIndexes(), intended);
      // Down and up again: the duplicate comes back, then goes.
      await usageIndexDuplicateMigration.down?.(storage.db);
      assert.deepEqual(await usageIndexes(), [...intended, 'usage_records_key_time'].sort());
      await usageIndexDuplicateMigration.up(storage.db);
      assert.deepEqual(await usageIndexes(), intended);
    });

    it('writes usage records once even when a batch is written twice', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const record = (id: string) => ({
        id, created_at: clock, owner_id: 'o', key_id: 'k', router_id: 'r', model: 'sim:small', status: 200, error_code: null,
        streamed: 0, prompt_tokens: 10, completion_tokens: 5, total_tokens: 15, cost_usd: 0.000123, latency_ms: 12.5, carbon_grams: 0.01, attempts: 1,
      });
      await repositories.usage.insertMany([record('req_1'), record('req_2')]);
      await repositories.usage.insertMany([record('req_2'), record('req_3')]);
      const rows = await repositories.usage.list({ keyId: 'k' });
      assert.deepEqual(rows.map((row) => row.id).sort(), ['req_1', 'req_2', 'req_3']);
      assert.equal(rows[0]?.cost_usd, 0.000123);
      assert.equal(typeof rows[0]?.created_at, 'number');
    });
  });
}
