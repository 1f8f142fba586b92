import { createUsageRecorder } from '../src/accounting/usage-recorder.js';
import { createAdminService } from '../src/admin/admin-service.js';
import { loadShippedCatalog } from '../src/catalog/catalog.js';
import { migrateToLatest, openStorage, sqliteFilePath } from '../src/storage/database.js';
import { createRepositories } from '../src/storage/repositories.js';
import { createUsageWriterThread } from '../src/storage/usage-writer-thread.js';
import { createInlineUsageWriter } from '../src/storage/usage-writer.js';
import { BENCH_ANALYTICS_ROUTERS, benchUsageRecords, type BenchAnalyticsTenant, type ExpectedUsage } from './analytics-records.js';

export interface WriteFigures {
  readonly records: number;
  readonly seconds: number;
  readonly recordsPerS: number;
  /** Which writer the recorder wrote through: the SQLite writer thread, or the connection (Postgres). */
  readonly writer: 'sqlite-writer-thread' | 'inline';
  /** Records the recorder dropped (its queue full) or failed to write: 0, or the totals cannot match. */
  readonly dropped: number;
  readonly flushErrors: number;
}

/** Records handed to the recorder before waiting for it to write them: its queue never fills (it holds 100,000). */
const CHUNK = 10_000;

/** A migrated database with one owner (email and password to sign in with), its routers and keys, as an operator makes them. */
export async function seedAnalyticsTenant(databaseUrl: string): Promise<BenchAnalyticsTenant> {
  const storage = openStorage(databaseUrl);
  try {
    await migrateToLatest(storage);
    const admin = createAdminService(createRepositories(storage), loadShippedCatalog());
    const email = 'analytics-bench@example.com';
    const password = 'bench password, not secret';
    const user = await admin.createUser(email, password);
    const routers = [];
    for (const router of BENCH_ANALYTICS_ROUTERS) {
      const created = await admin.createRouter({ ownerEmail: email, name: router.name, models: [...router.models], strategy: 'cost_optimized' });
      routers.push({ id: created.id, models: router.models });
    }
    const keyIds = [];
    for (const name of ['production', 'staging', 'ci', 'notebook']) keyIds.push((await admin.createKey({ ownerEmail: email, name })).key.id);
    return { ownerId: user.id, email, password, routers, keyIds };
  } finally {
    await storage.close();
  }
}

/**
 * Writes `total` records through the usage recorder the gateway uses, over the writer it would pick for this database
 * (src/app.ts createUsageWriter): the SQLite writer thread with 500-row inserts for a file, the connection itself with
 * 50-row inserts on Postgres. Each insert upserts the rollups in its transaction, as in production.
 */
export async function writeAnalyticsRecords(
  databaseUrl: string,
  tenant: BenchAnalyticsTenant,
  total: number,
  now: number,
  expected: ExpectedUsage,
  log: (line: string) => void,
): Promise<WriteFigures> {
  const storage = openStorage(databaseUrl);
  const repositories = createRepositories(storage);
  const file = sqliteFilePath(databaseUrl);
  const writer =
    file === undefined
      ? createInlineUsageWriter(repositories.usage, repositories.apiKeys, repositories.retention)
      : createUsageWriterThread({ databaseUrl: file, fallback: repositories, onLost: (reason, next) => log(`usage writer thread lost (${reason}); ${next}`) });
  let flushErrors = 0;
  let lastError: unknown;
  const recorder = createUsageRecorder(
    writer,
    { flushIntervalMs: 1000, batchSize: 500, maxQueued: 100_000, wideInsertRows: file === undefined ? undefined : 500 },
    (error) => {
      flushErrors += 1;
      lastError = error;
    },
  );
  const started = performance.now();
  let lastLog = started;
  let written = 0;
  try {
    for (const chunk of benchUsageRecords(tenant, total, now, CHUNK, expected)) {
      for (const record of chunk) recorder.record(record);
      await recorder.flush();
      written += chunk.length;
      const at = performance.now();
      if (at - lastLog >= 10_000 || written === total) {
        lastLog = at;
        const seconds = (at - started) / 1000;
        const rate = written / seconds;
        const left = rate > 0 ? (total - written) / rate : Number.NaN;
        log(`  ${written.toLocaleString('en')} / ${total.toLocaleString('en')} records (${((written / total) * 100).toFixed(1)} %), ${Math.round(rate).toLocaleString('en')} records/s, ~${Math.round(left)} s left`);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const stats = recorder.stats();
    if (flushErrors > 0) log(`${flushErrors} flushes failed; the last: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
    return {
      records: stats.written,
      seconds: Math.round(seconds * 100) / 100,
      recordsPerS: Math.round(stats.written / seconds),
      writer: file === undefined ? 'inline' : 'sqlite-writer-thread',
      dropped: stats.dropped + (total - stats.written),
      flushErrors,
    };
  } finally {
    await recorder.close();
    await storage.close();
  }
}
