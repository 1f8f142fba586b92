import assert from 'node:assert/strict';
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { openUsageFixture, usageRecord } from '../../test/support/usage-fixtures.js';
import { DATABASE_FILE_MODE, migrateToLatest, openStorage } from './database.js';
import { createUsageWriterThread } from './usage-writer-thread.js';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);
const OWNER_ONLY = DATABASE_FILE_MODE.toString(8);

/** The database file and the side files SQLite keeps while a connection is open (WAL mode: -wal and -shm). */
const databaseFiles = (file: string): readonly string[] => [file, `${file}-wal`, `${file}-shm`];

describe('SQLite database files are owner-only (0600), whatever the umask', () => {
  let database: TestDatabase;
  let umask: number;
  beforeEach(() => {
    database = createSqliteDatabase();
    umask = process.umask();
  });
  afterEach(async () => {
    process.umask(umask);
    await database.drop();
  });
  after(() => process.umask(umask));

  it('creates the file, its -wal and its -shm 0600 under a umask that leaves everything readable (0000)', async () => {
    // SQLite's own default (0644) minus a umask of 0 is world-readable: the file holds password hashes and sealed keys.
    process.umask(0o000);
    const storage = openStorage(database.url);
    try {
      await migrateToLatest(storage);
      for (const path of databaseFiles(database.url)) {
        assert.ok(existsSync(path), `${path} exists while the connection is open`);
        assert.equal(modeOf(path), OWNER_ONLY, path);
      }
    } finally {
      await storage.close();
    }
  });

  it('creates the file 0600 and writable under a umask narrower than that (0277)', async () => {
    process.umask(0o277);
    const storage = openStorage(database.url);
    try {
      await migrateToLatest(storage);
      await storage.db.insertInto('change_counter').values({ id: 2, version: 1 }).execute();
      for (const path of databaseFiles(database.url)) assert.equal(modeOf(path), OWNER_ONLY, path);
    } finally {
      await storage.close();
    }
  });

  it('takes group and other access off a database an earlier version left 0644, and off its side files', async () => {
    process.umask(0o000);
    writeFileSync(database.url, '', { mode: 0o644 });
    writeFileSync(`${database.url}-wal`, '', { mode: 0o644 });
    chmodSync(database.url, 0o644);
    chmodSync(`${database.url}-wal`, 0o644);
    const storage = openStorage(database.url);
    try {
      await migrateToLatest(storage);
      for (const path of databaseFiles(database.url)) assert.equal(modeOf(path), OWNER_ONLY, path);
    } finally {
      await storage.close();
    }
  });

  it("gives the usage writer thread's connection the same: a 0644 file it opens first, and the -wal and -shm it creates", async () => {
    // The main connection migrates and closes: its -wal and -shm are removed, so the thread's connection creates them.
    const fixture = await openUsageFixture(database.url, 'mode-hash');
    await fixture.storage.close();
    assert.equal(existsSync(`${database.url}-wal`), false);
    process.umask(0o000);
    chmodSync(database.url, 0o644);
    const writer = createUsageWriterThread({
      databaseUrl: database.url,
      fallback: {
        usage: { insertBatch: async () => assert.fail('the thread writes, not the fallback') },
        apiKeys: { touchLastUsed: async () => assert.fail('the thread writes, not the fallback') },
        retention: { deleteExpiredBatch: async () => assert.fail('the thread deletes, not the fallback') },
      },
      onLost: (reason) => assert.fail(`the writer thread stopped: ${reason}`),
    });
    try {
      await writer.insertMany([usageRecord('mode', fixture.keyId, 1)]);
      for (const path of databaseFiles(database.url)) assert.equal(modeOf(path), OWNER_ONLY, path);
    } finally {
      await writer.close();
    }
  });
});
