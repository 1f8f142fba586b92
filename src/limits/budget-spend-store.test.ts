import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { periodEnd, periodStart } from './budget-period.js';
import { createFallbackSpendStore, createInProcessSpendStore, createRedisSpendStore, type SpendSource, type SpendStore } from './budget-spend-store.js';

const NOW = Date.UTC(2026, 10, 21, 15, 30);
const subject = { kind: 'key', id: 'key_test' } as const;

describe('budget periods are UTC calendar days and months', () => {
  it('starts and ends days and months at UTC midnight, across month and year ends', () => {
    assert.equal(periodStart('day', NOW), Date.UTC(2026, 10, 21));
    assert.equal(periodEnd('day', NOW), Date.UTC(2026, 10, 22));
    assert.equal(periodStart('month', NOW), Date.UTC(2026, 10, 1));
    assert.equal(periodEnd('month', Date.UTC(2026, 11, 31, 23, 59)), Date.UTC(2027, 0, 1));
    assert.equal(periodEnd('day', Date.UTC(2028, 1, 28, 12)), Date.UTC(2028, 1, 29));
  });
});

/** A database stand-in: what each subject spent since a time. */
function recordedSpend(spentBefore: number): { source: SpendSource; calls: number[] } {
  const calls: number[] = [];
  return {
    calls,
    source: async (_subject, since) => {
      calls.push(since);
      return spentBefore;
    },
  };
}

describe('in-process spend', () => {
  it('seeds once per period from the records, then adds charges', async () => {
    const { source, calls } = recordedSpend(1.5);
    const store = createInProcessSpendStore(source);
    assert.equal(await store.spent(subject, 'day', NOW), 1.5);
    await store.charge(subject, 'day', 0.25, NOW);
    assert.equal(await store.spent(subject, 'day', NOW + 1000), 1.75);
    assert.deepEqual(calls, [periodStart('day', NOW)]);
    // The next day starts again from the records.
    assert.equal(await store.spent(subject, 'day', NOW + 86_400_000), 1.5);
  });
});

describe('Redis spend', async () => {
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  const up = await redis.connect().then(() => true, () => false);
  const prefix = `mp-test-${randomBytes(6).toString('hex')}:`;
  after(async () => {
    if (up) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });

  it('is shared by stores of different instances, seeded once, and re-seeded when Redis loses the counter', { skip: up ? false : 'no Redis at 127.0.0.1:6379' }, async () => {
    const { source, calls } = recordedSpend(2);
    const first = createRedisSpendStore({ redis, keyPrefix: prefix, source });
    const second = createRedisSpendStore({ redis, keyPrefix: prefix, source });
    await first.charge(subject, 'month', 0.5, NOW);
    await second.charge(subject, 'month', 0.25, NOW);
    assert.equal(await first.spent(subject, 'month', NOW), 2.75);
    assert.equal(await second.spent(subject, 'month', NOW), 2.75);
    assert.equal(calls.length, 1, 'seeded once');
    const ttl = await redis.pttl(`${prefix}budget:key:key_test:month:${periodStart('month', NOW)}`);
    assert.ok(ttl > 0, 'the counter expires');
    // Redis lost it (restart, eviction): the next charge rebuilds it from the records instead of starting at zero.
    await redis.del(`${prefix}budget:key:key_test:month:${periodStart('month', NOW)}`);
    await second.charge(subject, 'month', 0.25, NOW);
    assert.equal(await first.spent(subject, 'month', NOW), 2.25);
  });

  it('falls back to the in-process count when the shared store fails', async () => {
    const failing: SpendStore = {
      spent: async () => {
        throw new Error('Redis down');
      },
      charge: async () => {
        throw new Error('Redis down');
      },
    };
    const errors: unknown[] = [];
    const store = createFallbackSpendStore(failing, createInProcessSpendStore(recordedSpend(1).source), (error) => errors.push(error));
    await store.charge(subject, 'day', 0.5, NOW);
    assert.equal(await store.spent(subject, 'day', NOW), 1.5);
    assert.equal(errors.length, 2);
  });
});
