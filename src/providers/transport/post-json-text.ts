import type { Dispatcher } from 'undici';
import type { ClientSignal } from '../../lib/client-abort.js';
import { statusError, toUpstreamError, type UpstreamHttp, type UpstreamTimeouts } from './http-client.js';
import { sendJson, UpstreamCall } from './upstream-call.js';

/**
 * A non-streamed upstream call read whole: undici's `request()` plus `body.text()`
 * without their layers. undici's `request()` wraps every call in a promise, a handler, a
 * Readable for the body and an AbortController for its timeouts, and `text()`
 * reads that Readable back through more promises; here one dispatch handler
 * collects the body's chunks and settles one promise, and the timeouts and the
 * caller's abort reach the request through undici's own abort (docs/performance.md).
 * Errors are those of `postSerialized` and of reading its body.
 */

/** Where a POST goes, parsed once per model instead of once per call. */
export interface UpstreamTarget {
  readonly origin: string;
  readonly path: string;
}

/** Never throws: a URL that does not parse fails each call as undici's `request()` fails it (undici's ERR_INVALID_URL). */
export function upstreamTarget(url: string): UpstreamTarget {
  if (!URL.canParse(url)) return { origin: url, path: '' };
  const parsed = new URL(url);
  return { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
}

/** A 2xx answer, read whole. */
export interface UpstreamText {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/**
 * POSTs JSON and resolves with the whole 2xx body as text. `headers` are all the
 * request's headers, content-type included. A non-2xx answer is thrown as
 * `postSerialized` throws it; network failures, timeouts and the caller's abort as
 * `toUpstreamError` maps them.
 */
export function postJsonForText(
  http: UpstreamHttp,
  provider: string,
  target: UpstreamTarget,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  signal: ClientSignal,
): Promise<UpstreamText> {
  return sendJson(provider, body, signal, (payload) => postForText(http, provider, target, headers, payload, signal));
}

/**
 * `postJsonForText` for a body already serialised: for a caller that needs the exact bytes sent (Bedrock signs them),
 * so the body is not serialised twice.
 */
export function postForText(
  http: UpstreamHttp,
  provider: string,
  target: UpstreamTarget,
  headers: Readonly<Record<string, string>>,
  payload: string,
  signal: ClientSignal,
): Promise<UpstreamText> {
  return new Promise<UpstreamText>((resolve, reject) => {
    const call = new TextCall(http.timeouts, provider, signal, resolve, reject);
    http.dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body: payload }, call);
  });
}

/** One call's state: the shared deadlines and abort (UpstreamCall), and the body's chunks until its end. */
class TextCall extends UpstreamCall {
  readonly #resolve: (value: UpstreamText) => void;
  readonly #reject: (error: unknown) => void;
  #statusCode = 0;
  #headers: Record<string, string | string[] | undefined> = {};
  #chunks: Buffer[] = [];
  #settled = false;

  constructor(timeouts: UpstreamTimeouts, provider: string, signal: ClientSignal, resolve: (value: UpstreamText) => void, reject: (error: unknown) => void) {
    super(timeouts, provider, signal);
    this.#resolve = resolve;
    this.#reject = reject;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    // 1xx informational answers come before the real one.
    if (statusCode < 200) return;
    this.headersArrived();
    this.#statusCode = statusCode;
    this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.#finish()) return;
    const chunks = this.#chunks;
    const text = chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString();
    if (this.#statusCode >= 200 && this.#statusCode < 300) this.#resolve({ statusCode: this.#statusCode, headers: this.#headers, text });
    else this.#reject(statusError(this.provider, this.#statusCode, this.#headers, text));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (!this.#finish()) return;
    // The error body is only informative: a non-2xx answer whose body failed is still that status.
    if (this.#statusCode >= 300) this.#reject(statusError(this.provider, this.#statusCode, this.#headers, ''));
    else this.#reject(toUpstreamError(this.provider, error, this.signal));
  }

  /** Releases the timers and the listener; false when the call had already settled. */
  #finish(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.release();
    return true;
  }
}
