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

/** A fresh, uniquely named Postgres database; undefined when no Postgres answers. */
export async function createPostgresDatabase(): Promise<TestDatabase | undefined> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
  } catch {
    return undefined;
  }
  const name = `modelport_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    dialect: 'postgres',
    url: url.toString(),
    async drop() {
      const cleaner = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await cleaner.connect();
      await cleaner.query(`drop database if exists ${name} with (force)`);
      await cleaner.end();
    },
  };
}
