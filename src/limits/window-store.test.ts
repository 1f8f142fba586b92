import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createMemoryWindowStore } from './memory-window-store.js';
import { createRedisWindowStore } from './redis-window-store.js';
import type { WindowCheck, WindowStore } from './window-store.js';

const WINDOW = 60_000;
const rpm = (subject: string, limit: number): WindowCheck => ({ subject, limit, weight: 1, windowMs: WINDOW });

/** The same sliding-window semantics from both stores, with an injected clock. */
function slidingWindowSuite(name: string, makeStore: () => WindowStore): void {
  describe(`${name}: strict sliding window`, () => {
    it('allows N in a window, never N+1, and gives the exact Retry-After', async () => {
      const store = makeStore();
      const subject = `s-${randomUUID()}`;
      const start = 1_000_000;
      for (let i = 0; i < 5; i += 1) {
        const admission = await store.admit(randomUUID(), [rpm(subject, 5)], start + i * 10_000);
        assert.equal(admission.allowed, true, `request ${i + 1}`);
        assert.equal(admission.results[0]?.used, i + 1);
      }
      const refused = await store.admit(randomUUID(), [rpm(subject, 5)], start + 45_000);
      assert.equal(refused.allowed, false);
      // The oldest entry (at start) leaves the window at start + 60 000.
      assert.equal(refused.results[0]?.retryAfterMs, 15_000);
      assert.equal(refused.results[0]?.resetMs, 40_000 + WINDOW - 45_000);
      // One millisecond early is still inside the window: not a refilling bucket, not clock-aligned.
      assert.equal((await store.admit(randomUUID(), [rpm(subject, 5)], start + WINDOW - 1)).allowed, false);
      assert.equal((await store.admit(randomUUID(), [rpm(subject, 5)], start + WINDOW)).allowed, true);
      // Exactly one slot freed, and it is used: the next is refused until the second entry leaves.
      const again = await store.admit(randomUUID(), [rpm(subject, 5)], start + WINDOW + 1);
      assert.equal(again.allowed, false);
      assert.equal(again.results[0]?.retryAfterMs, 10_000 - 1);
    });

    it('never admits more than N in any 60 s span under a random arrival pattern', async () => {
      const store = makeStore();
      const subject = `s-${randomUUID()}`;
      const admitted: number[] = [];
      let time = 5_000_000;
      for (let i = 0; i < 300; i += 1) {
        time += Math.floor(Math.random() * 900);
        if ((await store.admit(randomUUID(), [rpm(subject, 7)], time)).allowed) admitted.push(time);
      }
      for (const [index, at] of admitted.entries()) {
        const inWindow = admitted.filter((other, otherIndex) => otherIndex >= index && other < at + WINDOW).length;
        assert.ok(inWindow <= 7, `${inWindow} admitted in the 60 s from ${at}`);
      }
      assert.ok(admitted.length >= 7);
    });

    it('weighs tokens, corrects them after the call, and refuses a request heavier than the limit', async () => {
      const store = makeStore();
      const subject = `t-${randomUUID()}`;
      const tpm = (weight: number): WindowCheck => ({ subject, limit: 1000, weight, windowMs: WINDOW });
      const first = randomUUID();
      assert.equal((await store.admit(first, [tpm(600)], 1000)).allowed, true);
      const refused = await store.admit(randomUUID(), [tpm(500)], 2000);
      assert.equal(refused.allowed, false);
      assert.equal(refused.results[0]?.retryAfterMs, 1000 + WINDOW - 2000);
      // The call used 300 tokens in the end: 700 are free again.
      await store.adjust(first, subject, 300);
      assert.equal((await store.admit(randomUUID(), [tpm(500)], 3000)).results[0]?.used, 800);
      const tooBig = await store.admit(randomUUID(), [tpm(1001)], 4000);
      assert.equal(tooBig.results[0]?.retryAfterMs, Number.POSITIVE_INFINITY);
    });

    it('gives the exact Retry-After over a long log, counted and weighted', async () => {
      const store = makeStore();
      const counted = `s-${randomUUID()}`;
      const weighted = `s-${randomUUID()}`;
      const times: number[] = [];
      // 400 entries 10 ms apart; every third weighs 3 in the weighted log (more than one page of the Redis walk).
      for (let i = 0; i < 400; i += 1) {
        const at = 1_000_000 + i * 10;
        times.push(at);
        const weight = i % 3 === 0 ? 3 : 1;
        await store.admit(`e${i}`, [rpm(counted, 1_000), { subject: weighted, limit: 10_000, weight, windowMs: WINDOW }], at);
      }
      const now = 1_000_000 + 400 * 10;
      // Counted: 400 used; one more under a limit of 100 needs 301 entries gone, the oldest 301 (up to index 300).
      const refusedCount = await store.admit('over', [rpm(counted, 100)], now);
      assert.equal(refusedCount.allowed, false);
      assert.equal(refusedCount.results[0]?.retryAfterMs, times[300]! + WINDOW - now);
      // Weighted: 134 entries of 3 and 266 of 1 = 668. A request of 5 under a limit of 400 needs 273 freed.
      let freed = 0;
      let index = 0;
      for (; freed < 668 + 5 - 400; index += 1) freed += index % 3 === 0 ? 3 : 1;
      const refusedWeight = await store.admit('over-w', [{ subject: weighted, limit: 400, weight: 5, windowMs: WINDOW }], now);
      assert.equal(refusedWeight.results[0]?.used, 668);
      assert.equal(refusedWeight.allowed, false);
      assert.equal(refusedWeight.results[0]?.retryAfterMs, times[index - 1]! + WINDOW - now);
      assert.ok(index - 1 > 128, 'the entry is past the first page');
    });

    it('admits all subjects or none, and release frees the entry', async () => {
      const store = makeStore();
      const a = `a-${randomUUID()}`;
      const b = `b-${randomUUID()}`;
      assert.equal((await store.admit('one', [rpm(a, 5), rpm(b, 1)], 1000)).allowed, true);
      const refused = await store.admit('two', [rpm(a, 5), rpm(b, 1)], 1001);
      assert.equal(refused.allowed, false);
      assert.deepEqual(refused.results.map((result) => result.allowed), [true, false]);
      assert.equal((await store.admit('three', [rpm(a, 5)], 1002)).results[0]?.used, 2, 'the refused admission added nothing to a');
      await store.release('one', [a, b]);
      assert.equal((await store.admit('four', [rpm(a, 5), rpm(b, 1)], 1003)).allowed, true);
    });
  });
}

