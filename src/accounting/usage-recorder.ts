import type { NewUsageRecord } from '../storage/schema.js';
import type { UsageWriter } from '../storage/usage-writer.js';

export interface UsageRecorderOptions {
  /** Flush at least this often. @default 1000 */
  readonly flushIntervalMs: number;
  /** Flush as soon as this many records wait. @default 500 */
  readonly batchSize: number;
  /** Records kept while the database is unreachable; beyond it the oldest are dropped and counted. @default 100000 */
  readonly maxQueued: number;
  /**
   * Rows per INSERT. better-sqlite3 on this thread (MODELPORT_USAGE_WRITER=inline) holds the event loop: 500 rows
   * for about 3 ms, 50 for about 0.5 ms, and the recorder yields to waiting requests between two inserts. @default 50
   */
  readonly rowsPerInsert?: number;
  /**
   * When at least this many records are queued, this many go in one INSERT instead (a writer off the event loop:
   * one commit writes the index pages many rows share once). Only this one size above `rowsPerInsert`, so the
   * compiled INSERTs (one per row count) stay few. @default none
   */
  readonly wideInsertRows?: number | undefined;
}

export interface UsageRecorder {
  record(record: NewUsageRecord): void;
  /** Writes everything queued; resolves when it is in the database. */
  flush(): Promise<void>;
  /** Stops the timer, flushes (SIGTERM) and closes the writer. */
  close(): Promise<void>;
  stats(): { queued: number; dropped: number; written: number };
}

/**
 * Usage records are queued on the request path and written in batches off it.
 * A failed write keeps its batch for the next flush; records carry the request
 * id as primary key, so a batch written twice is counted once.
 */
export function createUsageRecorder(
  writer: UsageWriter,
  options: UsageRecorderOptions,
  onError: (error: unknown) => void,
): UsageRecorder {
  let queue: NewUsageRecord[] = [];
  let dropped = 0;
  let written = 0;
  let flushing: Promise<void> | undefined;

  const rowsPerInsert = Math.max(1, options.rowsPerInsert ?? 50);
  const writeOnce = async (): Promise<void> => {
    const lastUsed = new Map<string, number>();
    try {
      while (queue.length > 0) {
        const wide = options.wideInsertRows !== undefined && queue.length >= options.wideInsertRows;
        const batch = queue.slice(0, wide ? options.wideInsertRows : rowsPerInsert);
        await writer.insertMany(batch);
        queue = queue.slice(batch.length);
        written += batch.length;
        for (const record of batch) if (record.key_id) lastUsed.set(record.key_id, Math.max(lastUsed.get(record.key_id) ?? 0, record.created_at));
        // Requests waiting on the event loop run between two inserts (a synchronous driver would hold it throughout).
        if (queue.length > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      if (lastUsed.size > 0) await writer.touchLastUsed(lastUsed);
    }
  };

  const flush = (): Promise<void> => {
    if (flushing === undefined) {
      flushing = writeOnce().finally(() => {
        flushing = undefined;
      });
    }
    return flushing;
  };

  const flushQuietly = () => {
    flush().catch(onError);
  };

  const timer = setInterval(flushQuietly, options.flushIntervalMs);
  timer.unref();

  return {
    record(record) {
      queue.push(record);
      if (queue.length > options.maxQueued) {
        const excess = queue.length - options.maxQueued;
        queue.splice(0, excess);
        dropped += excess;
      }
      if (queue.length >= options.batchSize) flushQuietly();
    },
    async flush() {
      await flush();
      // A record queued while that flush ran is written by a second pass.
      if (queue.length > 0) await flush();
    },
    async close() {
      clearInterval(timer);
      try {
        await this.flush();
      } finally {
        await writer.close();
      }
    },
    stats: () => ({ queued: queue.length, dropped, written }),
  };
}
