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

/**
 * The same events, read straight from a Readable with `read()` and its
 * 'readable' event instead of its async iterator. A held stream waits about a
 * second for each chunk, long enough for whatever its wait allocated to be
 * promoted to the old generation: one async-iterator layer less per chunk is
 * measurably less old-space garbage with thousands of streams open
 * (docs/performance.md). Unlike `for await` over the body, stopping early
 * leaves the body open: the caller reads it to its end or destroys it.
 */
export async function* readServerSentEventsFromStream(body: Readable): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new StringDecoder('utf8');
  let wake: (() => void) | undefined;
  let ended = false;
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
    else ended = true;
    notify();
  });
  try {
    for (;;) {
      let chunk: Buffer | string | null;
      while ((chunk = body.read() as Buffer | string | null) !== null) {
        parser.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
        while (pending.length > 0) yield pending.shift() as EventSourceMessage;
      }
      if (failure !== undefined) throw failure;
      if (ended || body.readableEnded) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  } finally {
    body.off('readable', notify);
    stopWatching();
  }
  parser.feed(decoder.end());
  // A stream that ends without a trailing blank line still delivers its last event.
  parser.feed('\n\n');
  while (pending.length > 0) yield pending.shift() as EventSourceMessage;
}