slidingWindowSuite('in process', createMemoryWindowStore);

describe('in process: long logs', () => {
  it('keeps exact counts across expiry, compaction, releases, corrections and a clock that steps back', async () => {
    const store = createMemoryWindowStore();
    const subject = `long-${randomUUID()}`;
    const times: number[] = [];
    // 5,000 admissions 20 ms apart: the first 2,000 leave the window, which compacts the log more than once.
    for (let i = 0; i < 5_000; i += 1) {
      const at = 1_000_000 + i * 20;
      times.push(at);
      const admission = await store.admit(`e${i}`, [rpm(subject, 1_000_000)], at);
      const expected = times.filter((time) => time > at - WINDOW).length;
      assert.equal(admission.results[0]?.used, expected, `admission ${i}`);
    }
    const last = 1_000_000 + 4_999 * 20;
    await store.release('e4000', [subject]);
    await store.release('e1', [subject]); // long expired: nothing to release
    await store.adjust('e4001', subject, 11);
    // A clock that steps back inserts in place; the sum still holds every live entry.
    const stepped = await store.admit('back', [rpm(subject, 1_000_000)], last - 500);
    assert.equal(stepped.results[0]?.used, 3_000 - 1 + 10 + 1);
    assert.deepEqual(
      store.entries(last).filter((entry) => entry.id === 'e4001' || entry.id === 'back').map((entry) => [entry.id, entry.weight]),
      [['e4001', 11], ['back', 1]],
    );
    // A limit right at the total refuses, with the exact wait until the oldest live entry leaves.
    const refused = await store.admit('over', [rpm(subject, 3_000 - 1 + 10 + 1)], last);
    assert.equal(refused.allowed, false);
    assert.equal(refused.results[0]?.retryAfterMs, times[2_000]! + WINDOW - last);
  });
});

