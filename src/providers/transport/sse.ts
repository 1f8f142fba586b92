import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';
import type { BodySource } from './body-source.js';

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
  /** Stops listening; the handler hears nothing more. The caller then drops the body or reads its rest unseen. */
  stop(): void;
}

/**
 * Pushes the server-sent events of an upstream body to a handler as its chunks
 * arrive, whatever the byte boundaries: nothing is awaited per chunk, so a held
 * stream leaves no promise or iterator result behind to be promoted to the old
 * generation (docs/performance.md, Memory of held streams).
 */
export function pushServerSentEvents(body: BodySource, handler: ServerSentEventHandler): ServerSentEventFeed {
  const decoder = new StringDecoder('utf8');
  let stopped = false;
  const parser = createParser({
    onEvent: (event) => {
      if (!stopped) handler.event(event);
    },
  });
  body.attach({
    data(chunk) {
      if (stopped) return;
      parser.feed(decoder.write(chunk));
      if (!stopped) handler.endOfRead?.();
    },
    end() {
      if (stopped) return;
      // A stream that ends without a trailing blank line still delivers its last event.
      parser.feed(decoder.end());
      parser.feed('\n\n');
      if (stopped) return;
      stopped = true;
      handler.end();
    },
    fail(error) {
      if (stopped) return;
      stopped = true;
      handler.fail(error);
    },
  });
  return {
    pause: () => body.pause(),
    resume: () => body.resume(),
    stop: () => {
      stopped = true;
    },
  };
}
