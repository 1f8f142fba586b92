import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { finished, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

/** Receives a body's server-sent events as they are parsed. */
export interface ServerSentEventHandler {
  event(event: EventSourceMessage): void;
  /** The body ended and every event was delivered (a last one without its blank line too). */
  end(): void;
  /** The body broke, or closed before its end (ERR_STREAM_PREMATURE_CLOSE). */
  fail(error: Error): void;
  /** The events of one read of the body were delivered. */
  endOfRead?(): void;
}

/** Control of a pushed body. */
export interface ServerSentEventFeed {
  /** Back-pressure: pauses the body (events already parsed from its last chunk are still delivered). */
  pause(): void;
  resume(): void;
  /**
   * Stops listening; the handler hears nothing more. The body is left flowing: the caller drains or destroys
   * it at once (a flowing body without a 'data' listener drops what it reads).
   */
  stop(): void;
}

/**
 * Pushes the server-sent events of a Readable to a handler from its 'data'
 * events, whatever the byte boundaries: nothing is awaited per chunk, so a held
 * stream leaves no promise or iterator result behind to be promoted to the old
 * generation (docs/performance.md, Memory of held streams).
 */
export function pushServerSentEvents(body: Readable, handler: ServerSentEventHandler): ServerSentEventFeed {
  const decoder = new StringDecoder('utf8');
  let stopped = false;
  const parser = createParser({
    onEvent: (event) => {
      if (!stopped) handler.event(event);
    },
  });
  const onData = (chunk: Buffer | string) => {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (!stopped) handler.endOfRead?.();
  };
  // Errors, the end, and a close without an end, as the async iterator reports them.
  const stopWatching = finished(body, (error) => {
    if (stopped) return;
    if (error) {
      stop();
      handler.fail(error);
      return;
    }
    // A stream that ends without a trailing blank line still delivers its last event.
    parser.feed(decoder.end());
    parser.feed('\n\n');
    if (stopped) return;
    stop();
    handler.end();
  });
  const stop = () => {
    if (stopped) return;
    stopped = true;
    body.off('data', onData);
    stopWatching();
  };
  body.on('data', onData);
  return { pause: () => body.pause(), resume: () => body.resume(), stop };
}
