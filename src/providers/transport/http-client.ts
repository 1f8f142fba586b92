import type { Dispatcher, buildConnector } from 'undici';
import { Agent, errors as undiciErrors, request } from './undici-parts.js';
import { ClientAbort, type ClientSignal } from '../../lib/client-abort.js';
import { UpstreamError, isRetryableStatus } from '../contract.js';

/** Timeouts for upstream calls, in milliseconds. */
export interface UpstreamTimeouts {
  /** TCP/TLS connect. @default 5000 */
  readonly connectMs: number;
  /** Until the response headers arrive (time to first byte). @default 60000 */
  readonly firstByteMs: number;
  /** Longest silence between two body chunks. @default 60000 */
  readonly idleMs: number;
  /** The whole call, body included. @default 600000 */
  readonly totalMs: number;
}

export const defaultTimeouts: UpstreamTimeouts = { connectMs: 5_000, firstByteMs: 60_000, idleMs: 60_000, totalMs: 600_000 };

/**
 * How long an idle upstream connection stays open, at most. An upstream's `Keep-Alive: timeout=N` hint can only
 * shorten it: undici would otherwise keep a connection for the hint's N seconds, up to 10 minutes, and after a burst
 * of thousands of streams each idle connection holds a socket, an undici Client, its parser and timers (about 5 KiB
 * of heap and more outside it) for that long. 10 s (undici's own default is 4 s) so that they are closed before the
 * idle collection (MODELPORT_IDLE_COLLECT_MS, 30 s) gives their memory back (docs/performance.md).
 */
export const UPSTREAM_KEEP_ALIVE_MS = 10_000;

/**
 * One keep-alive connection pool per upstream origin, shared by every provider.
 * `connect` replaces the socket connector (the SSRF guard's, for owner-supplied upstreams).
 */
export function createUpstreamDispatcher(timeouts: UpstreamTimeouts, connect?: buildConnector.connector, keepAliveMs = UPSTREAM_KEEP_ALIVE_MS): Dispatcher {
  return new Agent({
    connect: connect ?? { timeout: timeouts.connectMs },
    headersTimeout: timeouts.firstByteMs,
    bodyTimeout: timeouts.idleMs,
    keepAliveTimeout: keepAliveMs,
    keepAliveMaxTimeout: keepAliveMs,
    // No cap per origin: every open stream holds its own HTTP/1.1 connection, and a cap would queue the
    // streams beyond it until others end (thousands of long streams to one provider are normal).
    connections: null,
    pipelining: 1,
  });
}

export interface UpstreamHttp {
  readonly dispatcher: Dispatcher;
  readonly timeouts: UpstreamTimeouts;
}

export interface UpstreamResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Dispatcher.ResponseData['body'];
}

/**
 * POSTs a serialised JSON body to an upstream and returns the response once its headers are in, its body a Readable
 * (Bedrock's binary event stream; every other call goes through one dispatch handler: post-json-text.ts,
 * post-for-stream.ts). Any non-2xx status is read and thrown as an UpstreamError; network failures and timeouts are
 * mapped to UpstreamError too, so callers see one error type. `payload` is sent as it is (Bedrock signs those bytes).
 */
export async function postSerialized(
  http: UpstreamHttp,
  provider: string,
  url: string,
  headers: Record<string, string>,
  payload: string,
  signal: ClientSignal,
): Promise<UpstreamResponse> {
  // One ClientAbort (undici takes any EventTarget-like signal; an AbortController costs about 1.1 KiB, and a held
  // stream keeps it) and at most two timers per call, all released when the call ends: AbortSignal.timeout and
  // AbortSignal.any cost a weak reference and a GC-tracked signal each, per request (see docs/performance.md).
  // undici runs its headers timeout on a coarse timer (about 0.5 to 1 s late), so the first-byte deadline that
  // decides fallback is kept here, to the millisecond.
  const call = new ClientAbort();
  const onCallerAbort = () => call.abort(signal.reason);
  if (signal.aborted) call.abort(signal.reason);
  else signal.addEventListener('abort', onCallerAbort, { once: true });
  const timeout = (ms: number, what: string) => setTimeout(() => call.abort(timeoutError(what, ms)), ms);
  const firstByteTimer = timeout(http.timeouts.firstByteMs, 'no response headers');
  const totalTimer = timeout(http.timeouts.totalMs, 'the call did not finish');
  const release = () => {
    clearTimeout(totalTimer);
    signal.removeEventListener('abort', onCallerAbort);
  };
  let response: Dispatcher.ResponseData;
  try {
    const { origin, pathname, search } = new URL(url);
    response = await request(http.dispatcher, {
      origin,
      path: pathname + search,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
      body: payload,
      // undici's types name AbortSignal or EventEmitter; it calls only aborted, reason and add/removeEventListener.
      signal: call as unknown as AbortSignal,
    });
  } catch (error) {
    release();
    throw toUpstreamError(provider, error, signal);
  } finally {
    clearTimeout(firstByteTimer);
  }
  // The total deadline and the caller's abort cover the body too, until it is read or dropped.
  response.body.once('close', release);
  if (response.statusCode >= 200 && response.statusCode < 300) {
    return { statusCode: response.statusCode, headers: response.headers, body: response.body };
  }
  let text = '';
  try {
    text = await response.body.text();
  } catch {
    // The error body is only informative; the status already says what happened.
  }
  throw statusError(provider, response.statusCode, response.headers, text);
}

