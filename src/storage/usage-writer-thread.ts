import { Worker } from 'node:worker_threads';
import type { ApiKeysRepository } from './api-keys-repository.js';
import type { UsageWriteReply, UsageWriteRequest } from './usage-writer-messages.js';
import { requestLogValues } from './request-log-repository.js';
import { routingSampleValues, usageRowValues, type UsageRepository } from './usage-repository.js';
import type { UsageRetentionRepository } from './usage-retention-repository.js';
import type { UsageWriter } from './usage-writer.js';

export interface UsageWriterThreadOptions {
  /** The database, already migrated: a SQLite file (not `:memory:`, which another connection cannot share) or a postgres:// URL. */
  readonly databaseUrl: string;
  /** This thread's connection: it writes when the thread cannot (it died before acknowledging anything). */
  readonly fallback: {
    readonly usage: Pick<UsageRepository, 'insertBatch'>;
    readonly apiKeys: Pick<ApiKeysRepository, 'touchLastUsed'>;
    readonly retention: Pick<UsageRetentionRepository, 'deleteExpiredBatch'>;
  };
  /** The thread stopped unasked; `next` says who writes from now on. */
  readonly onLost: (reason: string, next: 'restarted' | 'inline') => void;
  /** A thread with nothing to write for this long is stopped (its ~16 MiB go back) and started again by the next write. @default 10000 */
  readonly idleStopMs?: number;
}

export interface UsageWriterThread extends UsageWriter {
  /** The thread running now, if any (started on the first write, stopped when idle; tests terminate it). */
  readonly worker: Worker | undefined;
}

type Pending = { readonly request: UsageWriteRequest; readonly resolve: (reply: UsageWriteReply) => void; readonly reject: (error: Error) => void };

/**
 * Writes usage records and keys' last-used times on a worker thread with its own connection, so neither the
 * INSERTs nor the WAL's writes and checkpoints hold the event loop. Each request resolves when the thread has
 * committed it. A thread that dies is restarted, and what it had not acknowledged is sent again (the request id
 * is the primary key: written twice, counted once); one that dies before acknowledging anything is given up for
 * the fallback connection.
 */
export function createUsageWriterThread(options: UsageWriterThreadOptions): UsageWriterThread {
  let worker: Worker | undefined;
  let inline = false;
  let closing = false;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  let idleTimer: NodeJS.Timeout | undefined;

  /** Asks the thread to close its connection after what it was sent, and end; it is no longer the one written to. */
  const stop = (target: Worker): Promise<void> => {
    if (worker === target) worker = undefined;
    const exited = new Promise<void>((resolve) => target.once('exit', () => resolve()));
    target.ref();
    target.postMessage({ id: (nextId += 1), close: true } satisfies UsageWriteRequest);
    return exited;
  };

  const start = (): Worker => {
    const started = startWorker(options.databaseUrl);
    let acknowledged = false;
    let failure = 'exited';
    started.on('message', (reply: UsageWriteReply) => {
      const entry = pending.get(reply.id);
      if (entry === undefined) return;
      pending.delete(reply.id);
      acknowledged = true;
      // An idle thread does not keep the process alive; one with work in hand does, until it answers.
      if (pending.size === 0) {
        started.unref();
        clearTimeout(idleTimer);
        idleTimer = setTimeout(() => {
          if (worker === started && pending.size === 0) void stop(started);
        }, options.idleStopMs ?? 10_000).unref();
      }
      if (reply.error === undefined) entry.resolve(reply);
      else entry.reject(new Error(reply.error));
    });
    started.on('error', (error) => {
      failure = error.message;
    });
    started.on('exit', (code) => {
      if (worker !== started) return;
      worker = undefined;
      if (closing && pending.size === 0) return;
      inline = !acknowledged;
      options.onLost(`${failure} (exit code ${code})`, inline ? 'inline' : 'restarted');
      const lost = [...pending.values()];
      pending.clear();
      for (const entry of lost) run(entry.request).then(entry.resolve, entry.reject);
    });
    return started;
  };

  const runInline = async (request: UsageWriteRequest): Promise<UsageWriteReply> => {
    if ('values' in request) await options.fallback.usage.insertBatch(request.values, request.samples, request.logs);
    else if ('lastUsed' in request) await options.fallback.apiKeys.touchLastUsed(new Map(request.lastUsed));
    else if ('expire' in request) return { id: request.id, expired: await options.fallback.retention.deleteExpiredBatch(request.expire, request.batch) };
    return { id: request.id };
  };

  const run = (request: UsageWriteRequest): Promise<UsageWriteReply> => {
    // After close() (a late record, the dashboard after SIGTERM) the thread is not started again.
    if (inline || closing) return runInline(request);
    const target = (worker ??= start());
    clearTimeout(idleTimer);
    return new Promise<UsageWriteReply>((resolve, reject) => {
      pending.set(request.id, { request, resolve, reject });
      target.ref();
      target.postMessage(request);
    });
  };

  return {
    get worker() {
      return worker;
    },
    insertMany: async (records) => {
      await run({ id: (nextId += 1), values: usageRowValues(records), samples: routingSampleValues(records), logs: requestLogValues(records) });
    },
    touchLastUsed: async (lastUsed) => {
      await run({ id: (nextId += 1), lastUsed: [...lastUsed] });
    },
    deleteExpiredBatch: async (cutoffs, batch) => (await run({ id: (nextId += 1), expire: cutoffs, batch })).expired ?? { deleted: 0, done: true },
    async close() {
      closing = true;
      clearTimeout(idleTimer);
      // After the requests already sent: the thread handles them in order, then closes its connection.
      if (worker !== undefined) await stop(worker);
    },
  };
}

/**
 * The compiled worker beside this file; under tsx (tests, `npx tsx`) the .ts source, which a worker thread
 * loads only once it has registered tsx itself (Node 20 does not pass the parent's loader hooks on).
 */
/** The usage writer thread's young generation, MiB. */
export const WRITER_YOUNG_GENERATION_MB = 4;

function startWorker(databaseUrl: string): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './usage-writer-worker.ts' : './usage-writer-worker.js', import.meta.url);
  // The thread's own V8 heap: its young generation would grow to V8's default (2 × 16 MiB semi-spaces) in the burst of
  // records that thousands of streams ending at once write; what it allocates per batch (the rows, one statement's
  // values) is short-lived and small, so 4 MiB holds it with more frequent, cheaper scavenges (docs/performance.md).
  const resourceLimits = { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB };
  if (entry.pathname.endsWith('.js')) return new Worker(entry, { workerData: { databaseUrl }, resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(source, { eval: true, workerData: { databaseUrl }, resourceLimits });
}
