/** Postgres SQLSTATEs that mean "the server is not there right now" (class 08, and 57P01–57P03 during shutdown or start). */
const UNAVAILABLE_SQLSTATES = new Set(['08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03']);
const UNAVAILABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'SQLITE_BUSY', 'SQLITE_LOCKED']);

/**
 * Whether an error says the database is unreachable or restarting (so a client
 * should retry: 503) rather than that a query is wrong (a bug: 500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SYSTEM_CODES.has(code))) return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(message);
}
