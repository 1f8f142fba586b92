import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { chatStatus, freePort, secretKey, seedDatabase, startGatewayProcess, within, type GatewayProcess } from './multi-instance-processes.js';

/**
 * Redis stopped mid-test and started again: our OWN redis-server on a free
 * port, never the machine's shared one. Limits use a 2 s window
 * (MODELPORT_RATE_WINDOW_MS) so safe mode's phases fit in seconds.
 */
const WINDOW_MS = 2000;
const database = await createPostgresDatabase();
const hasRedisServer = spawnSync('redis-server', ['--version']).status === 0;

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  await within(5000, () => probe.connect().then(() => true, () => false));
  probe.disconnect();
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describe('Redis outage: safe mode, then recovery', { skip: database === undefined || !hasRedisServer ? 'needs Postgres and redis-server' : false }, () => {
  let redisPort: number;
  let redis: ChildProcess;
  let seeded: Awaited<ReturnType<typeof seedDatabase>>;
  let gateways: GatewayProcess[] = [];
  const newKey = async (rpmLimit: number) => (await seeded.admin.createKey({ ownerEmail: seeded.ownerEmail, name: 'k', rpmLimit })).value;

  before(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    seeded = await seedDatabase((database as TestDatabase).url);
    const env = {
      DATABASE_URL: (database as TestDatabase).url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      MODELPORT_SECRET_KEY: secretKey(),
      MODELPORT_RATE_WINDOW_MS: String(WINDOW_MS),
      MODELPORT_HEARTBEAT_MS: '200',
    };
    // The second instance barely polls the database: after the outage it hears of changes only through pub/sub.
    gateways = await Promise.all([startGatewayProcess(env), startGatewayProcess({ ...env, MODELPORT_CHANGE_POLL_MS: '60000' })]);
  });

  after(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    if (redis !== undefined) await stopRedis(redis);
    await seeded?.storage.close();
    await database?.drop();
  });

  it('keeps answering while Redis is down, with no key over its limit in any window, and is shared again once Redis returns', async () => {
    const [first, second] = gateways as [GatewayProcess, GatewayProcess];
    const router = seeded.router.id;

    // Shared: one instance may use the whole limit, and the other then refuses.
    const warm = await newKey(4);
    for (let i = 0; i < 4; i += 1) assert.equal(await chatStatus(first.origin, warm, router), 200);
    assert.equal(await chatStatus(second.origin, warm, router), 429);

    await stopRedis(redis);
    const limited = await newKey(6);
    const answers: Array<{ started: number; at: number; status: number; ms: number }> = [];
    const outageEnds = performance.now() + 5000;
    for (let index = 0; performance.now() < outageEnds; index += 1) {
      const started = performance.now();
      const status = await chatStatus((index % 2 === 0 ? first : second).origin, limited, router);
      answers.push({ started, at: performance.now(), status, ms: performance.now() - started });
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    const statuses = new Set(answers.map((answer) => answer.status));
    assert.deepEqual([...statuses].filter((status) => ![200, 429, 503].includes(status)), [], 'only 200, 429 or 503 while Redis is down');
    // No request waits on Redis: the documented bound is one command timeout (250 ms); far below a few seconds.
    assert.ok(Math.max(...answers.map((answer) => answer.ms)) < 3000, 'no request waited seconds on Redis');
    assert.ok(statuses.has(503), 'refuses (503) while pre-outage entries may still be in the window');
    assert.ok(statuses.has(200), 'answers again in safe mode once a window has passed');
    // Each request was admitted somewhere between its start and its answer, as the client sees them: those that
    // started at or after one request's start and were answered within a window of it were certainly admitted within
    // one window. (Answer times alone, with a fixed margin, counted a request answered late, under load, in the wrong
    // window.)
    const admitted = answers.filter((answer) => answer.status === 200);
    for (const { started } of admitted) {
      const inWindow = admitted.filter((other) => other.started >= started && other.at < started + WINDOW_MS).length;
      assert.ok(inWindow <= 6, `${inWindow} admitted within one window from ${started.toFixed(0)}`);
    }

    redis = await startRedis(redisPort);
    const returned = performance.now();
    // Normal again within 5 s: one instance admits a key's whole limit (safe mode would give it half).
    await within(5000, async () => {
      const key = await newKey(4);
      const results = [];
      for (let i = 0; i < 4; i += 1) results.push(await chatStatus(first.origin, key, router));
      return results.every((status) => status === 200) && (await chatStatus(second.origin, key, router)) === 429;
    });
    assert.ok(performance.now() - returned < 5000);

    // Invalidation through pub/sub again (resubscribed, well within 10 s of the return): the instance
    // that barely polls the database refuses a revoked key within 1 s.
    const { key, value } = await seeded.admin.createKey({ ownerEmail: seeded.ownerEmail, name: 'revoked after the outage' });
    assert.equal(await chatStatus(second.origin, value, router), 200);
    await seeded.admin.revokeKey(seeded.ownerEmail, key.id);
    await within(1000, async () => (await chatStatus(second.origin, value, router)) === 401);
  });
});
