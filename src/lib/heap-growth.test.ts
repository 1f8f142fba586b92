import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_HEAP_GROWING_PERCENT, heapGrowingPercent } from './heap-growth.js';

describe('heapGrowingPercent', () => {
  it('reads a whole number of percent, the default when unset, 0 for V8 own policy', () => {
    assert.equal(heapGrowingPercent(undefined, DEFAULT_HEAP_GROWING_PERCENT), 20);
    assert.equal(heapGrowingPercent(' ', 20), 20);
    assert.equal(heapGrowingPercent('0', 20), 0);
    assert.equal(heapGrowingPercent('35', 20), 35);
  });

  it('refuses anything else', () => {
    for (const value of ['-1', '2.5', 'twenty', '1001']) assert.throws(() => heapGrowingPercent(value, 20), /MODELPORT_HEAP_GROWING_PERCENT must be a whole number/);
  });
});
