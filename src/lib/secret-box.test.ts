import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SecretBoxError, createSecretBox } from './secret-box.js';

const SECRET = 'x'.repeat(16) + 'a-random-enough-test-secret-0123456789';
const CONTEXT = 'modelport:provider_credentials:usr_1:openai';

/** Flips one bit of the base64 part `index` (1: IV, 2: ciphertext, 3: tag) of a sealed value. */
function tamper(sealed: string, index: number, bit = 0): string {
  const parts = sealed.split(':');
  const bytes = Buffer.from(parts[index] ?? '', 'base64');
  bytes[bit % bytes.length] = (bytes[bit % bytes.length] ?? 0) ^ 1;
  parts[index] = bytes.toString('base64');
  return parts.join(':');
}

describe('secret box (AES-256-GCM)', () => {
  const box = createSecretBox(SECRET);

  it('opens what it sealed, and never stores the plaintext', () => {
    const sealed = box.seal('sk-proj-abcdef0123456789', CONTEXT);
    assert.match(sealed, /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    assert.ok(!sealed.includes('sk-proj'));
    assert.equal(box.open(sealed, CONTEXT), 'sk-proj-abcdef0123456789');
  });

  it('uses a fresh 12-byte IV every time', () => {
    const first = box.seal('same', CONTEXT);
    const second = box.seal('same', CONTEXT);
    assert.notEqual(first, second);
    assert.equal(Buffer.from(first.split(':')[1] ?? '', 'base64').length, 12);
    assert.equal(Buffer.from(first.split(':')[3] ?? '', 'base64').length, 16);
  });

  it('refuses any altered IV, ciphertext or tag', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), fc.constantFrom(1, 2, 3), fc.nat(), (plaintext, part, bit) => {
        const sealed = box.seal(plaintext, CONTEXT);
        assert.throws(() => box.open(tamper(sealed, part, bit), CONTEXT), SecretBoxError);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a value sealed for another owner or provider, or under another secret', () => {
    const sealed = box.seal('sk-owner-key-0001', CONTEXT);
    assert.throws(() => box.open(sealed, 'modelport:provider_credentials:usr_2:openai'), /altered, or sealed under another server secret/);
    assert.throws(() => createSecretBox(`${SECRET}-other`).open(sealed, CONTEXT), SecretBoxError);
  });

  it('refuses malformed values and short secrets', () => {
    assert.throws(() => box.open('plaintext-key', CONTEXT), /v1:iv:ciphertext:tag/);
    assert.throws(() => box.open('v2:a:b:c', CONTEXT), SecretBoxError);
    assert.throws(() => box.open('v1:AAAA:AAAA:AAAA', CONTEXT), /malformed IV or tag/);
    assert.throws(() => createSecretBox('too short'), /at least 32 characters/);
  });

  it('round-trips any text', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (plaintext) => box.open(box.seal(plaintext, CONTEXT), CONTEXT) === plaintext));
  });
});
