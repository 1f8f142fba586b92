import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../lib/errors.js';
import { MAX_JSON_DEPTH, parseJsonBody } from './json-body.js';

function refusal(text: string): GatewayError {
  try {
    parseJsonBody(text);
  } catch (error) {
    assert.ok(error instanceof GatewayError);
    return error;
  }
  assert.fail(`${text.slice(0, 40)} was accepted`);
}

describe('parseJsonBody', () => {
  it('parses JSON of any type', () => {
    assert.deepEqual(parseJsonBody('{"a":[1,{"b":null}]}'), { a: [1, { b: null }] });
    assert.deepEqual(parseJsonBody('[]'), []);
    assert.equal(parseJsonBody('42'), 42);
    assert.equal(parseJsonBody('null'), null);
  });

  it('refuses empty, broken and truncated bodies with invalid_json', () => {
    for (const text of ['', '  \n', '{', '{"a":', 'nope', '{"a":1}}']) {
      const error = refusal(text);
      assert.equal(error.status, 400);
      assert.equal(error.code, 'invalid_json');
    }
    assert.match(refusal(' ').message, /empty/);
  });

  it('takes nesting up to the limit and refuses deeper, without overflowing the stack', () => {
    const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    assert.ok(Array.isArray(parseJsonBody(nested(MAX_JSON_DEPTH))));
    for (const text of [nested(MAX_JSON_DEPTH + 1), nested(1_000_000), `{"a":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_001)}`]) {
      const error = refusal(text);
      assert.equal(error.code, 'invalid_json');
      assert.match(error.message, /nested more than 128 levels/);
    }
  });

  it('drops own __proto__ keys at every depth, so copying the result cannot reach Object.prototype', () => {
    const value = parseJsonBody('{"__proto__":{"polluted":1},"a":[{"__proto__":{"polluted":2},"b":1}],"constructor":{"prototype":{"polluted":3}}}') as Record<string, unknown>;
    assert.equal(Object.hasOwn(value, '__proto__'), false);
    assert.deepEqual(value.a, [{ b: 1 }]);
    const copy: Record<string, unknown> = {};
    for (const [name, entry] of Object.entries(value)) copy[name] = entry;
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
  });
});
