import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomFillSync } from 'node:crypto';
import { createId, createRandomTokenSource, randomBase62 } from './random-id.js';

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

describe('createRandomTokenSource', () => {
  it('cuts distinct base64url tokens of the asked size from one pool, refilling it when used up', () => {
    let fills = 0;
    const next = createRandomTokenSource({
      poolBytes: 64,
      fill: (buffer) => {
        fills += 1;
        randomFillSync(buffer);
      },
    });
    const tokens = Array.from({ length: 100 }, () => next(12));
    assert.equal(new Set(tokens).size, 100);
    for (const token of tokens) assert.match(token, /^[A-Za-z0-9_-]{16}$/);
    // 64-byte pool, 12 bytes a token: 5 tokens a fill.
    assert.equal(fills, 20);
  });

  it('never hands out the same pool bytes twice', () => {
    let counter = 0;
    const next = createRandomTokenSource({ poolBytes: 64, fill: (buffer) => buffer.fill(counter++) });
    const first = next(32);
    const second = next(32);
    const third = next(32);
    assert.equal(Buffer.from(first, 'base64url').toString('hex'), '00'.repeat(32));
    assert.equal(second, first, 'the rest of the same fill');
    assert.equal(Buffer.from(third, 'base64url').toString('hex'), '01'.repeat(32), 'a fresh fill, not the old bytes');
  });

  it('serves a token larger than the pool from its own buffer', () => {
    const next = createRandomTokenSource({ poolBytes: 64 });
    assert.equal(Buffer.from(next(100), 'base64url').length, 100);
  });
});
