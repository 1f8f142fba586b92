import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { createSqliteDatabase } from '../../test/support/databases.js';
import { openUsageFixture, usageRecord, USAGE_EPOCH } from '../../test/support/usage-fixtures.js';
import { createRandomTokenSource, createTimeOrderedIdSource } from '../lib/random-id.js';
import { usageRowValues } from './usage-repository.js';

const BATCH = 500;
const BATCHES_BEFORE = 40;

/**
 * Pages one 500-row batch writes to the WAL (each page a transaction dirties is written once) after 20,000 rows,
 * through the usage repository's own INSERT on a migrated database, with request ids from `nextId`.
 */
async function pagesOfOneBatch(nextId: (index: number) => string): Promise<number> {
  const database = createSqliteDatabase();
  const fixture = await openUsageFixture(database.url, 'pk-hash');
  try {
    const db = fixture.storage.db;
    await sql`pragma wal_autocheckpoint = 0`.execute(db);
    const batch = (first: number) =>
      usageRowValues(Array.from({ length: BATCH }, (_, offset) => ({ ...usageRecord('pk', fixture.keyId, first + offset), id: nextId(first + offset) })));
    for (let index = 0; index < BATCHES_BEFORE; index += 1) await fixture.repositories.usage.insertValues(batch(index * BATCH));
    await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
    await fixture.repositories.usage.insertValues(batch(BATCHES_BEFORE * BATCH));
    const { rows } = await sql<{ log: number }>`pragma wal_checkpoint(PASSIVE)`.execute(db);
    return Number(rows[0]?.log);
  } finally {
    await fixture.storage.close();
    await database.drop();
  }
}

describe('usage records keyed by time-ordered request ids', () => {
  it('a batch of 500 rows writes a few pages of the primary key index, not one per row as random ids do', async () => {
    // Six requests a millisecond, as a busy gateway makes them.
    const clockOf = (index: number) => USAGE_EPOCH + Math.floor(index / 6);
    let current = 0;
    const ordered = createTimeOrderedIdSource('req_', { now: () => clockOf(current) });
    const randomToken = createRandomTokenSource();
    const orderedPages = await pagesOfOneBatch((index) => {
      current = index;
      return ordered();
    });
    // The request ids before time-ordered ones: 12 random bytes.
    const randomPages = await pagesOfOneBatch(() => `req_${randomToken(12)}`);
    // Random keys land all over the index: most of its ~200 leaf pages are dirtied by one batch.
    assert.ok(randomPages > 130, `random ids: ${randomPages} pages for ${BATCH} rows`);
    // The rows themselves (~15 pages) and the last pages of each index.
    assert.ok(orderedPages < 70, `time-ordered ids: ${orderedPages} pages for ${BATCH} rows`);
  });
});
