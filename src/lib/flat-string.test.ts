import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flattenString } from './flat-string.js';

describe('flattenString', () => {
  it('returns the same string, whatever it holds', () => {
    let rope = 'HTTP/1.1 200 OK\r\n';
    for (let index = 0; index < 20; index += 1) rope += `x-header-${index}: ${'é'.repeat(index)}\r\n`;
    const copy = rope.slice();
    assert.equal(flattenString(rope), copy);
    assert.equal(flattenString(''), '');
  });
});
