import { errors } from '../lib/errors.js';
import type { ApiKeyRecord, ApiKeysRepository } from '../storage/api-keys-repository.js';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';
import { keyState } from './key-state.js';
import { thenMaybe, type MaybePromise } from '../lib/maybe-promise.js';
import { createPromiseCache } from '../lib/promise-cache.js';

export interface KeyAuthenticator {
  /**
   * The key's record, or throws 401 `invalid_api_key`. Never logs or keeps the key itself.
   * A cached key is answered synchronously (a malformed one throws at once); a miss returns a promise.
   */
  authenticate(token: string | undefined): MaybePromise<ApiKeyRecord>;
  invalidate(): void;
}

/**
 * Looks keys up by their SHA-256 in a cache (misses coalesced, unknown keys
 * cached too) that the change watcher clears, so a revocation anywhere takes
 * effect within one poll interval, with no database read on the hot path.
 */
export function createKeyAuthenticator(apiKeys: ApiKeysRepository, now: () => number): KeyAuthenticator {
  const cache = createPromiseCache<string, ApiKeyRecord | undefined>(50_000, (hash) => apiKeys.findByHash(hash));
  return {
    authenticate(token) {
      if (token === undefined) throw errors.invalidApiKey('Missing API key. Pass it as "Authorization: Bearer mp_...".');
      if (!isWellFormedApiKey(token)) {
        throw errors.invalidApiKey(
          token.startsWith('mp_') ? 'Invalid API key: a key is "mp_" followed by 32 to 128 letters and digits.' : 'Invalid API key: API keys start with "mp_".',
        );
      }
      return thenMaybe(cache.get(hashApiKey(token)), (record) => {
        if (record === undefined) throw errors.invalidApiKey('Invalid API key.');
        const state = keyState(record, now());
        if (state === 'revoked') throw errors.invalidApiKey('This API key has been revoked.');
        if (state === 'expired') throw errors.invalidApiKey('This API key has expired.');
        return record;
      });
    },
    invalidate: () => cache.clear(),
  };
}
