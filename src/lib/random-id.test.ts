import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createId, randomBase62 } from './random-id.js';

describe('random ids', () => {
  it('have the asked length and only base62 characters', () => {
    for (const length of [1, 22, 40, 100]) assert.match(randomBase62(length), new RegExp(`^[0-9A-Za-z]{${length}}$`));
  });

  it('are unique and URL-safe with their prefix', () => {
    const ids = new Set(Array.from({ length: 2000 }, () => createId('rt')));
    assert.equal(ids.size, 2000);
    for (const id of ids) assert.match(id, /^rt_[0-9A-Za-z]{22}$/);
  });

  it('use every base62 character about equally (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const sample = randomBase62(62_000);
    for (const character of sample) counts.set(character, (counts.get(character) ?? 0) + 1);
    assert.equal(counts.size, 62);
    // Expected 1000 each; a biased generator (byte % 62) gives the first 8 characters ≈ 1.2× the rest.
    for (const count of counts.values()) assert.ok(count > 800 && count < 1200, `count ${count}`);
  });
});
