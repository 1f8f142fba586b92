import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration, type SqliteDatabase as SqliteDialectDatabase } from 'kysely';
import type * as Pg from 'pg';
import { initialMigration } from './migrations/0001-initial.js';
import { providerCredentialsMigration } from './migrations/0002-provider-credentials.js';
import { routerSettingsMigration } from './migrations/0003-router-settings.js';
import { agentsMigration } from './migrations/0004-agents.js';
import { accountsMigration } from './migrations/0005-accounts.js';
import { keyLimitsMigration } from './migrations/0006-key-limits.js';
import { budgetsMigration } from './migrations/0007-budgets.js';
import { usageIndexDuplicateMigration } from './migrations/0008-usage-index-duplicate.js';
import { customEmbeddingModelsMigration } from './migrations/0010-custom-embedding-models.js';
import { responsesMigration } from './migrations/0009-responses.js';
import { signupVerificationsMigration } from './migrations/0011-signup-verifications.js';
import { routingLabelsMigration } from './migrations/0012-routing-labels.js';
import { usageEnergyMigration } from './migrations/0013-usage-energy.js';
import { requestLogMigration } from './migrations/0014-request-log.js';
import { usageRollupsMigration } from './migrations/0015-usage-rollups.js';
import type { Database } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Storage {
  readonly db: Kysely<Database>;
  readonly dialect: DialectName;
  close(): Promise<void>;
}

/**
 * Opens the database named by `url`: `postgres://…` for Postgres, anything else
 * a SQLite file path (`sqlite:` prefix optional, `:memory:` allowed).
 */
export function openStorage(url: string, options: { readonly maxConnections?: number } = {}): Storage {
  if (/^postgres(ql)?:\/\//.test(url)) {
    // The driver is loaded only for a Postgres URL: a SQLite gateway never holds it (docs/performance.md, idle memory).
    const pg = createRequire(import.meta.url)('pg') as typeof Pg;
    const pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      // bigint (int8) columns hold epoch milliseconds, well inside 2^53.
      types: { getTypeParser: (oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) } as Pg.CustomTypesConfig,
    });
    // An idle connection the server closed (restart, failover) is dropped by the pool and replaced on
    // next use; unheard, its 'error' event would end the process.
    pool.on('error', () => {});
    // A connection the server closes while it is checked out (between two queries of a transaction, or as a query's
    // FATAL error is followed by the socket's reset) emits 'error' on its client, which the pool no longer listens to:
    // unheard, it ended the process on a Postgres restart. The query in flight fails with its own error, and the pool
    // drops the broken client when it is released.
    pool.on('connect', (client) => client.on('error', () => {}));
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const file = url.replace(/^sqlite:(\/\/)?/, '');
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true });
    keepOwnerOnly(file);
  }
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

/** The database file and what SQLite keeps beside it: they hold password hashes, sealed provider keys and usage. */
export const DATABASE_FILE_MODE = 0o600;
const SQLITE_SIDE_FILES = ['-wal', '-shm', '-journal'] as const;

/**
 * Creates the SQLite file owner-only before SQLite opens it, or takes group and other access off an existing one and
 * its side files. SQLite creates its -wal, -shm and -journal with the database file's own mode (os_unix.c,
 * findCreateFileMode), so every connection (the usage writer thread's too) inherits it. The mode is set with chmod,
 * not left to the umask: a umask can only narrow the mode passed to open, and a narrower one (0400) would leave the
 * file unwritable. A file this user does not own keeps its mode (chmod is refused), as the operator set it.
 */
function keepOwnerOnly(file: string): void {
  let created: number | undefined;
  try {
    created = openSync(file, 'wx', DATABASE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (created !== undefined) {
    try {
      fchmodSync(created, DATABASE_FILE_MODE);
    } finally {
      closeSync(created);
    }
    return;
  }
  for (const path of [file, ...SQLITE_SIDE_FILES.map((suffix) => `${file}${suffix}`)]) tightenMode(path);
}

function tightenMode(path: string): void {
  try {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) chmodSync(path, mode & 0o700);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}

/** Statements kept per SQL text; the gateway's queries are a few dozen shapes (a usage batch of n rows is one each). */
const STATEMENT_CACHE_SIZE = 200;

/**
 * Kysely's SQLite driver prepares every query anew; preparing parses and plans the SQL each time (a usage
 * batch of 50 rows has 800 parameters). Keeping prepared statements by SQL text saves that. Kysely runs one
 * query at a time on the connection and only `streamQuery` (unused here) would leave a statement iterating.
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(query: string) {
      let statement = statements.get(query);
      if (statement === undefined) {
        // Kysely begins with a deferred `begin`. With another connection writing (the usage writer thread, other
        // worker processes), a transaction that reads before it writes then fails with SQLITE_BUSY at its first
        // write, which the busy timeout does not wait out; `begin immediate` waits for the write lock up front.
        statement = sqlite.prepare(query === 'begin' ? 'begin immediate' : query);
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        statements.set(query, statement);
      }
      return statement;
    },
  };
}

/** The SQLite file a DATABASE_URL names, as openStorage reads it (`:memory:` included); undefined for Postgres. */
export function sqliteFilePath(url: string): string | undefined {
  if (/^postgres(ql)?:\/\//.test(url)) return undefined;
  return url.replace(/^sqlite:(\/\/)?/, '');
}

const migrations: Record<string, Migration> = {
  '0001-initial': initialMigration,
  '0002-provider-credentials': providerCredentialsMigration,
  '0003-router-settings': routerSettingsMigration,
  '0004-agents': agentsMigration,
  '0005-accounts': accountsMigration,
  '0006-key-limits': keyLimitsMigration,
  '0007-budgets': budgetsMigration,
  '0008-usage-index-duplicate': usageIndexDuplicateMigration,
  '0009-responses': responsesMigration,
  '0010-custom-embedding-models': customEmbeddingModelsMigration,
  '0011-signup-verifications': signupVerificationsMigration,
  '0012-routing-labels': routingLabelsMigration,
  '0013-usage-energy': usageEnergyMigration,
  '0014-request-log': requestLogMigration,
  '0015-usage-rollups': usageRollupsMigration,
};

/** Brings the schema up to date. Kysely's migrator holds a lock, so instances starting together are safe. */
export async function migrateToLatest(storage: Storage): Promise<void> {
  // Unordered: features land on branches in parallel, so a database may have run a later-numbered migration
  // before an earlier-numbered one existed; each migration is independent of the others' order.
  const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => migrations }, allowUnorderedMigrations: true });
  const { error } = await migrator.migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(String(error));
}
