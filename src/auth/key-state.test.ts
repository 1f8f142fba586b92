import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { keyState } from './key-state.js';

const NOW = Date.parse('2026-06-01T12:00:00Z');

describe('keyState', () => {
  it('is active with no revocation and no expiry, or an expiry still ahead', () => {
    assert.equal(keyState({ revokedAt: undefined, expiresAt: undefined }, NOW), 'active');
    assert.equal(keyState({ revokedAt: undefined, expiresAt: NOW + 1 }, NOW), 'active');
  });

  it('expires at its expiry time, inclusive', () => {
    assert.equal(keyState({ revokedAt: undefined, expiresAt: NOW }, NOW), 'expired');
    assert.equal(keyState({ revokedAt: undefined, expiresAt: NOW - 1 }, NOW), 'expired');
  });

  it('says revoked over expired when both apply', () => {
    assert.equal(keyState({ revokedAt: NOW - 2, expiresAt: NOW - 1 }, NOW), 'revoked');
    assert.equal(keyState({ revokedAt: NOW - 2, expiresAt: undefined }, NOW), 'revoked');
  });
});
