import { sql } from 'kysely';
import { createAdminService } from '../src/admin/admin-service.js';
import { loadShippedCatalog } from '../src/catalog/catalog.js';
import { migrateToLatest, openStorage } from '../src/storage/database.js';
import { createRepositories } from '../src/storage/repositories.js';

export interface BenchTenant {
  readonly routerId: string;
  readonly apiKey: string;
}

/** The router the bench calls: two real OpenAI models, cheapest first, so every request takes the full routing path. */
export const BENCH_ROUTER_MODELS = ['openai:gpt-4o-mini', 'openai:gpt-4o'] as const;

/**
 * Seeds a fresh database the way an operator would (through the admin service the
 * CLI uses): one user, one cost_optimized router over two OpenAI models, one key.
 */
export async function seedDatabase(databaseUrl: string): Promise<BenchTenant> {
  const storage = openStorage(databaseUrl);
  try {
    await migrateToLatest(storage);
    const admin = createAdminService(createRepositories(storage), loadShippedCatalog());
    const ownerEmail = 'bench@example.com';
    await admin.createUser(ownerEmail, 'bench password, not secret');
    const router = await admin.createRouter({ ownerEmail, name: 'bench router', models: [...BENCH_ROUTER_MODELS], strategy: 'cost_optimized' });
    const { value } = await admin.createKey({ ownerEmail, name: 'bench key' });
    return { routerId: router.id, apiKey: value };
  } finally {
    await storage.close();
  }
}

/** Usage records the gateway wrote (read after it has stopped and flushed). */
export async function countUsageRecords(databaseUrl: string): Promise<{ total: number; ok: number; streamed: number }> {
  const storage = openStorage(databaseUrl);
  try {
    const row = await storage.db
      .selectFrom('usage_records')
      .select([
        sql<number>`count(*)`.as('total'),
        sql<number>`sum(case when status = 200 then 1 else 0 end)`.as('ok'),
        sql<number>`sum(streamed)`.as('streamed'),
      ])
      .executeTakeFirstOrThrow();
    return { total: Number(row.total), ok: Number(row.ok ?? 0), streamed: Number(row.streamed ?? 0) };
  } finally {
    await storage.close();
  }
}

/** A fresh Postgres database for one bench run (`--database postgres`), on the server of BENCH_POSTGRES_URL. */
export async function createBenchPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const { default: pg } = await import('pg');
  const name = `modelport_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const cleaner = new pg.Client({ connectionString: adminUrl });
      await cleaner.connect();
      await cleaner.query(`drop database if exists ${name} with (force)`);
      await cleaner.end();
    },
  };
}
