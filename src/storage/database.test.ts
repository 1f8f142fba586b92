import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
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
