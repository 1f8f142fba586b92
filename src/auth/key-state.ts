import type { ApiKeyRecord } from '../storage/api-keys-repository.js';

/** Whether a key opens the gateway at a given time, and if not, why. */
export type KeyState = 'active' | 'revoked' | 'expired';

/**
 * The one rule for a key's state at `at` (epoch ms), used by the authenticator,
 * the CLI and the dashboard alike: a revoked key stays revoked whatever its
 * expiry, and a key expires at its `expiresAt` (inclusive).
 */
export function keyState(key: Pick<ApiKeyRecord, 'revokedAt' | 'expiresAt'>, at: number): KeyState {
  if (key.revokedAt !== undefined) return 'revoked';
  if (key.expiresAt !== undefined && key.expiresAt <= at) return 'expired';
  return 'active';
}
