import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { finished, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/**
 * Yields the server-sent events of an upstream body as they arrive, whatever
 * the byte boundaries. The parsing itself is eventsource-parser's.
 */
export async function* readServerSentEvents(body: AsyncIterable<Buffer | string> | Readable): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of body as AsyncIterable<Buffer | string>) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift() as EventSourceMessage;
  }
  parser.feed(decoder.decode());
  // A stream that ends without a trailing blank line still delivers its last event.
  parser.feed('\n\n');
  while (pending.length > 0) yield pending.shift() as EventSourceMessage;
}

/** Pull-style reading of a body's events: `next()` without waiting, `wait()` only when nothing is buffered. */
export interface ServerSentEventReader {
  /** The next event already received, or undefined: then `wait()`, unless `ended`. Throws the body's error. */
  next(): EventSourceMessage | undefined;
  /** Resolves when more bytes arrived, the body ended or it failed. */
  wait(): Promise<void>;
  /** The body ended and every event was returned. */
  readonly ended: boolean;
  /** Stops listening to the body; leaves it open (the caller drains or destroys it). */
  close(): void;
}

/**
 * Reads server-sent events straight from a Readable with `read()` and its
 * 'readable' event, instead of its async iterator. A held stream waits about a
 * second for each chunk, long enough with thousands of streams for whatever the
 * wait allocated to be promoted to the old generation: each async layer between
 * the socket and the client that is not there is less old-space garbage
 * (docs/performance.md, Memory of held streams). The caller loops on `next()`
 * and awaits `wait()` once per chunk, in its own generator.
 */
export function createServerSentEventReader(body: Readable): ServerSentEventReader {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new StringDecoder('utf8');
  let wake: (() => void) | undefined;
  let bodyEnded = false;
  let flushed = false;
  let failure: Error | undefined;
  const notify = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  body.on('readable', notify);
  // Errors, the end, and a close without an end (ERR_STREAM_PREMATURE_CLOSE), as the async iterator reports them.
  const stopWatching = finished(body, (error) => {
    if (error) failure = error;
    else bodyEnded = true;
    notify();
  });
  const close = () => {
    body.off('readable', notify);
    stopWatching();
  };
  return {
    next() {
      for (;;) {
        if (pending.length > 0) return pending.shift();
        if (flushed) return undefined;
        const chunk = body.read() as Buffer | string | null;
        if (chunk !== null) {
          parser.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
          continue;
        }
        if (failure !== undefined) throw failure;
        if (!bodyEnded && !body.readableEnded) return undefined;
        // A stream that ends without a trailing blank line still delivers its last event.
        flushed = true;
        close();
        parser.feed(decoder.end());
        parser.feed('\n\n');
      }
    },
    wait() {
      if (flushed || failure !== undefined || bodyEnded) return Promise.resolve();
      return new Promise<void>((resolve) => {
        wake = resolve;
      });
    },
    get ended() {
      return flushed && pending.length === 0;
    },
    close,
  };
}

/** The reader's events as an async generator (stopping early leaves the body open, unlike `for await` over it). */
export async function* readServerSentEventsFromStream(body: Readable): AsyncGenerator<EventSourceMessage> {
  const reader = createServerSentEventReader(body);
  try {
    for (;;) {
      const event = reader.next();
      if (event !== undefined) yield event;
      else if (reader.ended) return;
      else await reader.wait();
    }
  } finally {
    reader.close();
  }
}
