import type { Dispatcher } from 'undici';
import type { ClientSignal } from '../../lib/client-abort.js';
import type { UpstreamHttp } from './http-client.js';
import { chunksText, dispatchPost, sendJson, UpstreamCall, type UpstreamTarget } from './upstream-call.js';

/**
 * A non-streamed upstream call read whole: undici's `request()` plus `body.text()`
 * without their layers. undici's `request()` wraps every call in a promise, a handler, a
 * Readable for the body and an AbortController for its timeouts, and `text()`
 * reads that Readable back through more promises; here one dispatch handler
 * collects the body's chunks and settles one promise, and the timeouts and the
 * caller's abort reach the request through undici's own abort (docs/performance.md).
 * Errors are those of `postSerialized` and of reading its body.
 */

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
  return new Promise<UpstreamText>((resolve, reject) => dispatchPost(http, target, headers, payload, new TextCall(http.timeouts, provider, signal, resolve, reject)));
}

/** One call's state: the shared deadlines, abort and settlement (UpstreamCall), and the body's chunks until its end. */
class TextCall extends UpstreamCall<UpstreamText> {
  #headers: Record<string, string | string[] | undefined> = {};
  #chunks: Buffer[] = [];
  #settled = false;

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (this.finalHead(statusCode)) this.#headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.#finish()) return;
    if (this.statusCode >= 200 && this.statusCode < 300) this.fulfil({ statusCode: this.statusCode, headers: this.#headers, text: chunksText(this.#chunks) });
    else this.failWith(this.statusFailure(this.#headers, this.#chunks));
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.#finish()) this.failWith(this.headFailure(this.#headers, error));
  }

  /** Releases the timers and the listener; false when the call had already settled. */
  #finish(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.release();
    return true;
  }
}
