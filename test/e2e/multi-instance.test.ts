import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createPostgresDatabase, type TestDatabase } from '../support/databases.js';
import { chatStatus, secretKey, seedDatabase, startGatewayProcess, within, type GatewayProcess } from './multi-instance-processes.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const database = await createPostgresDatabase();
const redisProbe = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000 });
const redisUp = await redisProbe.connect().then(
  () => true,
  () => false,
);

describe('three gateway processes on one Postgres and one Redis', { skip: database === undefined || !redisUp ? 'needs Postgres and Redis' : false }, () => {
  const prefix = `test-${randomUUID()}:`;
  let seeded: Awaited<ReturnType<typeof seedDatabase>>;
  let gateways: GatewayProcess[] = [];

  before(async () => {
    seeded = await seedDatabase((database as TestDatabase).url);
    // A generous Redis timeout: this machine's two cores are shared, and a timeout would (safely) refuse requests.
    const env = { DATABASE_URL: (database as TestDatabase).url, REDIS_URL: redisUrl, MODELPORT_REDIS_PREFIX: prefix, MODELPORT_SECRET_KEY: secretKey(), MODELPORT_REDIS_TIMEOUT_MS: '3000' };
    // The first instance polls the change counter as usual; the other two almost never, so
    // they can only learn of a revocation within 1 s through Redis pub/sub.
    gateways = await Promise.all([
      startGatewayProcess(env),
      startGatewayProcess({ ...env, MODELPORT_CHANGE_POLL_MS: '60000' }),
      startGatewayProcess({ ...env, MODELPORT_CHANGE_POLL_MS: '60000' }),
    ]);
  });

  after(async () => {
    await Promise.all(gateways.map((gateway) => gateway.stop()));
    await seeded?.storage.close();
    const keys = await redisProbe.keys(`${prefix}*`);
    if (keys.length > 0) await redisProbe.del(...keys);
    redisProbe.disconnect();
    await database?.drop();
  });

  it('a key with 30 requests per minute: exactly 30 of 90 requests spread over the instances succeed', async () => {
    const { value } = await seeded.admin.createKey({ ownerEmail: seeded.ownerEmail, name: 'thirty', rpmLimit: 30 });
    const statuses = await Promise.all(
      Array.from({ length: 90 }, (_, index) => chatStatus((gateways[index % gateways.length] as GatewayProcess).origin, value, seeded.router.id)),
    );
    assert.equal(statuses.filter((status) => status === 200).length, 30, `statuses: ${statuses.join(',')}`);
    assert.equal(statuses.filter((status) => status === 429).length, 60);
  });

  it('a key revoked (through the admin service, as the CLI does) is refused by every instance within 1 s', async () => {
    const { key, value } = await seeded.admin.createKey({ ownerEmail: seeded.ownerEmail, name: 'doomed' });
    for (const gateway of gateways) assert.equal(await chatStatus(gateway.origin, value, seeded.router.id), 200);
    await seeded.admin.revokeKey(seeded.ownerEmail, key.id);
    await Promise.all(gateways.map((gateway) => within(1000, async () => (await chatStatus(gateway.origin, value, seeded.router.id)) === 401)));
  });

  it('every instance registers a heartbeat, so each knows the fleet size without Redis', async () => {
    const rows = await seeded.storage.db.selectFrom('gateway_instances').selectAll().where('heartbeat_at', '>', Date.now() - 5000).execute();
    assert.equal(rows.length, 3);
  });
});
