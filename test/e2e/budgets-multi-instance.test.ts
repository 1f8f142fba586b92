import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createAdminService } from '../../src/admin/admin-service.js';
import { loadShippedCatalog } from '../../src/catalog/catalog.js';
import { migrateToLatest, openStorage, type Storage } from '../../src/storage/database.js';
import { createRepositories } from '../../src/storage/repositories.js';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { redisAnswers, TEST_REDIS_URL } from '../support/redis.js';

const REDIS_URL = TEST_REDIS_URL;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly cost: number;
}

async function chat(instance: GatewayProcess, apiKey: string, routerId: string, stream: boolean): Promise<Answer> {
  const response = await fetch(`${instance.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: routerId, stream, messages: [{ role: 'user', content: 'Spend a little of the shared budget.' }] }),
  });
  const body = await response.text();
  if (response.status !== 200) return { status: response.status, body, cost: 0 };
  const metas = stream
    ? body.split('\n').filter((line) => line.startsWith('data: {')).map((line) => (JSON.parse(line.slice(6)) as { _meta?: { cost: number } })._meta)
    : [(JSON.parse(body) as { _meta: { cost: number } })._meta];
  return { status: 200, body, cost: metas.filter((meta) => meta !== undefined).at(-1)?.cost ?? Number.NaN };
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('budgets across instances: two gateway processes, one Postgres, one Redis', async () => {
  const database = await createPostgresDatabase();
  const redisUp = await redisAnswers();
  const skip = database === undefined ? 'no Postgres at 127.0.0.1:5432' : !redisUp ? `no Redis at ${REDIS_URL}` : false;
  let storage: Storage;
  let instances: GatewayProcess[] = [];
  let routerId = '';
  let apiKey = '';
  let keyId = '';
  const prefix = `mp-test-${randomBytes(6).toString('hex')}:`;

  before(async () => {
    if (skip !== false || database === undefined) return;
    storage = openStorage(database.url);
    await migrateToLatest(storage);
    const admin = createAdminService(createRepositories(storage), loadShippedCatalog());
    await admin.createUser('fleet@example.com', 'password123');
    routerId = (await admin.createRouter({ ownerEmail: 'fleet@example.com', name: 'fleet', models: ['sim:small'], strategy: 'cost_optimized' })).id;
    const created = await admin.createKey({ ownerEmail: 'fleet@example.com', name: 'shared budget' });
    apiKey = created.value;
    keyId = created.key.id;
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL,
      MODELPORT_REDIS_PREFIX: prefix,
      MODELPORT_SECRET_KEY: 'fleet-test-secret-key-0123456789abcdef',
      MODELPORT_SIM_TIME_SCALE: '0.2',
      MODELPORT_CHANGE_POLL_MS: '50',
      MODELPORT_USAGE_FLUSH_MS: '100',
      LOG_LEVEL: 'info',
    };
    instances = await Promise.all([startGatewayProcess(env), startGatewayProcess(env)]);
    // Costs are measured on a key without a budget: one request of this prompt, streamed or not.
    const probe = await chat(instances[0]!, apiKey, routerId, false);
    assert.equal(probe.status, 200, probe.body);
    // The budget is set after the probe: the spend counter is seeded from the records already written.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await admin.setBudget('fleet@example.com', 'key', keyId, { amountUsd: probe.cost * 10.5, period: 'day' });
    await new Promise((resolve) => setTimeout(resolve, 300));
  });

  after(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    if (skip !== false || database === undefined) return;
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await storage.close();
    await database.drop();
  });

  it('stops non-streamed and streamed requests spread over both instances at the key budget, then answers 429 insufficient_quota', { skip }, async () => {
    const budget = await createRepositories(storage).budgets.find('key', keyId);
    assert.ok(budget !== undefined);
    // Waves of 4 concurrent requests, alternating instances and stream modes, until the budget refuses them all.
    const admitted: number[] = [];
    let refusals: Answer[] = [];
    let largestWave = 0;
    let sent = 1;
    for (let wave = 0; wave < 20 && refusals.length < 4; wave += 1) {
      sent += 4;
      const answers = await Promise.all(
        [0, 1, 2, 3].map((index) => chat(instances[index % 2]!, apiKey, routerId, (wave + index) % 2 === 0)),
      );
      const costs = answers.filter((answer) => answer.status === 200).map((answer) => answer.cost);
      admitted.push(...costs);
      largestWave = Math.max(largestWave, sum(costs));
      refusals = answers.filter((answer) => answer.status !== 200);
    }
    assert.equal(refusals.length, 4, 'a whole wave was refused');
    for (const refusal of refusals) {
      assert.equal(refusal.status, 429, refusal.body);
      const error = (JSON.parse(refusal.body) as { error: { type: string; code: string; message: string } }).error;
      assert.equal(error.code, 'insufficient_quota');
      assert.equal(error.type, 'insufficient_quota');
      assert.match(error.message, /this API key: \$[\d.]+ per day/);
    }
    const probeCost = (await spentInDatabase(storage, keyId, sent)) - sum(admitted);
    const spent = probeCost + sum(admitted);
    // Reached, and overshot by at most the requests admitted together (one wave: its own cost).
    assert.ok(spent >= budget.amountUsd, `spent ${spent} of ${budget.amountUsd}`);
    assert.ok(spent < budget.amountUsd + largestWave + 1e-12, `spent ${spent}, budget ${budget.amountUsd}, largest wave ${largestWave}`);
    // Both instances served and refused: the counter is shared, not per instance.
    const streamed = await chat(instances[1]!, apiKey, routerId, true);
    assert.equal(streamed.status, 429);
  });
});

/** What the database records for the key, once both instances flushed every request's record (refusals too). */
async function spentInDatabase(storage: Storage, keyId: string, requests: number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const row = await storage.db.selectFrom('usage_records').select((eb) => eb.fn.countAll<number | string>().as('n')).where('key_id', '=', keyId).executeTakeFirst();
    if (Number(row?.n ?? 0) >= requests) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return createRepositories(storage).usage.spentSince({ kind: 'key', id: keyId }, 0);
}
