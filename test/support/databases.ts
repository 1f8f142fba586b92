import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where the test Postgres lives; CI starts it (.ci/run). */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  readonly dialect: 'sqlite' | 'postgres';
  readonly url: string;
  drop(): Promise<void>;
}

export function createSqliteDatabase(): TestDatabase {
  const directory = mkdtempSync(join(tmpdir(), 'modelport-db-'));
  return { dialect: 'sqlite', url: join(directory, 'test.db'), drop: async () => rmSync(directory, { recursive: true, force: true }) };
}

/** A fresh, uniquely named Postgres database on the server of `adminUrl`; undefined when no Postgres answers. */
export async function createPostgresDatabase(adminUrl: string = POSTGRES_ADMIN_URL): Promise<TestDatabase | undefined> {
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const name = `modelport_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect: 'postgres',
    url: url.toString(),
    async drop() {
      const cleaner = new pg.Client({ connectionString: adminUrl });
      await cleaner.connect();
      await cleaner.query(`drop database if exists ${name} with (force)`);
      await cleaner.end();
    },
  };
}

/**
 * The database a test gateway runs on: a fresh SQLite file, or, when
 * TEST_DATABASE_URL names a Postgres server (npm test's second pass), a fresh
 * database on it, dropped when the test is done.
 */
export async function createGatewayDatabase(): Promise<TestDatabase> {
  const postgres = process.env.TEST_DATABASE_URL;
  if (postgres === undefined || postgres === '') return createSqliteDatabase();
  const database = await createPostgresDatabase(postgres);
  if (database === undefined) throw new Error(`TEST_DATABASE_URL is set but no Postgres answers at ${new URL(postgres).host}`);
  return database;
}
