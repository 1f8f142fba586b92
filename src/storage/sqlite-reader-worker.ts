import { Buffer } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

/** A query from the main thread (sqlite-reader-thread.ts), answered by its id; or the request to close and end. */
export type SqliteReadRequest =
  | { readonly id: number; readonly sql: string; readonly parameters: readonly unknown[] }
  | { readonly id: number; readonly close: true };

/** The rows a query returned, or SQLite's message and code (`SQLITE_BUSY`, …) for one it refused. */
export type SqliteReadReply =
  | { readonly id: number; readonly rows: unknown[] }
  | { readonly id: number; readonly error: string; readonly code?: string | undefined };

/** Statements kept per SQL text: the dashboard's reports are a few dozen shapes. */
const STATEMENT_CACHE_SIZE = 200;

/**
 * The SQLite reader thread: its own read-only connection to the database file, so a report that scans the usage
 * table for a second does it here, not on the event loop. The file is in WAL mode (openStorage set it), so these
 * reads neither wait for the writers nor hold them up; the busy timeout covers the moments a checkpoint or a
 * recovery holds the WAL index. Queries are run one at a time, in the order they came (better-sqlite3 is synchronous).
 */
const port = parentPort;
if (port === null) throw new Error('sqlite-reader-worker runs as a worker thread');
const sqlite = new SqliteDatabase((workerData as { file: string }).file, { readonly: true, fileMustExist: true });
sqlite.pragma('busy_timeout = 5000');
const statements = new Map<string, SqliteDatabase.Statement>();

function prepare(sql: string): SqliteDatabase.Statement {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = sqlite.prepare(sql);
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
    statements.set(sql, statement);
  }
  return statement;
}

/** A Buffer parameter arrives as a plain Uint8Array (structured clone), which better-sqlite3 does not bind as a blob. */
function bindable(parameters: readonly unknown[]): unknown[] {
  return parameters.map((value) => (value instanceof Uint8Array && !Buffer.isBuffer(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : value));
}

function answer(request: { id: number; sql: string; parameters: readonly unknown[] }): SqliteReadReply {
  try {
    const statement = prepare(request.sql);
    // `reader` alone would let `insert … returning` through; `readonly` alone would let `begin` through. The
    // connection is opened read-only as well, so a write that got past both would still fail in SQLite.
    if (!statement.reader || !statement.readonly) {
      return { id: request.id, error: `The SQLite reader thread runs only read queries (a select returning rows), not: ${request.sql.slice(0, 200)}` };
    }
    return { id: request.id, rows: statement.all(bindable(request.parameters)) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { id: request.id, error: error instanceof Error ? error.message : String(error), code: typeof code === 'string' ? code : undefined };
  }
}

port.on('message', (request: SqliteReadRequest) => {
  if ('close' in request) {
    sqlite.close();
    port.close();
    return;
  }
  port.postMessage(answer(request));
});
