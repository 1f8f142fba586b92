import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { randomFillSync } from 'node:crypto';
import { createId, createRandomTokenSource, createTimeOrderedIdSource, randomBase62 } from './random-id.js';

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

describe('createTimeOrderedIdSource', () => {
  it('sorts by the millisecond, and is unique within one', () => {
    let now = 1_767_225_600_000;
    const next = createTimeOrderedIdSource('req_', { now: () => now });
    const ids: string[] = [];
    for (let ms = 0; ms < 200; ms += 1) {
      // A clock far from ms boundaries of the base-36 digits too: 36 ms later the last digit wraps.
      now += ms % 3 === 0 ? 1 : 37;
      for (let index = 0; index < 5; index += 1) ids.push(next());
    }
    assert.equal(new Set(ids).size, ids.length);
    for (const id of ids) assert.match(id, /^req_[0-9a-z]{9}[A-Za-z0-9_-]{12}$/);
    const heads = ids.map((id) => id.slice(0, 13));
    assert.deepEqual([...heads].sort(), heads, 'ids sort by their time, as strings');
    assert.equal(parseInt(ids.at(-1)!.slice(4, 13), 36), now, 'the head is the millisecond in base 36');
  });

  it('pads the time to nine digits, so an early time still sorts first', () => {
    let now = 35;
    const next = createTimeOrderedIdSource('x_', { now: () => now, randomBytes: 3 });
    const early = next();
    now = 36 ** 8;
    const late = next();
    assert.equal(early.slice(0, 11), 'x_00000000z');
    assert.ok(early < late);
    assert.match(late, /^x_100000000[A-Za-z0-9_-]{4}$/);
  });
});
