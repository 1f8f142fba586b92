import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { createPostgresDatabase, createSqliteDatabase, POSTGRES_ADMIN_URL, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from './database.js';

describe('SQLite transactions beside another connection (the usage writer thread)', () => {
  let database: TestDatabase;
  let storage: Storage;

  before(async () => {
    database = createSqliteDatabase();
    storage = openStorage(database.url);
    await migrateToLatest(storage);
  });
  after(async () => {
    await storage.close();
    await database.drop();
  });

  it('takes the write lock when it begins, so a read-then-write transaction cannot lose it to a write in between', async () => {
    const other = new SqliteDatabase(database.url);
    other.pragma('busy_timeout = 0');
    try {
      const before = await storage.db.selectFrom('change_counter').select('version').executeTakeFirstOrThrow();
      await storage.db.transaction().execute(async (transaction) => {
        const row = await transaction.selectFrom('change_counter').select('version').executeTakeFirstOrThrow();
        // With a deferred `begin` this write would succeed and the update below fail with SQLITE_BUSY.
        assert.throws(() => other.prepare('update change_counter set version = version + 100').run(), { code: 'SQLITE_BUSY' });
        await transaction.updateTable('change_counter').set({ version: Number(row.version) + 1 }).execute();
      });
      const after = await storage.db.selectFrom('change_counter').select('version').executeTakeFirstOrThrow();
      assert.equal(Number(after.version), Number(before.version) + 1);
    } finally {
      other.close();
    }
  });
});

describe('Postgres: a connection closed by the server while it is checked out', async () => {
  const database = await createPostgresDatabase();
  const skip = database === undefined ? `no Postgres at ${POSTGRES_ADMIN_URL}` : false;
  after(async () => {
    await database?.drop();
  });

  it('does not end the process, and the next query gets a working connection', { skip }, async () => {
    const storage = openStorage((database as TestDatabase).url);
    try {
      const admin = openStorage((database as TestDatabase).url);
      try {
        await storage.db.connection().execute(async (connection) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection);
          // What a restart does to each backend, while this connection is held between two queries.
          await sql`select pg_terminate_backend(${rows[0]?.pid})`.execute(admin.db);
          // The server's FATAL message and the socket's end reach the held client now; without a listener its
          // 'error' event is an uncaught exception, and this test fails with it.
          await new Promise((resolve) => setTimeout(resolve, 200));
          await assert.rejects(sql`select 1`.execute(connection));
        });
      } finally {
        await admin.close();
      }
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(storage.db);
      assert.equal(rows[0]?.one, 1);
    } finally {
      await storage.close();
    }
  });
});
