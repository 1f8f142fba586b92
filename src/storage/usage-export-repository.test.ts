import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from './database.js';
import { createRepositories } from './repositories.js';
import type { NewUsageRecord, UsageRecordRow } from './schema.js';
import { exportPages } from './usage-export-repository.js';

const T0 = 1_760_000_000_000;
const FROM = T0 + 10;
const TO = T0 + 100;

function usage(id: string, createdAt: number, ownerId: string, changes: Partial<NewUsageRecord> = {}): NewUsageRecord {
  return {
    id,
    created_at: createdAt,
    owner_id: ownerId,
    key_id: 'key_a',
    router_id: 'rt_a',
    model: 'sim:small',
    status: 200,
    error_code: null,
    streamed: 0,
    prompt_tokens: 3,
    completion_tokens: 4,
    total_tokens: 7,
    cost_usd: createdAt / 1e15,
    latency_ms: 1,
    carbon_grams: 0,
    attempts: 1,
    ...changes,
  };
}

/** Ids that do not sort in the order they were written, so paging cannot lean on insertion order. */
const scrambled = (n: number) => `req_${((n * 7919) % 1000).toString(36).padStart(3, '0')}${n.toString(36)}`;

async function collect(pages: AsyncIterable<UsageRecordRow[]>): Promise<{ pages: UsageRecordRow[][]; rows: UsageRecordRow[] }> {
  const all: UsageRecordRow[][] = [];
  for await (const page of pages) all.push(page);
  return { pages: all, rows: all.flat() };
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`usage export pages on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let owner = '';
    let other = '';
    /** The owner's records in [FROM, TO), by id. */
    const expected = new Map<string, number>();

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      const repositories = createRepositories(storage, () => T0);
      owner = (await repositories.users.create('export-owner@example.com', 'hash')).id;
      other = (await repositories.users.create('export-other@example.com', 'hash')).id;
      const records: NewUsageRecord[] = [];
      let n = 0;
      // 12 records in one millisecond (more than two pages of 5), then groups of 1 to 4 sharing a time.
      const times = [FROM, ...Array.from({ length: 11 }, () => FROM), ...[20, 20, 21, 22, 22, 22, 22, 30, 31, 31, 40, 40, 40, 99, 99].map((t) => T0 + t)];
      for (const time of times) {
        const id = scrambled((n += 1));
        records.push(usage(id, time, owner, n % 5 === 0 ? { router_id: 'rt_b', key_id: 'key_b' } : {}));
        expected.set(id, time);
        // Another workspace's record at the same instant: never in the owner's export.
        if (n % 3 === 0) records.push(usage(`${id}_other`, time, other));
      }
      // Outside [FROM, TO): just before it and exactly at its end.
      records.push(usage('req_before', FROM - 1, owner), usage('req_at_end', TO, owner), usage('req_at_end_2', TO, owner));
      await repositories.usage.insertMany(records);
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    it('pages smaller than the range give every record once, oldest first, with no gap at shared milliseconds', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      for (const pageSize of [1, 4, 5, 7, 1000]) {
        const { pages, rows } = await collect(exportPages(storage.db, { ownerId: owner, from: FROM, to: TO, pageSize }));
        const ids = rows.map((row) => row.id);
        assert.equal(new Set(ids).size, ids.length, `pageSize ${pageSize}: a record twice`);
        assert.deepEqual(new Set(ids), new Set(expected.keys()), `pageSize ${pageSize}`);
        assert.ok(pages.every((page) => page.length >= 1 && page.length <= pageSize), `pageSize ${pageSize}: ${pages.map((page) => page.length).join(',')}`);
        assert.equal(pages.length, Math.ceil(expected.size / pageSize));
        for (let i = 1; i < rows.length; i += 1) {
          const [previous, current] = [rows[i - 1], rows[i]];
          assert.ok(previous !== undefined && current !== undefined && previous.created_at <= current.created_at, `pageSize ${pageSize}: out of order at ${i}`);
        }
        for (const row of rows) assert.equal(row.cost_usd, (expected.get(row.id) ?? 0) / 1e15);
      }
    });

    it('narrows by router and key, and reads every owner when none is given', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const byRouter = (await collect(exportPages(storage.db, { ownerId: owner, from: FROM, to: TO, routerId: 'rt_b', pageSize: 2 }))).rows;
      assert.deepEqual(byRouter.map((row) => row.router_id), Array.from({ length: Math.floor(expected.size / 5) }, () => 'rt_b'));
      const byKey = (await collect(exportPages(storage.db, { ownerId: owner, from: FROM, to: TO, keyId: 'key_a', pageSize: 3 }))).rows;
      assert.equal(byKey.length, expected.size - byRouter.length);
      const everyone = (await collect(exportPages(storage.db, { from: FROM, to: TO, pageSize: 4 }))).rows;
      assert.equal(everyone.length, expected.size + Math.floor(expected.size / 3));
      assert.equal(new Set(everyone.map((row) => row.id)).size, everyone.length);
      assert.ok(everyone.some((row) => row.owner_id === other));
      assert.deepEqual((await collect(exportPages(storage.db, { ownerId: owner, from: TO, to: TO + 1 }))).rows.map((row) => row.id).sort(), ['req_at_end', 'req_at_end_2']);
    });

    it('a generator stopped after its first page reads no further', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const pages = exportPages(storage.db, { ownerId: owner, from: FROM, to: TO, pageSize: 5 });
      assert.equal((await pages.next()).value?.length, 5);
      assert.deepEqual(await pages.return(undefined), { done: true, value: undefined });
      assert.deepEqual(await pages.next(), { done: true, value: undefined });
    });
  });
}
