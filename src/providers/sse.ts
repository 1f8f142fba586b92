import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { Readable } from 'node:stream';

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
