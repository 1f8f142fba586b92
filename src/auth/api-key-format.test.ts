import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { generateApiKey, hashApiKey, isWellFormedApiKey, readBearerToken, redactApiKeys } from './api-key-format.js';

describe('API key format', () => {
  it('is mp_ and 40 base62 characters, stored only as a SHA-256', () => {
    const key = generateApiKey();
    assert.match(key.value, /^mp_[0-9A-Za-z]{40}$/);
    assert.equal(key.hash, createHash('sha256').update(key.value).digest('hex'));
    assert.equal(hashApiKey(key.value), key.hash);
    assert.ok(key.value.startsWith(key.displayPrefix));
    assert.ok(key.displayPrefix.length < 12);
    assert.notEqual(generateApiKey().value, key.value);
  });

  it('recognises well-formed keys only', () => {
    assert.ok(isWellFormedApiKey(generateApiKey().value));
    for (const bad of ['', 'mp_', 'mp_short', 'sk-0123456789012345678901234567890123', `MP_${'a'.repeat(40)}`, `mp_${'a'.repeat(39)}!`]) {
      assert.equal(isWellFormedApiKey(bad), false, bad);
    }
  });

  it('reads bearer tokens', () => {
    assert.equal(readBearerToken('Bearer mp_abc'), 'mp_abc');
    assert.equal(readBearerToken('bearer   mp_abc  '), 'mp_abc');
    assert.equal(readBearerToken('Basic abc'), undefined);
    assert.equal(readBearerToken('Bearer'), undefined);
    assert.equal(readBearerToken(undefined), undefined);
  });

  it('masks anything shaped like a key in text bound for logs', () => {
    const key = generateApiKey().value;
    assert.equal(redactApiKeys(`/api/router/${key}/chat/completions`), '/api/router/mp_[redacted]/chat/completions');
    assert.equal(redactApiKeys('/api/router/rt_4fQx9/chat/completions'), '/api/router/rt_4fQx9/chat/completions');
  });
});
