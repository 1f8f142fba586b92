import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_QUERY_PARAMETER_LENGTH, parseQueryString, queryStringDefect } from './query-string.js';

function defectOf(text: string) {
  const error = queryStringDefect(parseQueryString(text));
  return error === undefined ? undefined : { status: error.status, code: error.code, param: error.param, message: error.message };
}

describe('parseQueryString', () => {
  it('reads keys and values as a form would send them', () => {
    assert.deepEqual({ ...parseQueryString('') }, {});
    assert.deepEqual({ ...parseQueryString('a=1&b=two+words&c=%E2%9C%93&d&e=&&f=x=y') }, { a: '1', b: 'two words', c: '✓', d: '', e: '', f: 'x=y' });
    assert.equal(queryStringDefect(parseQueryString('a=1&b=2')), undefined);
  });

  it('keeps __proto__ and constructor as plain keys', () => {
    const query = parseQueryString('__proto__=x&constructor=y');
    assert.equal(Object.getOwnPropertyDescriptor(query, '__proto__')?.value, 'x');
    assert.equal(query.constructor, 'y');
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it('refuses a repeated key, naming it', () => {
    assert.deepEqual(defectOf('workspace=A&workspace=B'), { status: 400, code: 'invalid_value', param: 'workspace', message: "Query parameter 'workspace' is given more than once; give it once." });
    // The same key however it is spelled on the wire.
    assert.equal(defectOf('router%49d=a&routerId=b')?.param, 'routerId');
    assert.equal(defectOf('a&a')?.param, 'a');
  });

  it(`refuses a key or value over ${MAX_QUERY_PARAMETER_LENGTH} characters, a control character and a malformed percent-encoding`, () => {
    assert.equal(defectOf(`limit=${'9'.repeat(MAX_QUERY_PARAMETER_LENGTH)}`), undefined);
    assert.match(defectOf(`limit=${'9'.repeat(MAX_QUERY_PARAMETER_LENGTH + 1)}`)?.message ?? '', /longer than 512/);
    assert.equal(defectOf(`${'k'.repeat(MAX_QUERY_PARAMETER_LENGTH + 1)}=1`)?.param, `${'k'.repeat(64)}…`);
    for (const value of ['%00', 'a%0Ab', '%7F', '%C2%85']) assert.match(defectOf(`before=${value}`)?.message ?? '', /control character/, value);
    for (const value of ['%zz', '%', '%E0%A4%A', '%C3%28']) assert.deepEqual(defectOf(`before=${value}`)?.param, 'before', value);
    assert.equal(defectOf('%zz=1')?.param, '%zz');
  });

  it('reads back any set of distinct keys with clean values, however encoded', () => {
    const clean = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((text) => !/\p{Cc}/u.test(text));
    fc.assert(
      fc.property(fc.dictionary(clean, clean, { maxKeys: 8 }), (entries) => {
        const query = parseQueryString(new URLSearchParams(Object.entries(entries)).toString());
        assert.equal(queryStringDefect(query), undefined);
        assert.deepEqual({ ...query }, { ...entries });
      }),
    );
  });
});
