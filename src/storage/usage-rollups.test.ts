import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seededRandom } from '../lib/seeded-random.js';
import { sql } from 'kysely';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from './database.js';
import { createRepositories, type Repositories } from './repositories.js';
import { createUsageWriterThread } from './usage-writer-thread.js';
import type { NewUsageRecord } from './schema.js';
import { dropExpiredUsagePartitions, ensureUsagePartitions, listUsagePartitions } from './usage-partitions.js';
import { costUnits } from './usage-rollup-schema.js';

const DAY = 86_400_000;


/** Records of a few owners, routers, models, keys and statuses over the last `spanMs`. */
function records(prefix: string, count: number, now: number, spanMs: number, seed: number): NewUsageRecord[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, (_, index) => {
    const prompt = Math.floor(next() * 2000);
    const completion = Math.floor(next() * 800);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
    return {
      id: `${prefix}_${index}`,
      created_at: now - Math.floor(next() * spanMs),
      owner_id: pick(['owner_a', 'owner_b']),
      key_id: pick(['key_1', 'key_2', null]),
      router_id: pick(['rt_1', 'rt_2', null]),
      model: pick(['sim:small', 'sim:large', null]),
      status: pick([200, 200, 200, 429, 502]),
      error_code: null,
      streamed: next() < 0.5 ? 1 : 0,
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      cost_usd: Math.round(next() * 1e6) / 1e10,
      latency_ms: Math.exp(next() * 8),
      carbon_grams: next() / 100,
      attempts: 1,
      counterfactual_cost_usd: next() < 0.3 ? Math.round(next() * 1e6) / 1e10 : null,
      energy_wh: next() / 1000,
      cached_prompt_tokens: Math.floor(prompt / 4),
      cache_write_prompt_tokens: 0,
      reasoning_tokens: Math.floor(completion / 3),
    };
  });
}

interface Sums {
  requests: number;
  tokens: number;
  cost: number;
  latencyCounts: number;
}

/** What the rollups of one grain hold, per owner. */
async function rollupSums(storage: Storage, grain: string): Promise<Map<string, Sums>> {
  const rows = await sql<{ owner_id: string; requests: string | number; tokens: string | number; cost: string | number }>`
    select owner_id, sum(requests) as requests, sum(total_tokens) as tokens, sum(cost_units) as cost from usage_rollups where grain = ${grain} group by owner_id`.execute(storage.db);
  const latency = await sql<{ owner_id: string; n: string | number }>`select owner_id, sum(requests) as n from usage_latency_rollups where grain = ${grain} group by owner_id`.execute(storage.db);
  const counts = new Map(latency.rows.map((row) => [row.owner_id, Number(row.n)]));
  return new Map(rows.rows.map((row) => [row.owner_id, { requests: Number(row.requests), tokens: Number(row.tokens), cost: Number(row.cost), latencyCounts: counts.get(row.owner_id) ?? 0 }]));
}

