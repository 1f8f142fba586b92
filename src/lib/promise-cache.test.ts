import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPromiseCache } from './promise-cache.js';

describe('promise cache', () => {
  it('coalesces concurrent misses into one load and caches "not found"', async () => {
    let loads = 0;
    const cache = createPromiseCache<string, string | undefined>(10, async (key) => {
      loads += 1;
      return key === 'known' ? 'value' : undefined;
    });
    const results = await Promise.all([cache.get('known'), cache.get('known'), cache.get('missing'), cache.get('missing')]);
    assert.deepEqual(results, ['value', 'value', undefined, undefined]);
    assert.equal(loads, 2);
    await cache.get('missing');
    assert.equal(loads, 2);
  });

  it('forgets failed loads and everything on clear', async () => {
    let fail = true;
    let loads = 0;
    const cache = createPromiseCache<string, number>(10, async () => {
      loads += 1;
      if (fail) throw new Error('database down');
      return loads;
    });
    await assert.rejects(async () => cache.get('a'));
    fail = false;
    assert.equal(await cache.get('a'), 2);
    cache.clear();
    assert.equal(await cache.get('a'), 3);
  });

  it('answers a loaded entry with the value itself, and a pending one with the shared promise', async () => {
    const cache = createPromiseCache<string, string | undefined>(10, async (key) => (key === 'known' ? 'value' : undefined));
    const first = cache.get('known');
    assert.ok(first instanceof Promise, 'a miss is a promise');
    assert.equal(cache.get('known'), first, 'a second call while loading shares the load');
    assert.equal(await first, 'value');
    assert.equal(cache.get('known'), 'value', 'a hit is the value, not a promise');
    await cache.get('missing');
    assert.equal(cache.get('missing'), undefined, '"not found" is cached and answered synchronously too');
    cache.clear();
    assert.ok(cache.get('known') instanceof Promise, 'clear() forgets loaded entries');
  });

  it('stays bounded', async () => {
    let loads = 0;
    const cache = createPromiseCache<number, number>(3, async (key) => {
      loads += 1;
      return key;
    });
    for (let i = 0; i < 10; i += 1) await cache.get(i);
    await cache.get(0);
    assert.equal(loads, 11);
  });
});
