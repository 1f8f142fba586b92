import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { createAdminService } from '../../src/admin/admin-service.js';
import { loadShippedCatalog } from '../../src/catalog/catalog.js';
import { migrateToLatest, openStorage } from '../../src/storage/database.js';
import { createRepositories } from '../../src/storage/repositories.js';
import { createSqliteDatabase } from '../support/databases.js';

async function seed(url: string) {
  const storage = openStorage(url);
  await migrateToLatest(storage);
  const admin = createAdminService(createRepositories(storage), loadShippedCatalog());
  await admin.createUser('drain@example.com', 'password123');
  const router = await admin.createRouter({ ownerEmail: 'drain@example.com', name: 'r', models: ['sim:small'], strategy: 'cost_optimized' });
  const { value } = await admin.createKey({ ownerEmail: 'drain@example.com', name: 'k' });
  await storage.close();
  return { routerId: router.id, apiKey: value };
}

describe('SIGTERM drains: the built server finishes requests in flight and records every one', () => {
  it('completes and records all accepted requests, then exits 0', async () => {
    const database = createSqliteDatabase();
    const { routerId, apiKey } = await seed(database.url);
    const child = spawn(process.execPath, ['dist/main.js'], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: '0',
        LOG_LEVEL: 'info',
        MODELPORT_BOOTSTRAP: 'false',
        // sim:small answers in ≈ 4 × (150 ms + 6.7 ms a token): requests are still in flight when SIGTERM lands.
        MODELPORT_SIM_TIME_SCALE: '4',
        // Long flush interval: only the shutdown flush can write the records.
        MODELPORT_USAGE_FLUSH_MS: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 15_000);
      child.stdout.on('data', () => {
        const match = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
    });

    const count = 20;
    const send = (index: number) =>
      fetch(`http://127.0.0.1:${port}/api/router/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: routerId, stream: index % 2 === 0, messages: [{ role: 'user', content: `request ${index}` }] }),
      });
    const pending = Array.from({ length: count }, (_, index) => send(index));
    // A stream's headers arrive with its first token (≈ 600 ms here), so once every stream has them all
    // requests sent alongside are accepted and in flight; non-streamed ones take ≈ 2 s more.
    const streamed = pending.filter((_, index) => index % 2 === 0);
    await Promise.all(streamed);
    // Ask it to stop twice: the second signal must not cut the drain short.
    child.kill('SIGTERM');
    child.kill('SIGTERM');
    const results = await Promise.all(pending.map(async (response) => {
      const answer = await response;
      return { status: answer.status, body: await answer.text() };
    }));
    const [code] = (await once(child, 'exit')) as [number | null];

    assert.equal(code, 0, output);
    for (const result of results) {
      assert.equal(result.status, 200, result.body);
      assert.match(result.body, /_meta/);
    }
    const storage = openStorage(database.url);
    const rows = await createRepositories(storage).usage.list({});
    await storage.close();
    await database.drop();
    assert.equal(rows.length, count);
    assert.equal(rows.filter((row) => row.streamed === 1).length, count / 2);
    assert.ok(rows.every((row) => row.status === 200 && row.cost_usd > 0 && row.completion_tokens > 0));
    assert.ok(!output.includes(apiKey), 'the key must never be logged');
  });
});
