import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRandomTokenSource, createTimeOrderedIdSource } from '../src/lib/random-id.js';
import { migrateToLatest, openStorage } from '../src/storage/database.js';
import { createRepositories } from '../src/storage/repositories.js';
import { usageRowValues } from '../src/storage/usage-repository.js';
import { usageRecord } from '../test/support/usage-fixtures.js';

/**
 * What a usage record costs the SQLite writer as the table grows, with the request ids the gateway makes
 * (time-ordered) and with random ones (what a random primary key costs): 500-row INSERTs through the usage
 * repository on a migrated database in WAL mode, as the writer thread runs them, timed per row for each
 * stretch of `step` rows.
 *
 *   npx tsx bench/usage-insert.ts [rows=300000] [step=100000]
 */

const total = Number(process.argv[2] ?? '300000');
const step = Number(process.argv[3] ?? '100000');
const BATCH = 500;

async function microsecondsPerRow(kind: 'random' | 'time-ordered'): Promise<number[]> {
  const directory = mkdtempSync(join(tmpdir(), 'modelport-usage-insert-'));
  const storage = openStorage(join(directory, 'usage.db'));
  try {
    await migrateToLatest(storage);
    const repositories = createRepositories(storage, Date.now);
    const randomToken = createRandomTokenSource();
    const clock = Date.now();
    let made = 0;
    // Eight requests a millisecond, as a busy gateway makes them.
    const ordered = createTimeOrderedIdSource('req_', { now: () => clock + Math.floor(made / 8) });
    const nextId = kind === 'random' ? () => `req_${randomToken(12)}` : ordered;
    const figures: number[] = [];
    let spent = 0n;
    for (let written = 0; written < total; written += BATCH) {
      const records = Array.from({ length: BATCH }, () => {
        made += 1;
        return { ...usageRecord('bench', 'key_bench', made), id: nextId() };
      });
      const values = usageRowValues(records);
      const started = process.hrtime.bigint();
      await repositories.usage.insertValues(values);
      spent += process.hrtime.bigint() - started;
      if ((written + BATCH) % step === 0) {
        figures.push(Number(spent) / 1000 / step);
        spent = 0n;
      }
    }
    return figures;
  } finally {
    await storage.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

const rows = ['random', 'time-ordered'] as const;
const results = new Map<string, number[]>();
for (const kind of rows) results.set(kind, await microsecondsPerRow(kind));
const stretches = results.get('random')!.map((_, index) => `rows ${(index * step).toLocaleString('en')}–${((index + 1) * step).toLocaleString('en')}`);
console.log(`| request ids | ${stretches.join(' | ')} |`);
console.log(`|---|${stretches.map(() => '---:').join('|')}|`);
for (const kind of rows) console.log(`| ${kind} | ${results.get(kind)!.map((value) => `${value.toFixed(1)} µs/row`).join(' | ')} |`);
