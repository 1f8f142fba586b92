import type { EventSourceMessage } from 'eventsource-parser';
import type { ClientSignal } from '../../lib/client-abort.js';
import type { BodySource } from './body-source.js';
import type { StreamPart } from '../contract.js';
import { toUpstreamError } from './http-client.js';
import { PartChannel } from '../part-stream.js';
import { pushServerSentEvents } from './sse.js';

/** One provider's SSE wire format → stream parts, for one stream (it may keep state between events). */
export interface ServerSentPartMapping {
  /**
   * Maps one event, pushing its parts. Returns true when the answer is complete
   * (the rest of the body is then read to its end, unmapped). Throws on an error
   * event or a malformed one.
   */
  event(event: EventSourceMessage, push: (part: StreamPart) => void): boolean;
  /** The body ended without an event saying the answer was complete: push what is left, or throw when it was cut short. */
  end(push: (part: StreamPart) => void): void;
}

/**
 * An SSE response body as a pushed stream of parts: each 'data' event of the
 * body is parsed, mapped and handed on in one synchronous run, with
 * back-pressure by pausing the body (part-stream.ts says why no part is
 * awaited). Events the consumer cannot take yet (before fallback has the first
 * part and the client's head is written, or while it is paused) wait unmapped,
 * so the first part is not held back by mapping the rest of its packet.
 * Failures are UpstreamErrors of `provider`; `signal` tells a client's abort apart.
 */
export function streamServerSentParts(provider: string, body: BodySource, signal: ClientSignal, mapping: ServerSentPartMapping): PartChannel {
  let complete = false;
  let closed = false;
  let bodyEnded = false;
  const backlog: EventSourceMessage[] = [];
  const close = () => {
    if (closed) return;
    closed = true;
    backlog.length = 0;
    feed.stop();
    if (complete) body.discardRest();
    else body.cancel();
  };
  const fail = (error: unknown) => {
    close();
    channel.fail(toUpstreamError(provider, error, signal));
  };
  const push = (part: StreamPart) => channel.push(part);
  const handle = (event: EventSourceMessage) => {
    try {
      complete = mapping.event(event, push);
    } catch (error) {
      fail(error);
      return;
    }
    if (complete) {
      close();
      channel.end();
    }
  };
  /** How the body ended (undefined: cleanly), once it has. */
  let endError: Error | undefined;
  /**
   * Once the body has ended, every event before the end counts: they are mapped as the consumer takes them, then the
   * end is mapped. Not all at once when the body ends: a short answer often comes whole in one read, and its body
   * ends before fallback has even seen its first part; mapping the rest then held the client's first byte back.
   */
  const finishWhenDrained = () => {
    if (closed || backlog.length > 0) return;
    if (endError !== undefined) {
      fail(endError);
      return;
    }
    try {
      mapping.end(push);
    } catch (error) {
      fail(error);
      return;
    }
    close();
    channel.end();
  };
  const ended = (error: Error | undefined) => {
    bodyEnded = true;
    endError = error;
    drain();
  };
  const drain = () => {
    while (!closed && channel.demand) {
      const event = backlog.shift();
      if (event === undefined) break;
      handle(event);
    }
    if (bodyEnded) finishWhenDrained();
    channel.endBatch();
  };
  const channel = new PartChannel({
    pause: () => feed.pause(),
    resume: () => {
      feed.resume();
      drain();
    },
    cancel: close,
  });
  const feed = pushServerSentEvents(body, {
    event(event) {
      if (backlog.length === 0 && channel.demand) handle(event);
      else backlog.push(event);
    },
    end: () => ended(undefined),
    fail: ended,
    endOfRead: () => channel.endBatch(),
  });
  return channel;
}
