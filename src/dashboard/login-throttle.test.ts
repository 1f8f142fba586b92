import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { GatewayError } from '../lib/errors.js';
import { createLoginThrottle, type LoginThrottle, type LoginThrottleOptions } from './login-throttle.js';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What a sign-in does around its password check: count first, then the (slow) hash, then forget on success. */
async function signInAttempt(throttle: LoginThrottle, ip: string, email: string, correct: boolean): Promise<number> {
  try {
    await throttle.beforeSignIn(ip, email);
  } catch (error) {
    if (error instanceof GatewayError) return error.status;
    throw error;
  }
  await new Promise((resolve) => setTimeout(resolve, 20));
  if (!correct) return 401;
  await throttle.succeeded(ip, email);
  return 200;
}

async function statusOf(attempt: Promise<void>): Promise<number> {
  return attempt.then(
    () => 200,
    (error: unknown) => {
      if (error instanceof GatewayError) return error.status;
      throw error;
    },
  );
}

function count(statuses: readonly number[], status: number): number {
  return statuses.filter((value) => value === status).length;
}

/** The same checks over each store the throttle can use. */
function throttleSuite(name: string, options: () => LoginThrottleOptions) {
  describe(name, () => {
    it('lets at most the limit of parallel wrong passwords for one email and IP through; the rest are 429', async () => {
      const throttle = createLoginThrottle({ ...options(), failuresPerEmail: 5 });
      const statuses = await Promise.all(Array.from({ length: 20 }, () => signInAttempt(throttle, '203.0.113.7', 'race@example.com', false)));
      assert.equal(count(statuses, 401), 5, String(statuses));
      assert.equal(count(statuses, 429), 15, String(statuses));
      // The block holds for the right password too, and does not touch another email from the same IP.
      assert.equal(await signInAttempt(throttle, '203.0.113.7', 'race@example.com', true), 429);
      assert.equal(await signInAttempt(throttle, '203.0.113.7', 'other@example.com', true), 200);
    });

    it('forgets the count on success and takes back an attempt that got no verdict', async () => {
      const throttle = createLoginThrottle({ ...options(), failuresPerEmail: 2 });
      assert.equal(await signInAttempt(throttle, '203.0.113.8', 'a@example.com', false), 401);
      assert.equal(await signInAttempt(throttle, '203.0.113.8', 'a@example.com', true), 200);
      assert.equal(await signInAttempt(throttle, '203.0.113.8', 'a@example.com', false), 401);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await throttle.beforeSignIn('203.0.113.8', 'A@example.com ');
        await throttle.cancelled('203.0.113.8', 'a@example.com');
      }
      assert.equal(await signInAttempt(throttle, '203.0.113.8', 'a@example.com', false), 401);
      assert.equal(await signInAttempt(throttle, '203.0.113.8', 'a@example.com', true), 429);
      // Sign-up only looks: it is refused for a blocked pair and counts nothing for another.
      assert.equal(await statusOf(throttle.beforeAttempt('203.0.113.8', 'a@example.com')), 429);
      for (let attempt = 0; attempt < 5; attempt += 1) assert.equal(await statusOf(throttle.beforeAttempt('203.0.113.8', 'b@example.com')), 200);
      assert.equal(await signInAttempt(throttle, '203.0.113.8', 'b@example.com', true), 200);
    });

    it('counts parallel attempts per IP atomically, with Retry-After', async () => {
      const throttle = createLoginThrottle({ ...options(), attemptsPerIp: 7 });
      const results = await Promise.allSettled(Array.from({ length: 30 }, () => throttle.admitAddress('198.51.100.9')));
      assert.equal(results.filter((result) => result.status === 'fulfilled').length, 7);
      const refused = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      assert.ok(refused?.reason instanceof GatewayError);
      assert.equal(refused.reason.code, 'too_many_attempts');
      assert.ok(Number(refused.reason.headers['retry-after']) > 0);
      assert.equal(await statusOf(throttle.admitAddress('198.51.100.10')), 200);
    });
  });
}

throttleSuite('login throttle in process memory', () => ({}));

describe('login throttle in Redis', async () => {
  const probe = new Redis(TEST_REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: () => null });
  const available = await probe.connect().then(
    () => true,
    () => false,
  );
  probe.disconnect();
  if (!available) {
    it.skip(`no Redis at ${TEST_REDIS_URL}`);
    return;
  }
  const prefix = `modelport-test-${randomBytes(6).toString('hex')}:`;
  let redis: Redis;
  let other: Redis;
  before(() => {
    redis = new Redis(TEST_REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    other = new Redis(TEST_REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    return Promise.all([new Promise((resolve) => redis.once('ready', resolve)), new Promise((resolve) => other.once('ready', resolve))]);
  });
  after(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    other.disconnect();
  });

  throttleSuite('one instance', () => ({ redis, redisPrefix: `${prefix}${randomBytes(4).toString('hex')}:` }));

  it('counts the attempts of two instances together', async () => {
    const shared = `${prefix}shared:`;
    const first = createLoginThrottle({ redis, redisPrefix: shared, failuresPerEmail: 5 });
    const second = createLoginThrottle({ redis: other, redisPrefix: shared, failuresPerEmail: 5 });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => signInAttempt(index % 2 === 0 ? first : second, '203.0.113.20', 'fleet@example.com', false)),
    );
    assert.equal(count(statuses, 401), 5, String(statuses));
    assert.equal(count(statuses, 429), 15, String(statuses));
    assert.deepEqual(await redis.keys(`${shared}*fleet*`), [], 'no email address is written to Redis');
  });

  it('counts in process memory while Redis does not answer', async () => {
    const offline = new Redis(TEST_REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    const throttle = createLoginThrottle({ redis: offline, redisPrefix: `${prefix}offline:`, failuresPerEmail: 3 });
    const statuses = await Promise.all(Array.from({ length: 10 }, () => signInAttempt(throttle, '203.0.113.30', 'down@example.com', false)));
    assert.equal(count(statuses, 401), 3, String(statuses));
    assert.equal(count(statuses, 429), 7, String(statuses));
    offline.disconnect();
  });
});
