import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createMemoryWindowStore } from './memory-window-store.js';
import { SubjectLog } from './subject-log.js';

interface Reference {
  id: string;
  at: number;
  weight: number;
  windowMs: number;
}

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('SubjectLog', () => {
  it('agrees with a plain list of entries through admissions, releases, corrections, expiry and a clock that steps back', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const log = new SubjectLog();
      let reference: Reference[] = [];
      let now = 1_000_000;
      for (let step = 0; step < 20_000; step += 1) {
        const roll = next();
        if (roll < 0.55) {
          // Several entries share a millisecond; now and then the clock steps back.
          now += next() < 0.3 ? 0 : Math.floor(next() * 7);
          const at = next() < 0.02 ? now - Math.floor(next() * 300) : now;
          const entry = { id: `e${step}`, at, weight: 1 + Math.floor(next() * 50), windowMs: 2_000 };
          log.add(entry.id, entry.at, entry.weight, entry.windowMs);
          reference.push(entry);
        } else if (roll < 0.8 && reference.length > 0) {
          const entry = reference[Math.floor(next() * reference.length)] as Reference;
          const index = log.find(entry.id, next() < 0.5 ? entry.at : undefined);
          assert.ok(index >= 0, `seed ${seed} step ${step}: ${entry.id} found`);
          if (next() < 0.5) {
            log.remove(index);
            reference = reference.filter((other) => other !== entry);
          } else {
            entry.weight = Math.floor(next() * 80);
            log.reweigh(index, entry.weight);
          }
        } else {
          log.expire(now);
          reference = reference.filter((entry) => entry.at > now - entry.windowMs);
        }
        if (step % 97 === 0) {
          const expected = reference.reduce((sum, entry) => sum + entry.weight, 0);
          assert.equal(log.total, expected, `seed ${seed} step ${step}: total`);
          assert.equal(log.size, reference.length, `seed ${seed} step ${step}: size`);
        }
      }
      log.expire(now);
      reference = reference.filter((entry) => entry.at > now - entry.windowMs);
      const inOrder = [...reference].sort((a, b) => a.at - b.at);
      assert.deepEqual([...log.live(now)].map((entry) => entry.at), inOrder.map((entry) => entry.at), `seed ${seed}: time order`);
      assert.deepEqual(new Set([...log.live(now)].map((entry) => entry.id)), new Set(reference.map((entry) => entry.id)));
    }
  });

  it('finds an entry by its admission time among those of the same millisecond, and nothing at another time', () => {
    const log = new SubjectLog();
    for (let i = 0; i < 3_000; i += 1) log.add(`e${i}`, 1_000 + Math.floor(i / 10), 1, 60_000);
    const index = log.find('e1234', 1_123);
    assert.ok(index >= 0);
    assert.equal(log.find('e1234', 1_124), -1);
    assert.equal(log.find('e1234'), index);
    log.remove(index);
    assert.equal(log.find('e1234', 1_123), -1);
    assert.equal(log.size, 2_999);
  });

  it('gives the waits of a refused check, skipping released entries', () => {
    const log = new SubjectLog();
    log.add('a', 1_000, 5, 60_000);
    log.add('b', 2_000, 5, 60_000);
    log.add('c', 3_000, 5, 60_000);
    log.remove(log.find('c', 3_000));
    log.remove(log.find('a', 1_000));
    // 5 used of 8: 4 more fit once 'b' has left, at 62 000; and 'b' is the newest live entry.
    assert.deepEqual(log.waits(4, 8, 60_000, 10_000), { retryAfterMs: 52_000, resetMs: 52_000 });
    assert.equal(log.waits(9, 8, 60_000, 10_000).retryAfterMs, Number.POSITIVE_INFINITY);
  });
});

describe('in process: memory per admitted request', () => {
  it('keeps a busy key’s window in about 30 bytes an entry besides its id (an object and a map entry took 95)', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const count = 200_000;
    const ids = Array.from({ length: count }, (_, i) => `req${i}`);
    const measure = () => {
      gc();
      gc();
      const usage = process.memoryUsage();
      return usage.heapUsed + usage.arrayBuffers;
    };
    const before = measure();
    const store = createMemoryWindowStore();
    let at = 1_000_000;
    for (const [i, id] of ids.entries()) {
      if (i % 8 === 0) at += 1;
      store.admit(id, [{ subject: 'key:busy:rpm', limit: 1e9, weight: 1, windowMs: 60_000 }], at);
    }
    const perEntry = (measure() - before) / count;
    assert.equal(store.entries(at).length, count);
    // Three numbers (24 bytes) and an id slot (8), with the storage's room to grow.
    assert.ok(perEntry < 60, `${perEntry.toFixed(1)} bytes an entry`);
  });
});