/** The abort reason of an upstream call's own deadline (`toUpstreamError` maps it to a timeout). */
export function timeoutError(what: string, ms: number): DOMException {
  return new DOMException(`${what} within ${ms} ms`, 'TimeoutError');
}

/** The UpstreamError of a non-2xx answer, from its status, headers and body (empty when it could not be read). */
export function statusError(provider: string, statusCode: number, headers: Record<string, string | string[] | undefined>, text: string): UpstreamError {
  return new UpstreamError({
    provider,
    kind: 'http',
    statusCode,
    isRetryable: isRetryableStatus(statusCode),
    responseBody: text.slice(0, 4_096),
    message: errorMessage(provider, statusCode, text),
    responseHeaders: stringHeaders(headers),
    ...retryAfter(headers),
  });
}

/**
 * The upstream's own message, except where it is about the operator's account
 * rather than the request: a refused key (OpenAI repeats short keys whole) or a
 * rate limit or quota (it names the organization). Messages travel to clients in
 * `_meta.attempts` and error bodies, so for those only the status and code are kept;
 * `responseBody` still has everything for the logs.
 */
function errorMessage(provider: string, status: number, text: string): string {
  const code = extractErrorCode(text);
  const detail = `HTTP ${status}${code === undefined ? '' : `, ${code}`}`;
  if (status === 401 || status === 403) return `${provider} refused the gateway's credentials (${detail})`;
  if (status === 429) return `${provider} rate-limited the gateway's account (${detail})`;
  return extractErrorMessage(text) ?? `${provider} answered HTTP ${status}`;
}

function extractErrorCode(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const inner = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? (parsed as { error: unknown }).error : undefined;
    const code = typeof inner === 'object' && inner !== null && 'code' in inner ? (inner as { code: unknown }).code : undefined;
    return typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

/** Maps a thrown network-level error (or an abort) onto UpstreamError. */
export function toUpstreamError(provider: string, error: unknown, clientSignal?: ClientSignal): UpstreamError {
  if (error instanceof UpstreamError) return error;
  if (clientSignal?.aborted) {
    return new UpstreamError({ provider, kind: 'aborted', isRetryable: false, message: 'The client went away.', cause: error });
  }
  const isTimeout =
    error instanceof undiciErrors.HeadersTimeoutError ||
    error instanceof undiciErrors.BodyTimeoutError ||
    error instanceof undiciErrors.ConnectTimeoutError ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'));
  if (isTimeout) {
    return new UpstreamError({ provider, kind: 'timeout', isRetryable: true, message: `${provider} timed out`, cause: error });
  }
  const code = error instanceof Error && 'code' in error ? String((error as { code: unknown }).code) : 'unknown';
  return new UpstreamError({
    provider,
    kind: 'connection',
    isRetryable: true,
    message: `Could not reach ${provider} (${code})`,
    cause: error,
  });
}

function extractErrorMessage(text: string): string | undefined {
  if (text === '') return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      const inner = (parsed as { error: unknown }).error;
      if (typeof inner === 'string') return inner;
      if (typeof inner === 'object' && inner !== null && 'message' in inner) {
        const message = (inner as { message: unknown }).message;
        if (typeof message === 'string') return message;
      }
    }
  } catch {
    // Not JSON: fall through to the raw text.
  }
  return text.slice(0, 500);
}

/** Honours `retry-after-ms` (OpenAI) and `retry-after` (seconds or an HTTP date). */
function retryAfter(headers: Record<string, string | string[] | undefined>): { retryAfterMs?: number } {
  const ms = Number(firstHeader(headers['retry-after-ms']));
  if (Number.isFinite(ms) && ms >= 0) return { retryAfterMs: ms };
  const raw = firstHeader(headers['retry-after']);
  if (raw === undefined) return {};
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return { retryAfterMs: seconds * 1000 };
  const date = Date.parse(raw);
  return Number.isNaN(date) ? {} : { retryAfterMs: Math.max(0, date - Date.now()) };
}

function stringHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const first = firstHeader(value);
    if (first !== undefined) out[name] = first;
  }
  return out;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
