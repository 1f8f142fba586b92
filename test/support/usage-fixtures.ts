import { migrateToLatest, openStorage, type Storage } from '../../src/storage/database.js';
import { createRepositories, type Repositories } from '../../src/storage/repositories.js';
import type { NewUsageRecord } from '../../src/storage/schema.js';

/** The clock of usage fixtures: record n is created this many ms plus n. */
export const USAGE_EPOCH = 1_700_000_000_000;

export interface UsageFixture {
  readonly storage: Storage;
  readonly repositories: Repositories;
  /** A key of one owner; its hash is `keyHash`. */
  readonly keyId: string;
}

/** A migrated database with one owner and one key, for tests that write usage records. */
export async function openUsageFixture(url: string, keyHash: string): Promise<UsageFixture> {
  const storage = openStorage(url);
  await migrateToLatest(storage);
  const repositories = createRepositories(storage, () => USAGE_EPOCH);
  const user = await repositories.users.create(`${keyHash}@example.com`, 'hash');
  const keyId = (await repositories.apiKeys.create({ ownerId: user.id, name: 'k', keyHash, displayPrefix: 'mp_usage' })).id;
  return { storage, repositories, keyId };
}

/** A successful, non-streamed request's usage record by that key, with id `req_<prefix>_<index>`. */
export function usageRecord(prefix: string, keyId: string, index: number): NewUsageRecord {
  return {
    id: `req_${prefix}_${index}`,
    created_at: USAGE_EPOCH + index,
    owner_id: null,
    key_id: keyId,
    router_id: null,
    model: 'openai:gpt-4o-mini',
    status: 200,
    error_code: null,
    streamed: 0,
    prompt_tokens: 19,
    completion_tokens: 9,
    total_tokens: 28,
    cost_usd: 0.00001,
    latency_ms: 1.5,
    carbon_grams: 0.0001,
    attempts: 1,
  };
}
