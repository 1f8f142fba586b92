import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
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
  await admin.createUser('workers@example.com', 'password123');
  const router = await admin.createRouter({ ownerEmail: 'workers@example.com', name: 'r', models: ['sim:small'], strategy: 'cost_optimized' });
  const open = await admin.createKey({ ownerEmail: 'workers@example.com', name: 'open' });
  const limited = await admin.createKey({ ownerEmail: 'workers@example.com', name: 'five a minute', rpmLimit: 5 });
  await storage.close();
  return { routerId: router.id, openKey: open.value, limitedKey: limited.value };
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** One request on its own connection, so the primary hands each to the next worker. */
function post(port: number, apiKey: string, routerId: string): Promise<{ status: number; worker: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/router/v1/chat/completions',
        agent: false,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', connection: 'close' },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => {
          const worker = response.headers['x-modelport-worker'];
          resolve({ status: response.statusCode ?? 0, worker: typeof worker === 'string' ? worker : undefined, body });
        });
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify({ model: routerId, messages: [{ role: 'user', content: 'hello' }] }));
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MODELPORT_WORKERS=2: the built server in two worker processes', () => {
  it('spreads requests over both workers, holds a key to its rpm across them, records everything and drains on SIGTERM', { timeout: 60_000 }, async () => {
    const database = createSqliteDatabase();
    const { routerId, openKey, limitedKey } = await seed(database.url);
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/main.js'], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        MODELPORT_BOOTSTRAP: 'false',
        MODELPORT_WORKERS: '2',
        MODELPORT_WORKER_HEADER: 'true',
        MODELPORT_SIM_TIME_SCALE: '0',
        MODELPORT_USAGE_FLUSH_MS: '600000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`workers did not start: ${output}`)), 30_000);
        const check = () => {
          if ((output.match(/Server listening at/g) ?? []).length >= 2) {
            clearTimeout(timer);
            resolve();
          }
        };
        child.stdout.on('data', check);
        check();
      });

      const answers = [];
      for (let index = 0; index < 12; index += 1) answers.push(await post(port, openKey, routerId));
      for (const answer of answers) assert.equal(answer.status, 200, answer.body);
      const workers = new Set(answers.map((answer) => answer.worker));
      assert.equal(workers.size, 2, `answered by ${[...workers].join(', ')}`);
      const pids = [...workers].map(Number);
      for (const pid of pids) assert.ok(Number.isInteger(pid) && pid !== child.pid, `worker pid ${pid}`);

      // Twelve requests at once, spread over both workers: the limit of 5 a minute holds for the fleet.
      const limited = await Promise.all(Array.from({ length: 12 }, () => post(port, limitedKey, routerId)));
      const statuses = limited.map((answer) => answer.status);
      assert.equal(statuses.filter((status) => status === 200).length, 5, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 429).length, 7, statuses.join(','));
      assert.equal(new Set(limited.map((answer) => answer.worker)).size, 2, 'both workers saw the limited key');

      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0, output);
      for (const pid of pids) assert.equal(isAlive(pid), false, `worker ${pid} still running`);

      const storage = openStorage(database.url);
      const rows = await createRepositories(storage).usage.list({});
      await storage.close();
      // Every request, refusals included, was written by the worker that served it when it drained.
      assert.equal(rows.length, 24);
      assert.equal(rows.filter((row) => row.status === 429).length, 7);
      assert.ok(!output.includes(openKey) && !output.includes(limitedKey), 'keys are never logged');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await database.drop();
    }
  });
});
