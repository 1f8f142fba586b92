import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { parseJsonObject, runModelport } from './run-modelport.js';

/** A local Postgres with trust auth, as in CI. */
const SERVER_URL = 'postgres://postgres@127.0.0.1:5432';

/** Undefined when Postgres answers; otherwise why the suite is skipped (reported, never a silent pass). */
async function postgresUnavailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: `${SERVER_URL}/postgres`, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message || ('code' in error ? String(error.code) : error.name) : String(error);
    return `Postgres is not reachable at 127.0.0.1:5432 (${reason}); the CLI was NOT tested on Postgres`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

const skip = await postgresUnavailable();

describe('modelport CLI on Postgres', () => {
  // Skipped per test, not per suite, so the run's summary counts it as skipped.
  it('user create, router create, key create and key list', { skip: skip ?? false }, async () => {
    const name = `modelport_cli_${randomBytes(6).toString('hex')}`;
    const url = `${SERVER_URL}/${name}`;
    const cli = (...args: string[]) => runModelport(url, args);
    await onServer(`CREATE DATABASE ${name}`);
    try {
      // The real executable: it must exit, its connection pool closed, once the user is created.
      const user = await runModelport(url, ['user', 'create', '--email', 'pg@example.com', '--password', 'correct horse battery'], { process: true });
      assert.equal(user.code, 0, user.stderr);

      const router = await cli('router', 'create', '--owner', 'pg@example.com', '--name', 'pg router', '--models', 'sim:small', '--strategy', 'latency_optimized');
      assert.equal(router.code, 0, router.stderr);
      assert.match(router.stdout, /^rt_[0-9A-Za-z]{22}\n$/);
      const routerId = router.stdout.trim();

      const key = await cli('key', 'create', '--owner', 'pg@example.com', '--name', 'pg key', '--routers', routerId, '--rpm', '30', '--expires-in', '90d');
      assert.equal(key.code, 0, key.stderr);
      assert.match(key.stdout, /^mp_[0-9A-Za-z]{40}\n$/);
      const value = key.stdout.trim();

      const list = await cli('key', 'list', '--owner', 'pg@example.com', '--json');
      assert.equal(list.code, 0, list.stderr);
      assert.ok(!list.stdout.includes(value));
      const keys = parseJsonObject(list.stdout).keys as Array<{ name: string; routers: string[] | null; rpm: number | null; createdAt: string; expiresAt: string | null; status: string }>;
      assert.equal(keys.length, 1);
      assert.equal(keys[0]?.name, 'pg key');
      assert.deepEqual(keys[0]?.routers, [routerId]);
      assert.equal(keys[0]?.rpm, 30);
      assert.equal(Date.parse(keys[0]?.expiresAt ?? '') - Date.parse(keys[0]?.createdAt ?? ''), 90 * 86_400_000);
      assert.equal(keys[0]?.status, 'active');

      const bad = await cli('router', 'create', '--owner', 'pg@example.com', '--name', 'x', '--models', 'sim:small', '--strategy', 'cheapest');
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /Unknown strategy/);
    } finally {
      await onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});
