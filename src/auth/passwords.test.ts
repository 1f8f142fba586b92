import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DECOY_PASSWORD_HASH, hashPassword, verifyPassword } from './passwords.js';

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
