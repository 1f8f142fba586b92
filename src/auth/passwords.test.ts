import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { test } from 'node:test';
import { GatewayError } from '../lib/errors.js';
import { DECOY_PASSWORD_HASH, createPasswordHasher, hashPassword, verifyPassword } from './passwords.js';

/** Scheme and scrypt parameters of a stored hash: what decides how long verifying against it takes. */
function costOf(stored: string): string {
  return stored.split('$').slice(0, 4).join('$');
}

test('a hash verifies its own password and no other', async () => {
  const stored = await hashPassword('correct horse battery');
  assert.equal(await verifyPassword('correct horse battery', stored), true);
  assert.equal(await verifyPassword('correct horse battery!', stored), false);
});

test('the decoy hash costs what a real hash costs to verify, and matches nothing', async () => {
  assert.equal(costOf(DECOY_PASSWORD_HASH), costOf(await hashPassword('any password at all')));
  assert.equal(await verifyPassword('', DECOY_PASSWORD_HASH), false);
  assert.equal(await verifyPassword('decoy password, never matches anything', DECOY_PASSWORD_HASH), false);
});

/** Bytes scrypt holds while computing a stored hash: 128·N·r (the p lanes run one after another). */
function memoryOf(stored: string): number {
  const [, n, r] = stored.split('$');
  return 128 * Number(n) * Number(r);
}

test('new hashes hold at most 32 MiB while computed, and hashes stored with the older 128 MiB parameters still verify', async () => {
  const stored = await hashPassword('correct horse battery');
  assert.ok(memoryOf(stored) <= 32 * 1024 * 1024, costOf(stored));
  assert.ok(memoryOf(DECOY_PASSWORD_HASH) <= 32 * 1024 * 1024);
  const salt = randomBytes(16);
  const key = scryptSync('an old password', salt, 64, { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
  const legacy = ['scrypt', 2 ** 17, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
  assert.equal(await verifyPassword('an old password', legacy), true);
  assert.equal(await createPasswordHasher().verify('an old password', legacy), true);
  assert.equal(await createPasswordHasher().verify('not the old password', legacy), false);
});

test('the hasher runs at most `concurrency` hashes at once, queues `queue` more and refuses the rest with 503 auth_busy', async () => {
  const hasher = createPasswordHasher({ concurrency: 2, queue: 5 });
  const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => hasher.verify('guess', DECOY_PASSWORD_HASH)));
  const refused = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled' && outcome.value === false).length, 7);
  assert.equal(refused.length, 3);
  for (const { reason } of refused) {
    assert.ok(reason instanceof GatewayError);
    assert.equal(reason.status, 503);
    assert.equal(reason.code, 'auth_busy');
    assert.equal(reason.headers['retry-after'], '1');
  }
  // Slots are given back: a later burst of the same size gets the same answer.
  const again = await Promise.allSettled(Array.from({ length: 10 }, () => hasher.hash('a long enough password')));
  assert.equal(again.filter((outcome) => outcome.status === 'fulfilled').length, 7);
});

test('with no queue, exactly `concurrency` of a burst are computed and the others refused at once', async () => {
  const hasher = createPasswordHasher({ concurrency: 2, queue: 0 });
  const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => hasher.verify('guess', DECOY_PASSWORD_HASH)));
  assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 2);
  assert.equal(outcomes.filter((outcome) => outcome.status === 'rejected').length, 8);
});
