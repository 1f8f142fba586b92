import type { RetentionCutoffs } from './usage-retention-repository.js';

/** What the main thread and the SQLite usage writer thread (usage-writer-worker.ts) say to each other. */

/**
 * Rows as usage-repository's usageRowValues (one flat list of primitives: cheap to clone) with the routing samples
 * that came with them (routingSampleValues, often empty) and their request logs (requestLogValues, often empty), or
 * keys' last-used times.
 */
export type UsageWriteRequest =
  | { readonly id: number; readonly values: readonly unknown[]; readonly samples: readonly unknown[]; readonly logs: readonly unknown[] }
  | { readonly id: number; readonly lastUsed: readonly (readonly [string, number])[] }
  | { readonly id: number; readonly expire: RetentionCutoffs; readonly batch: number }
  | { readonly id: number; readonly close: true };

/** Each request is acknowledged once it is committed, or with the error's message; an expiry with what it deleted. */
export interface UsageWriteReply {
  readonly id: number;
  readonly error?: string;
  readonly expired?: { readonly deleted: number; readonly done: boolean };
}
