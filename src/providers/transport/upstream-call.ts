import type { Dispatcher } from 'undici';
import type { ClientSignal } from '../../lib/client-abort.js';
import { statusError, timeoutError, toUpstreamError, type UpstreamHttp, type UpstreamTimeouts } from './http-client.js';

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

/**
 * What every upstream call made through one undici dispatch handler shares
 * (post-json-text.ts, post-for-stream.ts): the promise it settles once, the
 * response's status, the first-byte and total deadlines, the caller's abort
 * (this object is its listener), and an abort that comes before undici started
 * the request. A class, so that every call has the same shape and no closures
 * are made per call.
 */
export abstract class UpstreamCall<T> implements Dispatcher.DispatchHandler {
  protected readonly provider: string;
  protected readonly signal: ClientSignal;
  protected controller: Dispatcher.DispatchController | undefined = undefined;
  /** The final response's status; 0 before its head. */
  protected statusCode = 0;
  /** Cleared once the call's promise is settled, so a held stream keeps neither. */
  #resolve: ((value: T) => void) | undefined;
  #reject: ((error: unknown) => void) | undefined;
  /** An abort that came before undici started the request; applied when it does. */
  #pendingAbort: unknown = undefined;
  #firstByteTimer: NodeJS.Timeout | undefined;
  #totalTimer: NodeJS.Timeout | undefined;

  constructor(timeouts: UpstreamTimeouts, provider: string, signal: ClientSignal, resolve: (value: T) => void, reject: (error: unknown) => void) {
    this.provider = provider;
    this.signal = signal;
    this.#resolve = resolve;
    this.#reject = reject;
    // undici runs its headers timeout on a coarse timer (about 0.5 to 1 s late), so the first-byte deadline that
    // decides fallback is kept here, to the millisecond; its body (idle) timeout is the dispatcher's.
    this.#firstByteTimer = setTimeout(() => this.abort(timeoutError('no response headers', timeouts.firstByteMs)), timeouts.firstByteMs);
    this.#totalTimer = setTimeout(() => this.abort(timeoutError('the call did not finish', timeouts.totalMs)), timeouts.totalMs);
    if (signal.aborted) this.abort(signal.reason);
    else signal.addEventListener('abort', this);
  }

  /** The caller's abort (this object is its listener). */
  handleEvent(): void {
    this.abort(this.signal.reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.#pendingAbort !== undefined) controller.abort(this.#pendingAbort as Error);
  }

  /**
   * A response's head is in: false for a 1xx informational one, which comes before the real one; otherwise the
   * first-byte deadline is met and its status kept.
   */
  protected finalHead(statusCode: number): boolean {
    if (statusCode < 200) return false;
    clearTimeout(this.#firstByteTimer);
    this.#firstByteTimer = undefined;
    this.statusCode = statusCode;
    return true;
  }

  /** Resolves the call's promise (once: later settlements are ignored). */
  protected fulfil(value: T): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#reject = undefined;
    resolve?.(value);
  }

  /** Rejects the call's promise (once: later settlements are ignored). */
  protected failWith(error: unknown): void {
    const reject = this.#reject;
    this.#resolve = undefined;
    this.#reject = undefined;
    reject?.(error);
  }

  /** A non-2xx answer read whole, as the error it is. */
  protected statusFailure(headers: Record<string, string | string[] | undefined>, chunks: readonly Buffer[]): unknown {
    return statusError(this.provider, this.statusCode, headers, chunksText(chunks));
  }

  /**
   * The response failed before a 2xx body: a non-2xx answer whose body failed is still that status (its body is only
   * informative); anything else is the network's or the caller's failure.
   */
  protected headFailure(headers: Record<string, string | string[] | undefined>, error: Error): unknown {
    return this.statusCode >= 300 ? statusError(this.provider, this.statusCode, headers, '') : toUpstreamError(this.provider, error, this.signal);
  }

  /** Replaces the total deadline with a shorter wait that drops the response (`unref`: it keeps no process alive). */
  protected limitWait(ms: number, onExpiry: () => void): void {
    clearTimeout(this.#totalTimer);
    this.#totalTimer = setTimeout(onExpiry, ms);
    this.#totalTimer.unref();
  }

  /** Aborts the request through undici (now, or as soon as it starts); a no-op once it is aborted. */
  protected abort(reason: unknown): void {
    if (this.controller === undefined) this.#pendingAbort = reason;
    else if (!this.controller.aborted) this.controller.abort(reason as Error);
  }

  /** The response ended or failed: the timers and the listener are released. */
  protected release(): void {
    clearTimeout(this.#firstByteTimer);
    clearTimeout(this.#totalTimer);
    this.signal.removeEventListener('abort', this);
  }
}

/** Serialises a JSON body and sends it; a body that cannot be serialised fails the call as `toUpstreamError` maps it. */
export function sendJson<T>(provider: string, body: unknown, signal: ClientSignal, send: (payload: string) => Promise<T>): Promise<T> {
  let payload: string;
  try {
    payload = JSON.stringify(body);
  } catch (error) {
    return Promise.reject(toUpstreamError(provider, error, signal));
  }
  return send(payload);
}

/** A POST of a serialised body, answered through `call` (a dispatch handler that settles its own promise). */
export function dispatchPost(http: UpstreamHttp, target: UpstreamTarget, headers: Readonly<Record<string, string>>, payload: string, call: Dispatcher.DispatchHandler): void {
  http.dispatcher.dispatch({ origin: target.origin, path: target.path, method: 'POST', headers, body: payload }, call);
}

/** A body's chunks as text, without a copy when it came in one. */
export function chunksText(chunks: readonly Buffer[]): string {
  return chunks.length === 1 ? (chunks[0] as Buffer).toString() : Buffer.concat(chunks).toString();
}