/** The same figures summed from the raw records (distinct ids), as the rollups must hold them. */
function expectedSums(all: readonly NewUsageRecord[]): Map<string, Sums> {
  const seen = new Map<string, NewUsageRecord>();
  for (const record of all) seen.set(record.id, record);
  const sums = new Map<string, Sums>();
  for (const record of seen.values()) {
    const entry = sums.get(record.owner_id ?? '') ?? { requests: 0, tokens: 0, cost: 0, latencyCounts: 0 };
    entry.requests += 1;
    entry.tokens += record.total_tokens;
    entry.cost += costUnits(record.cost_usd);
    entry.latencyCounts += 1;
    sums.set(record.owner_id ?? '', entry);
  }
  return sums;
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`usage rollups on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repositories: Repositories;
    const now = Date.now();

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      repositories = createRepositories(storage);
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    it('sum, at every grain, exactly what the records inserted hold; a batch written again is summed once', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const batch = records('once', 900, now, 3 * DAY, 1);
      for (let start = 0; start < batch.length; start += 300) await repositories.usage.insertMany(batch.slice(start, start + 300));
      await repositories.usage.insertMany(batch.slice(100, 500));
      const raw = await sql<{ owner_id: string; n: string | number; tokens: string | number }>`select owner_id, count(*) as n, sum(total_tokens) as tokens from usage_records group by owner_id`.execute(storage.db);
      const expected = expectedSums(batch);
      for (const row of raw.rows) assert.equal(Number(row.n), expected.get(row.owner_id)?.requests);
      for (const grain of ['minute', 'hour', 'day']) assert.deepEqual(await rollupSums(storage, grain), expected, grain);
    });

    it('count each record once when several instances write overlapping batches at the same time', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      await sql`delete from usage_rollups`.execute(storage.db);
      await sql`delete from usage_latency_rollups`.execute(storage.db);
      await sql`delete from usage_records`.execute(storage.db);
      // Four instances, each its own connection (on SQLite each on a thread of its own, as the writer thread of
      // separate processes; better-sqlite3 waits for the file lock synchronously); every batch also goes to a
      // second instance (a retried flush).
      const instances = Array.from({ length: 4 }, () => openStorage(database!.url));
      const threads =
        dialect === 'sqlite'
          ? instances.map((instance) =>
              createUsageWriterThread({ databaseUrl: database!.url, fallback: createRepositories(instance), onLost: (reason) => assert.fail(`writer thread lost: ${reason}`) }),
            )
          : [];
      try {
        const writers = dialect === 'sqlite' ? threads : instances.map((instance) => createRepositories(instance).usage);
        const all = records('many', 4000, now, 2 * 3_600_000, 2);
        const batches: NewUsageRecord[][] = [];
        for (let start = 0; start < all.length; start += 200) batches.push(all.slice(start, start + 200));
        await Promise.all(
          writers.map(async (writer, index) => {
            for (let b = 0; b < batches.length; b += 1) {
              if (b % writers.length === index || (b + 1) % writers.length === index) await writer.insertMany(batches[b]!);
            }
          }),
        );
        const expected = expectedSums(all);
        for (const grain of ['minute', 'hour', 'day']) assert.deepEqual(await rollupSums(storage, grain), expected, grain);
      } finally {
        await Promise.all(threads.map((thread) => thread.close()));
        await Promise.all(instances.map((instance) => instance.close()));
      }
    });

    it('expire raw records (and minute rollups) past the retention in batches, and keep hour and day rollups', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      await sql`delete from usage_rollups`.execute(storage.db);
      await sql`delete from usage_latency_rollups`.execute(storage.db);
      await sql`delete from usage_records`.execute(storage.db);
      const old = records('old', 300, now - 100 * DAY, DAY, 3);
      const fresh = records('fresh', 200, now, 3_600_000, 4);
      await repositories.usage.insertMany(old);
      await repositories.usage.insertMany(fresh);
      const daysBefore = await rollupSums(storage, 'day');
      const cutoffs = { records: now - 90 * DAY, hourRollups: now - 400 * DAY };
      let rounds = 0;
      for (;;) {
        rounds += 1;
        const { done } = await repositories.retention.deleteExpiredBatch(cutoffs, 50);
        if (done) break;
      }
      const rawCount = async () => Number((await sql<{ n: string | number }>`select count(*) as n from usage_records`.execute(storage.db)).rows[0]?.n);
      const minuteRows = Number((await sql<{ n: string | number }>`select count(*) as n from usage_rollups where grain = 'minute' and bucket_start < ${cutoffs.records}`.execute(storage.db)).rows[0]?.n);
      assert.equal(minuteRows, 0, 'expired minute rollups deleted');
      assert.deepEqual(await rollupSums(storage, 'day'), daysBefore, 'day rollups kept whole');
      assert.deepEqual(await rollupSums(storage, 'hour'), daysBefore, 'hour rollups kept within their retention');
      if (dialect === 'sqlite') {
        assert.ok(rounds > 300 / 50, `deleted in batches of 50 (${rounds} rounds)`);
        assert.equal(await rawCount(), fresh.length);
        return;
      }
      // Postgres drops whole day partitions: as time passes, the archive and today's partition expire.
      assert.equal(await rawCount(), old.length + fresh.length, 'Postgres deletes no raw row one by one');
      const later = now + 100 * DAY;
      const created = await ensureUsagePartitions(storage.db, later);
      assert.equal(created.length, 8, 'a week of partitions ahead of the new day');
      const dropped = await dropExpiredUsagePartitions(storage.db, later - 90 * DAY);
      assert.ok(dropped.includes('usage_records_archive'), `dropped ${dropped.join(', ')}`);
      assert.equal(await rawCount(), 0);
      assert.ok((await listUsagePartitions(storage.db)).every((partition) => partition.to > later - 90 * DAY));
      assert.deepEqual(await rollupSums(storage, 'day'), daysBefore, 'rollups outlive the partitions');
      // Writing goes on: into the partitions made ahead, and into a day made on demand.
      await repositories.usage.insertMany(records('later', 10, later, DAY, 5));
      await repositories.usage.insertMany(records('far', 10, later + 30 * DAY, DAY, 6));
      assert.equal(await rawCount(), 20);
    });
  });
}
