import { finished, type Readable } from 'node:stream';

/** Receives an upstream body's chunks as they are read. */
export interface BodySink {
  data(chunk: Buffer): void;
  /** The body ended; nothing follows. */
  end(): void;
  /** The body broke, or closed before its end; nothing follows. */
  fail(error: Error): void;
}

/**
 * A streamed upstream body, pushed chunk by chunk to one sink: no Readable, no
 * promise per chunk. What arrived before the sink is delivered to it first.
 */
export interface BodySource {
  /** The one sink. Chunks already read are delivered on a later microtask, never from inside this call. */
  attach(sink: BodySink): void;
  /** Back-pressure: no chunk until `resume()` (the socket is not read meanwhile). */
  pause(): void;
  resume(): void;
  /** Drops the response (its connection is closed); the sink hears nothing more. */
  cancel(): void;
  /**
   * The answer is complete: what follows (the end of a chunked body) is read unseen, so the keep-alive connection
   * goes back to the pool instead of every streamed call paying a new TCP and TLS handshake. More than 16 KiB, or
   * more than a second, and the response is dropped instead. The sink hears nothing more.
   */
  discardRest(): void;
}

/** The most `discardRest` reads before it drops the response instead. */
export const DISCARD_LIMIT_BYTES = 16_384;
/** How long `discardRest` waits for the end before it drops the response instead. */
export const DISCARD_WAIT_MS = 1_000;

/**
 * A body given as a Node Readable (a test's PassThrough, or a client library's stream) as a BodySource. The
 * gateway's own upstream calls push their bodies straight from undici's dispatch handler (post-for-stream.ts).
 */
export function readableBodySource(body: Readable): BodySource {
  let sink: BodySink | undefined;
  const onData = (chunk: Buffer | string) => sink?.data(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  // Errors, the end, and a close without an end, as the async iterator reports them.
  let stopWatching: (() => void) | undefined;
  const detach = () => {
    sink = undefined;
    body.off('data', onData);
    stopWatching?.();
  };
  return {
    attach(attached) {
      sink = attached;
      stopWatching = finished(body, (error) => {
        const current = sink;
        detach();
        if (error) current?.fail(error);
        else current?.end();
      });
      queueMicrotask(() => {
        if (sink !== undefined) body.on('data', onData);
      });
    },
    pause: () => body.pause(),
    resume: () => body.resume(),
    cancel() {
      detach();
      // A Readable destroyed before its end reports an 'error' (undici's RequestAbortedError): the one asked for here.
      body.on('error', () => undefined).destroy();
    },
    discardRest() {
      detach();
      if (body.destroyed) return;
      let extraBytes = 0;
      const giveUp = setTimeout(() => body.destroy(), DISCARD_WAIT_MS);
      giveUp.unref();
      body
        .on('data', (chunk: Buffer) => {
          extraBytes += chunk.length;
          if (extraBytes > DISCARD_LIMIT_BYTES) body.destroy();
        })
        .on('error', () => undefined)
        .once('close', () => clearTimeout(giveUp))
        .resume();
    },
  };
}
