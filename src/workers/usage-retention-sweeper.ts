import type { DialectName } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { dropExpiredUsagePartitions, ensureUsagePartitions } from '../storage/usage-partitions.js';
import type { UsageRetention } from '../storage/usage-rollup-spans.js';
import type { UsageWriter } from '../storage/usage-writer.js';
import type { Kysely } from 'kysely';

/**
 * Expires usage past its retention (docs/usage-analytics.md), off the request path, on a timer on every instance:
 * on Postgres it keeps a week of day partitions of the raw records ready and drops those wholly expired; on both
 * engines it deletes expired request logs, minute rollups (and SQLite's raw records) in small batches through the
 * usage writer (SQLite: its thread), a turn of the event loop between two. Rollups of days are never expired. Two
 * instances sweeping at once only repeat harmless deletes; partition changes tolerate another instance's.
 */

export interface UsageRetentionSweeperOptions {
  /** Between two sweeps. @default 3600000 (an hour) */
  readonly intervalMs?: number;
  /** Rows per DELETE. @default 2000 */
  readonly batch?: number;
}

export interface UsageRetentionSweep {
  readonly partitionsCreated: readonly string[];
  readonly partitionsDropped: readonly string[];
  readonly rowsDeleted: number;
}

export interface UsageRetentionSweeper {
  /** One sweep now. */
  runOnce(): Promise<UsageRetentionSweep>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

const DAY = 86_400_000;

export function startUsageRetentionSweeper(
  deps: {
    readonly db: Kysely<Database>;
    readonly dialect: DialectName;
    readonly writer: Pick<UsageWriter, 'deleteExpiredBatch'>;
    readonly retention: UsageRetention;
    readonly now: () => number;
    readonly onError: (error: unknown) => void;
  },
  options: UsageRetentionSweeperOptions = {},
): UsageRetentionSweeper {
  const batch = options.batch ?? 2000;
  let stopped = false;
  let running: Promise<UsageRetentionSweep> | undefined;

  const sweep = async (): Promise<UsageRetentionSweep> => {
    const now = deps.now();
    const cutoffs = { records: now - deps.retention.recordsDays * DAY, hourRollups: now - deps.retention.hourRollupsDays * DAY };
    let partitionsCreated: string[] = [];
    let partitionsDropped: string[] = [];
    if (deps.dialect === 'postgres') {
      partitionsCreated = await ensureUsagePartitions(deps.db, now);
      partitionsDropped = await dropExpiredUsagePartitions(deps.db, cutoffs.records);
    }
    let rowsDeleted = 0;
    while (!stopped) {
      const { deleted, done } = await deps.writer.deleteExpiredBatch(cutoffs, batch);
      rowsDeleted += deleted;
      if (done) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return { partitionsCreated, partitionsDropped, rowsDeleted };
  };

  const runOnce = (): Promise<UsageRetentionSweep> => {
    running ??= sweep().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    runOnce().catch(deps.onError);
  }, options.intervalMs ?? 3_600_000);
  timer.unref();
  // The first sweep soon after start: a restarted instance catches up, and Postgres has its partitions ready.
  const first = setTimeout(() => {
    runOnce().catch(deps.onError);
  }, 5_000);
  first.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(first);
      await running?.catch(() => {});
    },
  };
}
