import { Worker } from 'node:worker_threads';
import {
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
} from 'kysely';
import { sqliteFilePath } from './database.js';
import type { Database } from './schema.js';
import type { SqliteReadReply, SqliteReadRequest } from './sqlite-reader-worker.js';

export interface SqliteReaderThreadOptions {
  /** The SQLite file (a path, `sqlite:` prefix optional; not `:memory:`, which another connection cannot share), already migrated. */
  readonly file: string;
  /** A thread with no query for this long is stopped (its memory goes back) and started again by the next query. @default 30000 */
  readonly idleStopMs?: number;
}

export interface SqliteReaderThread {
  /** Reads only: a write, a transaction or a stream is refused with an error. Several queries may be in flight. */
  readonly db: Kysely<Database>;
  /** The thread running now, if any (started by the first query, stopped when idle; tests terminate it). */
  readonly worker: Worker | undefined;
  /** Stops the thread after the queries already sent; later queries are refused. */
  close(): Promise<void>;
}

type Pending = { readonly resolve: (rows: unknown[]) => void; readonly reject: (error: Error) => void };

/** One started thread and the queries it has not answered yet. */
interface Running {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
  idleTimer: NodeJS.Timeout | undefined;
  failure: string;
}

const READ_ONLY = 'The SQLite reader thread is a read-only connection: it runs no transactions';

/**
 * A Kysely instance whose SQLite queries run on a worker thread with its own read-only connection, so the dashboard's
 * reports (usage analytics: scans and aggregates over the usage table) never hold the event loop; better-sqlite3 runs
 * a query synchronously on the thread that calls it. The thread is started by the first query, stopped after
 * `idleStopMs` without one, and started again by the next; one that dies fails the queries it had in hand.
 */
export function createSqliteReaderThread(options: SqliteReaderThreadOptions): SqliteReaderThread {
  const file = sqliteFilePath(options.file);
  if (file === undefined || file === ':memory:') throw new Error(`The SQLite reader thread needs a SQLite file, not ${options.file}`);
  const idleStopMs = options.idleStopMs ?? 30_000;
  let running: Running | undefined;
  let closed = false;
  let nextId = 0;

  /** Asks the thread to close its connection after the queries it was sent, and end; later queries start another. */
  const stop = (target: Running): Promise<void> => {
    if (running === target) running = undefined;
    clearTimeout(target.idleTimer);
    const exited = new Promise<void>((resolve) => target.worker.once('exit', () => resolve()));
    target.worker.ref();
    target.worker.postMessage({ id: (nextId += 1), close: true } satisfies SqliteReadRequest);
    return exited;
  };

  /**
   * An idle thread does not keep the process alive, and is stopped if it stays idle; one with a query in hand keeps
   * it alive until it answers, and one being stopped does until it has ended (close() awaits that).
   */
  const idleIfDone = (started: Running): void => {
    if (started.pending.size > 0 || running !== started) return;
    started.worker.unref();
    clearTimeout(started.idleTimer);
    started.idleTimer = setTimeout(() => {
      if (running === started && started.pending.size === 0) void stop(started);
    }, idleStopMs).unref();
  };

  const start = (): Running => {
    const started: Running = { worker: startWorker(file), pending: new Map(), idleTimer: undefined, failure: 'exited' };
    started.worker.on('message', (reply: SqliteReadReply) => {
      const entry = started.pending.get(reply.id);
      if (entry === undefined) return;
      started.pending.delete(reply.id);
      idleIfDone(started);
      if ('rows' in reply) entry.resolve(reply.rows);
      else entry.reject(Object.assign(new Error(reply.error), reply.code === undefined ? {} : { code: reply.code }));
    });
    started.worker.on('error', (error) => {
      started.failure = error.message;
    });
    started.worker.on('exit', (code) => {
      if (running === started) running = undefined;
      clearTimeout(started.idleTimer);
      const lost = [...started.pending.values()];
      started.pending.clear();
      const error = new Error(`The SQLite reader thread stopped before answering (${started.failure}, exit code ${code})`);
      for (const entry of lost) entry.reject(error);
    });
    return started;
  };

  const query = (sql: string, parameters: readonly unknown[]): Promise<unknown[]> => {
    if (closed) return Promise.reject(new Error('The SQLite reader thread is closed'));
    const target = (running ??= start());
    clearTimeout(target.idleTimer);
    const id = (nextId += 1);
    return new Promise<unknown[]>((resolve, reject) => {
      try {
        target.worker.postMessage({ id, sql, parameters } satisfies SqliteReadRequest);
      } catch (error) {
        // A parameter that cannot be cloned to the thread (a function, a class instance with private fields).
        reject(error instanceof Error ? error : new Error(String(error)));
        idleIfDone(target);
        return;
      }
      target.pending.set(id, { resolve, reject });
      target.worker.ref();
    });
  };

  const close = async (): Promise<void> => {
    closed = true;
    if (running !== undefined) await stop(running);
  };

  const connection: DatabaseConnection = {
    async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
      return { rows: (await query(compiled.sql, compiled.parameters)) as R[] };
    },
    // A stream would need the thread to hold a statement open between pages, ahead of the queries sent after it.
    async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
      throw new Error('The SQLite reader thread does not stream queries');
    },
  };

  const driver: Driver = {
    init: async () => {},
    // One connection for every caller, with no lock: the thread answers queries in the order they were sent.
    acquireConnection: async () => connection,
    releaseConnection: async () => {},
    beginTransaction: () => Promise.reject(new Error(READ_ONLY)),
    commitTransaction: () => Promise.reject(new Error(READ_ONLY)),
    rollbackTransaction: () => Promise.reject(new Error(READ_ONLY)),
    destroy: close,
  };

  const dialect: Dialect = {
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };

  const db = new Kysely<Database>({ dialect });
  return {
    db,
    get worker() {
      return running?.worker;
    },
    // Kysely does not call the driver's destroy() if no query ever ran, and would then still run a later one.
    async close() {
      await close();
      await db.destroy();
    },
  };
}

/**
 * The compiled worker beside this file; under tsx (tests, `npx tsx`) the .ts source, which a worker thread loads only
 * once it has registered tsx itself (Node 20 does not pass the parent's loader hooks on), as the usage writer thread does.
 */
function startWorker(file: string): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './sqlite-reader-worker.ts' : './sqlite-reader-worker.js', import.meta.url);
  if (entry.pathname.endsWith('.js')) return new Worker(entry, { workerData: { file } });
  const tsx = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); })`;
  return new Worker(source, { eval: true, workerData: { file } });
}
