import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { redisAnswers, TEST_REDIS_URL } from '../support/redis.js';

const LIMIT = 5;
/** The harness's owner and password (test/support/gateway-harness.ts). */
const RIGHT_PASSWORD = 'correct horse battery';

/** 20 wrong passwords for one email from one IP (127.0.0.1), all sent before any is answered, spread over `gateways`. */
async function parallelWrongSignIns(gateways: readonly Gateway[], email: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: 20 }, async (_, index) => {
      const gateway = gateways[index % gateways.length] ?? assert.fail('no gateway');
      return (await new DashboardClient(gateway.origin).signIn(email, `wrong guess ${index}`)).status;
    }),
  );
}

function assertRaceHeld(statuses: readonly number[]): void {
  const counts = { 401: statuses.filter((status) => status === 401).length, 429: statuses.filter((status) => status === 429).length };
  assert.equal(counts[401] + counts[429], statuses.length, `only 401 and 429: ${String(statuses)}`);
  // Before, all 20 got 401: each was checked before any had been counted.
  assert.ok(counts[401] <= LIMIT, `at most ${LIMIT} answered 401: ${String(statuses)}`);
}

describe('parallel wrong passwords for one email and IP cannot race the throttle', () => {
  describe('one instance, counting in process', () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await startGateway();
    });
    after(async () => {
      await gateway.close();
    });

    it('at most 5 of 20 parallel wrong passwords get 401, the rest 429, and the right password is then held too', async () => {
      const statuses = await parallelWrongSignIns([gateway], gateway.ownerEmail);
      assertRaceHeld(statuses);
      const right = await new DashboardClient(gateway.origin).signIn(gateway.ownerEmail, RIGHT_PASSWORD);
      assert.equal(right.status, 429);
      assert.ok(Number(right.headers.get('retry-after')) > 0);
    });
  });

  describe('two instances sharing Redis', async () => {
    const redisUp = await redisAnswers();
    if (!redisUp) {
      it.skip(`no Redis at ${TEST_REDIS_URL}`);
      return;
    }
    const prefix = `mp-test-${randomBytes(6).toString('hex')}:`;
    let gateways: Gateway[] = [];
    before(async () => {
      const env = { REDIS_URL: TEST_REDIS_URL, MODELPORT_REDIS_PREFIX: prefix };
      gateways = [await startGateway({ env }), await startGateway({ env })];
      for (const gateway of gateways) assert.equal(gateway.app.cluster.link?.isUp(), true, 'the gateway reached Redis');
    });
    after(async () => {
      await Promise.all(gateways.map((gateway) => gateway.close()));
    });

    it('at most 5 of 20 parallel wrong passwords get 401 across both, the rest 429', async () => {
      // Each instance has its own database with the same owner email: the count is per email and IP, in Redis.
      const statuses = await parallelWrongSignIns(gateways, gateways[0]?.ownerEmail ?? '');
      assertRaceHeld(statuses);
      for (const gateway of gateways) assert.equal((await new DashboardClient(gateway.origin).signIn(gateway.ownerEmail, RIGHT_PASSWORD)).status, 429);
    });
  });
});
