import type { Dispatcher } from 'undici';
import type { ClientSignal } from '../../lib/client-abort.js';
import { timeoutError, toUpstreamError, type UpstreamTimeouts } from './http-client.js';

/**
 * What every upstream call made through one undici dispatch handler shares
 * (post-json-text.ts, post-for-stream.ts): the first-byte and total deadlines,
 * the caller's abort (this object is its listener), and an abort that comes
 * before undici started the request. A class, so that every call has the same
 * shape and no closures are made per call.
 */
export abstract class UpstreamCall implements Dispatcher.DispatchHandler {
  protected readonly provider: string;
  protected readonly signal: ClientSignal;
  protected controller: Dispatcher.DispatchController | undefined = undefined;
  /** An abort that came before undici started the request; applied when it does. */
  #pendingAbort: unknown = undefined;
  #firstByteTimer: NodeJS.Timeout | undefined;
  #totalTimer: NodeJS.Timeout | undefined;

  constructor(timeouts: UpstreamTimeouts, provider: string, signal: ClientSignal) {
    this.provider = provider;
    this.signal = signal;
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

  /** The response's head is in: the first-byte deadline is met. */
  protected headersArrived(): void {
    clearTimeout(this.#firstByteTimer);
    this.#firstByteTimer = undefined;
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
