import type { ApiKeysRepository } from './api-keys-repository.js';
import type { RetentionCutoffs, UsageRetentionRepository } from './usage-retention-repository.js';
import type { NewUsageRecord } from './schema.js';
import type { UsageRepository } from './usage-repository.js';

/** Where the usage recorder writes its batches: this connection's repositories, or the SQLite writer thread. */
export interface UsageWriter {
  /** Inserts a batch; a record already written (same request id) is skipped. Resolves when the rows are in the database. */
  insertMany(records: readonly NewUsageRecord[]): Promise<void>;
  /** Records when keys were last used. */
  touchLastUsed(lastUsed: ReadonlyMap<string, number>): Promise<void>;
  /** Deletes a batch of expired usage (usage-retention-repository), where the writes go: on SQLite, off the event loop. */
  deleteExpiredBatch(cutoffs: RetentionCutoffs, batch: number): Promise<{ deleted: number; done: boolean }>;
  /** Stops what the writer started (the thread); the database connection is not its own. */
  close(): Promise<void>;
}

/** Writes on the given connection, on this thread (Postgres, `:memory:`, MODELPORT_USAGE_WRITER=inline). */
export function createInlineUsageWriter(
  usage: Pick<UsageRepository, 'insertMany'>,
  apiKeys: Pick<ApiKeysRepository, 'touchLastUsed'>,
  retention: Pick<UsageRetentionRepository, 'deleteExpiredBatch'>,
): UsageWriter {
  return { insertMany: usage.insertMany, touchLastUsed: apiKeys.touchLastUsed, deleteExpiredBatch: retention.deleteExpiredBatch, close: async () => {} };
}
