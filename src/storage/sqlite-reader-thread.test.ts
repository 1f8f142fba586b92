import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest, openStorage, type Storage } from './database.js';
import type { NewUsageRecord } from './schema.js';
import { createSqliteReaderThread } from './sqlite-reader-thread.js';
import { createUsageAnalyticsRepository } from './usage-analytics-repository.js';

/** Counts to `n` in SQLite itself: a second or so of work on one thread for a few million. */
const slowCount = (n: number) =>
  sql<{ n: number }>`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n}) select count(*) as n from c`;

describe('SQLite reader thread', () => {
  let directory: string;
  let file: string;
  let storage: Storage;

  const usage = (index: number, model: string): NewUsageRecord => ({
    id: `req_reader_${index}`,
    created_at: 1_700_000_000_000 + index,
    owner_id: 'owner_reader',
    key_id: null,
    router_id: null,
    model,
    status: 200,
    error_code: null,
    streamed: 0,
    prompt_tokens: 10,
    completion_tokens: index,
    total_tokens: 10 + index,
    cost_usd: 0.5,
    latency_ms: 1.5,
    carbon_grams: 0.25,
    attempts: 1,
  });

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelport-reader-'));
    file = join(directory, 'reader.db');
    storage = openStorage(file);
    await migrateToLatest(storage);
    const rows = Array.from({ length: 30 }, (_, index) => usage(index, index % 3 === 0 ? 'openai:gpt-4o' : 'openai:gpt-4o-mini'));
    await storage.db.insertInto('usage_records').values(rows).execute();
  });
  after(async () => {
    await storage.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads the rows the main connection wrote, a GROUP BY aggregate included', async () => {
    const reader = createSqliteReaderThread({ file });
    try {
      const totals = await reader.db
        .selectFrom('usage_records')
        .select(['model', (eb) => eb.fn.countAll<number>().as('requests'), (eb) => eb.fn.sum<number>('completion_tokens').as('completion')])
        .where('owner_id', '=', 'owner_reader')
        .groupBy('model')
        .orderBy('model')
        .execute();
      // 0, 3, …, 27 on gpt-4o (10 rows, 135 tokens); the other 20 (300 tokens) on gpt-4o-mini.
      assert.deepEqual(totals, [
        { model: 'openai:gpt-4o', requests: 10, completion: 135 },
        { model: 'openai:gpt-4o-mini', requests: 20, completion: 300 },
      ]);
      // Rows the main connection writes now are seen by the next read (the file is in WAL mode, nothing is cached).
      await storage.db.insertInto('usage_records').values(usage(30, 'openai:gpt-4o')).execute();
      const page = await createUsageAnalyticsRepository(reader.db).page({ ownerId: 'owner_reader', limit: 2 });
      assert.deepEqual(
        page.map((row) => [row.id, row.completion_tokens, row.latency_ms]),
        [
          ['req_reader_30', 30, 1.5],
          ['req_reader_29', 29, 1.5],
        ],
      );
      await storage.db.deleteFrom('usage_records').where('id', '=', 'req_reader_30').execute();
    } finally {
      await reader.close();
    }
  });

  it('answers several queries in flight, each by its own id', async () => {
    const reader = createSqliteReaderThread({ file });
    try {
      const answers = await Promise.all(
        [5, 17, 2, 29].map((index) =>
          reader.db.selectFrom('usage_records').select('completion_tokens').where('id', '=', `req_reader_${index}`).executeTakeFirstOrThrow(),
        ),
      );
      assert.deepEqual(
        answers.map((row) => row.completion_tokens),
        [5, 17, 2, 29],
      );
    } finally {
      await reader.close();
    }
  });

  it('keeps the event loop turning while a slow query runs on the thread', async () => {
    const reader = createSqliteReaderThread({ file });
    try {
      await sql`select 1`.execute(reader.db); // the thread's start is not what is measured
      let ticks = 0;
      const interval = setInterval(() => (ticks += 1), 1);
      let result;
      try {
        result = await slowCount(3_000_000).execute(reader.db);
      } finally {
        clearInterval(interval);
      }
      assert.deepEqual(result.rows, [{ n: 3_000_000 }]);
      // On the main connection (better-sqlite3 is synchronous) no tick would run until the count had returned.
      assert.ok(ticks > 0, 'timers ran while the thread counted');
    } finally {
      await reader.close();
    }
  });

  it('refuses a write with a clear error, and answers the next select', async () => {
    const reader = createSqliteReaderThread({ file });
    try {
      await assert.rejects(reader.db.insertInto('usage_records').values(usage(99, 'openai:gpt-4o')).execute(), /runs only read queries/);
      await assert.rejects(reader.db.insertInto('usage_records').values(usage(98, 'openai:gpt-4o')).returning('id').execute(), /runs only read queries/);
      await assert.rejects(reader.db.transaction().execute(async () => {}), /read-only connection/);
      const count = await reader.db.selectFrom('usage_records').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      assert.equal(count.n, 30, 'nothing was written');
    } finally {
      await reader.close();
    }
  });

  it("rejects bad SQL with SQLite's message and code, and keeps the thread", async () => {
    const reader = createSqliteReaderThread({ file });
    try {
      await sql`select 1`.execute(reader.db);
      const thread = reader.worker;
      await assert.rejects(sql`select nope from usage_records`.execute(reader.db), (error: Error & { code?: string }) => {
        assert.match(error.message, /no such column: nope/);
        assert.equal(error.code, 'SQLITE_ERROR');
        return true;
      });
      assert.deepEqual((await sql`select 2 as two`.execute(reader.db)).rows, [{ two: 2 }]);
      assert.equal(reader.worker, thread, 'the same thread answered');
    } finally {
      await reader.close();
    }
  });

  it('fails the queries a dying thread had in hand, and starts another for the next', async () => {
    const reader = createSqliteReaderThread({ file });
    try {
      await sql`select 1`.execute(reader.db);
      const thread = reader.worker;
      assert.ok(thread !== undefined);
      const inFlight = slowCount(50_000_000).execute(reader.db);
      await thread.terminate();
      await assert.rejects(inFlight, /SQLite reader thread stopped before answering/);
      assert.deepEqual((await sql`select 3 as three`.execute(reader.db)).rows, [{ three: 3 }]);
      assert.ok(reader.worker !== undefined && reader.worker !== thread, 'a new thread answered');
    } finally {
      await reader.close();
    }
  });

  it('stops an idle thread and starts another for the next query', async () => {
    const reader = createSqliteReaderThread({ file, idleStopMs: 1 });
    try {
      await sql`select 1`.execute(reader.db);
      const thread = reader.worker;
      assert.ok(thread !== undefined);
      // The idle thread and its timer are unref'd (they keep no process alive); here the test keeps the loop up.
      const keepAlive = setInterval(() => {}, 1_000);
      await new Promise((resolve) => thread.once('exit', resolve)).finally(() => clearInterval(keepAlive));
      assert.equal(reader.worker, undefined);
      assert.deepEqual((await sql`select 4 as four`.execute(reader.db)).rows, [{ four: 4 }]);
    } finally {
      await reader.close();
    }
  });

  it('answers what was sent before close(), then ends the thread and refuses later queries', async () => {
    const reader = createSqliteReaderThread({ file });
    await sql`select 1`.execute(reader.db);
    const thread = reader.worker;
    const sent = slowCount(2_000_000).execute(reader.db);
    await new Promise(setImmediate); // Kysely has handed the query to the thread
    await reader.close();
    assert.deepEqual((await sent).rows, [{ n: 2_000_000 }]);
    assert.ok(thread !== undefined && reader.worker === undefined, 'close() ended the thread');
    await assert.rejects(sql`select 1`.execute(reader.db), /destroyed|closed/);
    const unused = createSqliteReaderThread({ file });
    await unused.close();
    await assert.rejects(sql`select 1`.execute(unused.db), /closed/);
    assert.equal(unused.worker, undefined, 'a closed reader starts no thread');
  });
});