describe('in process: a quiet process', () => {
  it('forgets expired entries without waiting for their subject to be admitted again, and counts on exactly', async () => {
    const store = createMemoryWindowStore();
    const busy = `quiet-${randomUUID()}`;
    const other = `quiet-${randomUUID()}`;
    const start = 1_000_000;
    // More than the 1,024 expired entries after which an admission would slice the log itself.
    for (let i = 0; i < 1_500; i += 1) await store.admit(`old${i}`, [rpm(busy, 1_000_000)], start + i);
    await store.admit('kept', [rpm(busy, 1_000_000)], start + 30_000);
    await store.admit('gone', [rpm(other, 1_000_000)], start);
    store.dropExpired(start + 1_499 + WINDOW);
    // Asked about an earlier moment, the log would still list what it held: only what is inside the window is left.
    assert.deepEqual(store.entries(start + 1_499).map((entry) => entry.id), ['kept']);
    const next = await store.admit('next', [rpm(busy, 1_000_000)], start + 1_500 + WINDOW);
    assert.equal(next.results[0]?.used, 2);
  });

  it('tells when the entries it still holds will have left their windows, once they are worth a collection', () => {
    const store = createMemoryWindowStore();
    const busy = `quiet-${randomUUID()}`;
    const start = 1_000_000;
    // A burst that ended at start + 11 999: its entries are still inside the window when the process goes quiet.
    for (let i = 0; i < 12_000; i += 1) store.admit(`b${i}`, [rpm(busy, 1_000_000)], start + i);
    assert.equal(store.dropExpired(start + 40_000), 11_999 + WINDOW - 40_000);
    // Later, 2,000 of them are left: too few to be worth a collection of their own.
    assert.equal(store.dropExpired(start + 10_000 + WINDOW), undefined);
    assert.equal(store.entries(start + 10_000 + WINDOW).length, 1_999);
    assert.equal(store.dropExpired(start + 12_000 + WINDOW), undefined);
    assert.equal(store.entries(start + 12_000 + WINDOW).length, 0);
  });
});

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, connectTimeout: 1000 });
const redisUp = await redis.connect().then(
  () => true,
  () => false,
);
const prefix = `test-${randomUUID()}:`;
after(async () => {
  if (!redisUp) return;
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

if (redisUp) {
  slidingWindowSuite('Redis', () => createRedisWindowStore(redis, prefix));
  describe('Redis: replay', () => {
    it('puts remembered entries back, skipping those already out of the window', async () => {
      const store = createRedisWindowStore(redis, prefix);
      const subject = `r-${randomUUID()}`;
      await store.replay(
        [
          { subject, id: 'old', at: 1000, weight: 1, windowMs: WINDOW },
          { subject, id: 'fresh', at: 50_000, weight: 1, windowMs: WINDOW },
        ],
        61_000,
      );
      const admission = await store.admit('next', [rpm(subject, 2)], 61_000);
      assert.equal(admission.results[0]?.used, 2);
      assert.equal((await store.admit('over', [rpm(subject, 2)], 61_001)).allowed, false);
    });
  });
  describe('Redis: running total', () => {
    const tpm = (subject: string, weight: number): WindowCheck => ({ subject, limit: 1_000_000, weight, windowMs: WINDOW });
    const totalOf = async (subject: string) => redis.hgetall(`${prefix}rls:{${subject}}`);

    it('keeps the count and weight of the log through admissions, corrections, releases, replays and expiry', async () => {
      const store = createRedisWindowStore(redis, prefix);
      const subject = `sum-${randomUUID()}`;
      await store.admit('a', [tpm(subject, 100)], 1000);
      await store.admit('b', [tpm(subject, 1)], 2000);
      await store.admit('c', [tpm(subject, 50)], 3000);
      assert.deepEqual(await totalOf(subject), { n: '3', w: '151' });
      await store.adjust('a', subject, 40);
      assert.deepEqual(await totalOf(subject), { n: '3', w: '91' });
      await store.release('c', [subject]);
      await store.release('c', [subject]); // already gone: nothing changes
      assert.deepEqual(await totalOf(subject), { n: '2', w: '41' });
      await store.replay([{ subject, id: 'r', at: 4000, weight: 9, windowMs: WINDOW }], 4000);
      await store.replay([{ subject, id: 'r', at: 4000, weight: 9, windowMs: WINDOW }], 4000); // idempotent
      assert.deepEqual(await totalOf(subject), { n: '3', w: '50' });
      // 'a' (1000) leaves the window at 61 000; the new entry weighs 5.
      const admission = await store.admit('d', [tpm(subject, 5)], 61_000);
      assert.equal(admission.results[0]?.used, 1 + 9 + 5);
      assert.deepEqual(await totalOf(subject), { n: '3', w: '15' });
    });

    it('reads the running total instead of summing the log, and sums the log once when the total is missing or stale', async () => {
      const store = createRedisWindowStore(redis, prefix);
      const subject = `sum-${randomUUID()}`;
      await store.admit('a', [tpm(subject, 300)], 1000);
      await store.admit('b', [tpm(subject, 1)], 1001);
      // A total that still counts the log's entries is trusted as it is (so an admission is O(1)).
      await redis.hset(`${prefix}rls:{${subject}}`, 'w', '1000');
      assert.equal((await store.admit('c', [tpm(subject, 1)], 1002)).results[0]?.used, 1001);
      // Lost (evicted, or never written by an older instance): summed from the log again.
      await redis.del(`${prefix}rls:{${subject}}`);
      assert.equal((await store.admit('d', [tpm(subject, 1)], 1003)).results[0]?.used, 300 + 1 + 1 + 1);
      // An entry added without updating the total (an older instance) changes the count: summed again.
      await redis.zadd(`${prefix}rl:{${subject}}`, 1004, 'old-version');
      assert.equal((await store.admit('e', [tpm(subject, 1)], 1005)).results[0]?.used, 300 + 1 + 1 + 1 + 1 + 1);
    });
  });
} else {
  describe('Redis', () => {
    it('skipped: no Redis at TEST_REDIS_URL', { skip: true }, () => undefined);
  });
}
