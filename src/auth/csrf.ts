import { timingSafeEqual } from 'node:crypto';

/** The header the dashboard sends its session's CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isStateChanging(method: string): boolean {
  return STATE_CHANGING.has(method.toUpperCase());
}

/** Constant-time comparison of the header against the session's token. */
export function csrfTokenMatches(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Whether an `Origin` header, when the browser sent one, is this server's own
 * origin. Absent (same-origin GETs, non-browser clients) passes: the token check
 * still applies. `null` (sandboxed frames, some redirects) does not pass.
 */
export function originAllowed(origin: string | string[] | undefined, protocol: string, host: string | undefined): boolean {
  if (origin === undefined) return true;
  if (typeof origin !== 'string' || host === undefined) return false;
  try {
    const parsed = new URL(origin);
    return parsed.protocol === `${protocol}:` && parsed.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}
