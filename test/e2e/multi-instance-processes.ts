import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createAdminService } from '../../src/admin/admin-service.js';
import { loadShippedCatalog } from '../../src/catalog/catalog.js';
import { migrateToLatest, openStorage, type Storage } from '../../src/storage/database.js';
import { createRepositories } from '../../src/storage/repositories.js';

/** Helpers for tests that run several real gateway processes (`node dist/main.js`) against one database and one Redis. */

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface GatewayProcess {
  readonly origin: string;
  readonly child: ChildProcess;
  /** Last lines the process wrote, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js` with `env` on a free loopback port and waits until /healthz answers. */
export async function startGatewayProcess(env: Record<string, string>): Promise<GatewayProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" before the multi-instance tests.`);
  const port = await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      MODELPORT_BOOTSTRAP: 'false',
      MODELPORT_SIM_TIME_SCALE: '0',
      MODELPORT_BREAKER_ENABLED: 'false',
      MODELPORT_USAGE_FLUSH_MS: '50',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const origin = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}: ${output}`);
    const healthy = await fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() - started > 20_000) {
      child.kill('SIGKILL');
      throw new Error(`gateway did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    origin,
    child,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** A migrated database with one owner and one router, and the admin service over it. */
export async function seedDatabase(url: string) {
  const storage: Storage = openStorage(url);
  await migrateToLatest(storage);
  const repositories = createRepositories(storage);
  const admin = createAdminService(repositories, loadShippedCatalog());
  const ownerEmail = 'fleet@example.com';
  await admin.createUser(ownerEmail, 'correct horse battery');
  const router = await admin.createRouter({ ownerEmail, name: 'fleet', models: ['sim:small'], strategy: 'cost_optimized' });
  return { storage, repositories, admin, ownerEmail, router };
}

export function secretKey(): string {
  return randomBytes(32).toString('base64');
}

export async function chatStatus(origin: string, key: string, routerId: string): Promise<number> {
  const response = await fetch(`${origin}/api/router/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: routerId, messages: [{ role: 'user', content: 'Hello' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Polls until `check` passes; fails after `deadlineMs`. Returns how long it took. */
export async function within(deadlineMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > deadlineMs) throw new Error(`not true within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
