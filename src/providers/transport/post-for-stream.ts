import type { Dispatcher } from 'undici';
import type { ClientSignal } from '../../lib/client-abort.js';
import { DISCARD_LIMIT_BYTES, DISCARD_WAIT_MS, type BodySink, type BodySource } from './body-source.js';
import type { UpstreamHttp } from './http-client.js';
import { dispatchPost, sendJson, UpstreamCall, type UpstreamTarget } from './upstream-call.js';

/**
 * A streamed upstream call: `request()` without its layers, as post-json-text.ts
 * is for the non-streamed one. undici's `request()` gives the body as a Readable:
 * its chunks wait in the Readable's buffer, reach a listener a tick later (after
 * the end of a short answer was already read), and every held stream keeps the
 * Readable, its state and its listeners. Here one dispatch handler is both the
 * call and its body (a BodySource): chunks go from undici's parser straight to
 * the sink, back-pressure pauses the parser, and the timeouts and the caller's
 * abort reach the request through undici's own abort (docs/performance.md).
 */

/** A 2xx answer whose body is still arriving. */
export interface UpstreamStream {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: BodySource;
}

/**
 * POSTs JSON and resolves once a 2xx answer's headers are in. `headers` are all the request's headers, content-type
 * and accept included. A non-2xx answer is read whole and thrown as a status error (`statusError`); network failures, timeouts
 * and the caller's abort (before and after the headers) as `toUpstreamError` maps them.
 */
export function postJsonForStream(
  http: UpstreamHttp,
  provider: string,
  target: UpstreamTarget,
  headers: Readonly<Record<string, string>>,
  body: unknown,
  signal: ClientSignal,
): Promise<UpstreamStream> {
  return sendJson(
    provider,
    body,
    signal,
    (payload) => new Promise<UpstreamStream>((resolve, reject) => dispatchPost(http, target, headers, payload, new StreamCall(http.timeouts, provider, signal, resolve, reject))),
  );
}

const enum Phase {
  /** Before a 2xx answer's headers (or a non-2xx answer, read whole for its error). */
  Waiting,
  /** A 2xx answer's body, delivered (or kept until there is a sink). */
  Body,
  /** The rest of the body after a complete answer, read unseen. */
  Discarding,
  /** Ended, failed or dropped: nothing more is delivered. */
  Done,
}

/** One call's state (the shared deadlines, abort and settlement: UpstreamCall) and its body. */
class StreamCall extends UpstreamCall<UpstreamStream> implements BodySource {
  #headers: Record<string, string | string[] | undefined> = {};
  #phase = Phase.Waiting;
  #sink: BodySink | undefined = undefined;
  /** Chunks read before the sink, or while it is paused (and a non-2xx answer's body). */
  #chunks: Buffer[] = [];
  /** How the body ended before the sink took all of it: null cleanly. */
  #endedEarly: Error | null | undefined = undefined;
  /** The consumer's back-pressure (undici's controller pauses reading the socket). */
  #paused = false;
  #discarded = 0;

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    if (!this.finalHead(statusCode)) return;
    // undici's controller would keep the head's raw Buffers (about ten) for as long as the stream is held.
    controller.rawHeaders = null;
    if (statusCode >= 300) {
      this.#headers = headers;
      return;
    }
    this.#phase = Phase.Body;
    this.fulfil({ statusCode, headers, body: this });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#phase === Phase.Discarding) {
      this.#discarded += chunk.length;
      if (this.#discarded > DISCARD_LIMIT_BYTES) this.cancel();
    } else if (this.#phase === Phase.Body && this.#sink !== undefined && !this.#paused && this.#chunks.length === 0) {
      this.#sink.data(chunk);
    } else if (this.#phase !== Phase.Done) {
      this.#chunks.push(chunk);
    }
  }

  onResponseEnd(): void {
    const phase = this.#phase;
    this.#finish();
    if (phase === Phase.Waiting) {
      const chunks = this.#chunks;
      this.#chunks = [];
      this.failWith(this.statusFailure(this.#headers, chunks));
    } else if (phase === Phase.Body) {
      this.#ended(null);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const phase = this.#phase;
    this.#finish();
    if (phase === Phase.Waiting) {
      this.failWith(this.headFailure(this.#headers, error));
    } else if (phase === Phase.Body) {
      this.#ended(error);
    }
  }

  attach(sink: BodySink): void {
    if (this.#sink !== undefined) throw new Error('an upstream body has one sink');
    this.#sink = sink;
    if (this.#chunks.length > 0 || this.#endedEarly !== undefined) queueMicrotask(() => this.#flush());
  }

  pause(): void {
    this.#paused = true;
    this.controller?.pause();
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    // What waits goes first; undici may read on from inside its resume.
    this.#flush();
    if (!this.#paused) this.controller?.resume();
  }

  cancel(): void {
    // Also once the response has ended: what it left for the sink is dropped, the sink hears nothing more.
    this.#sink = undefined;
    this.#chunks = [];
    if (this.#phase === Phase.Done) return;
    this.#phase = Phase.Done;
    this.abort(new DOMException('the stream was dropped', 'AbortError'));
  }

  discardRest(): void {
    this.#sink = undefined;
    if (this.#phase !== Phase.Body) {
      this.#chunks = [];
      return;
    }
    this.#phase = Phase.Discarding;
    for (const chunk of this.#chunks) this.#discarded += chunk.length;
    this.#chunks = [];
    if (this.#discarded > DISCARD_LIMIT_BYTES) {
      this.cancel();
      return;
    }
    this.limitWait(DISCARD_WAIT_MS, () => this.cancel());
    this.#paused = false;
    this.controller?.resume();
  }

  /** Delivers what was read before the sink, then the end if it came too (unless the sink paused or dropped it). */
  #flush(): void {
    while (this.#sink !== undefined && this.#chunks.length > 0 && !this.#paused) {
      this.#sink.data(this.#chunks.shift() as Buffer);
    }
    if (this.#chunks.length > 0) return;
    const ended = this.#endedEarly;
    const sink = this.#sink;
    if (ended === undefined || sink === undefined) return;
    this.#sink = undefined;
    if (ended === null) sink.end();
    else sink.fail(ended);
  }

  /** The 2xx body ended (null) or broke. */
  #ended(error: Error | null): void {
    const sink = this.#sink;
    if (sink === undefined || this.#chunks.length > 0) {
      this.#endedEarly = error;
      return;
    }
    this.#sink = undefined;
    if (error === null) sink.end();
    else sink.fail(error);
  }

  /** The response ended or failed: nothing more comes from undici; the timers and the listener are released. */
  #finish(): void {
    this.#phase = Phase.Done;
    this.release();
  }
}
