import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { GatewayError } from '../lib/errors.js';
import { UpstreamError, type FinishReason, type StreamPart, type Usage } from '../providers/contract.js';
import { flattenString } from '../lib/flat-string.js';
import type { PartStream } from '../providers/part-stream.js';

/**
 * The SSE half every streamed answer shares (routed requests in any client
 * format, and agents' final steps): the response head, writes with
 * backpressure, and relaying the upstream's parts as they arrive.
 */

export interface EventStream {
  /**
   * Writes whole SSE events in one write; false when the client's buffer is full:
   * then nothing more until `whenWritable`. A no-op once the client has gone.
   */
  send(events: readonly string[]): boolean;
  /** Calls back once the client's buffer drained, or the client went away. */
  whenWritable(callback: () => void): void;
  /** `send`, then waits until the client can take more. */
  write(events: readonly string[]): Promise<void>;
  /** Sends what Node holds back until the end of the tick (it corks the socket per tick) at once. */
  flush(): void;
  /** Writes the last events and ends the response (the end of the chunked body with them, in one write). */
  end(events: readonly string[]): void;
}

/** Takes the reply over from Fastify and sends the head of an SSE response. */
export function openEventStream(request: FastifyRequest, reply: FastifyReply, modelId: string): EventStream {
  const raw = reply.raw;
  reply.hijack();
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
    'x-modelport-model': modelId,
  });
  // Node keeps the head it built (res._header) for the whole response, as a rope of about 50 pieces.
  const head = (raw as unknown as { _header?: unknown })._header;
  if (typeof head === 'string') flattenString(head);
  // Once the head is out, events go to the socket with their chunk framing done here: a ServerResponse.write
  // corks the socket until the end of the tick and queues four writes (size, CRLF, data, CRLF), each an object
  // that a held stream's chunks would leave to be promoted (docs/performance.md, Memory of held streams).
  let socket: Socket | undefined;
  const send = (events: readonly string[]): boolean => {
    if (raw.destroyed || events.length === 0) return true;
    const data = events.length === 1 ? (events[0] as string) : events.join('');
    if (socket !== undefined) return socket.write(`${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`);
    const writable = raw.write(data);
    if (raw.headersSent && raw.chunkedEncoding && raw.socket !== null) socket = raw.socket;
    return writable;
  };
  const whenWritable = (callback: () => void): void => {
    const target = socket ?? raw;
    if (raw.destroyed || !target.writableNeedDrain) {
      callback();
      return;
    }
    const done = () => {
      target.off('drain', done);
      raw.off('close', done);
      callback();
    };
    target.on('drain', done);
    raw.on('close', done);
  };
  return {
    send,
    whenWritable,
    write: (events) => (send(events) ? Promise.resolve() : new Promise((resolve) => whenWritable(resolve))),
    flush: () => {
      if (raw.socket?.writableCorked) raw.uncork();
    },
    end: (events) => {
      // ServerResponse.end flushes the socket when it is done: what is written before it goes in the same write.
      socket?.cork();
      send(events);
      raw.end();
      socket?.uncork();
    },
  };
}

/** What a relayed stream produced, for accounting and its last events. */
export interface RelayedStream {
  /**
   * The answer's text (and tool-call names and arguments), for counting tokens when the provider gives none:
   * empty once it gave usage, unless the caller keeps the text (`keepText`).
   */
  readonly generated: string;
  /** `stop` when the upstream sent no finish part. */
  readonly finishReason: FinishReason;
  readonly usage: Usage | undefined;
  /** Set when the stream broke after it had started. */
  readonly failure: GatewayError | undefined;
}

/** How many appended parts the generated text may hold as a rope before it is flattened. */
const FLATTEN_EVERY = 16;

/**
 * Writes every part as it arrives, the queued first one included, straight from
 * the upstream's data event (no promise per part: part-stream.ts says why), the
 * parts of one upstream read in one write. A client that cannot take more
 * pauses the upstream until it drained. A break after the start cannot be a
 * JSON error any more: it is returned, for the caller to end the stream with an
 * error event. `subject` names the stream in that error. `keepText`: the whole
 * text is returned even when the provider counted it (an agent's output).
 */
export function relayParts(
  parts: PartStream,
  encode: (part: StreamPart) => readonly string[],
  stream: EventStream,
  subject: string,
  keepText = false,
): Promise<RelayedStream> {
  return new Promise((resolve) => relayPartsThen(parts, encode, stream, subject, keepText, resolve));
}

/**
 * `relayParts` with a callback instead of a promise: a caller that ends the stream from it returns at once, so its
 * async functions (and the route's above them) do not stay suspended, each holding its frame, for the stream's life.
 */
export function relayPartsThen(
  parts: PartStream,
  encode: (part: StreamPart) => readonly string[],
  stream: EventStream,
  subject: string,
  keepText: boolean,
  done: (relayed: RelayedStream) => void,
): void {
  let generated = '';
  /** Pieces appended to `generated` since it was last flattened (a held stream keeps it: flat-string.ts). */
  let pieces = 0;
  let finishReason: FinishReason = 'stop';
  let usage: Usage | undefined;
  let firstSent = false;
  /** Events of the current batch (one upstream read), written together at its end. */
  let pending: string | undefined;
  const append = (text: string) => {
    if (usage !== undefined && !keepText) return;
    generated += text;
    pieces += 1;
    if (pieces === FLATTEN_EVERY) {
      pieces = 0;
      flattenString(generated);
    }
  };
  const resume = () => parts.resume();
  const write = (data: string) => {
    if (!stream.send([data])) {
      parts.pause();
      stream.whenWritable(resume);
    }
  };
  const endOfBatch = () => {
    if (pending === undefined) return;
    const data = pending;
    pending = undefined;
    write(data);
  };
  parts.pipe({
    part(part) {
      // The text is counted only when the provider sends no usage: once it has, none is kept (unless asked).
      if (part.type === 'text-delta' || part.type === 'refusal-delta') append(part.text);
      else if (part.type === 'tool-call-delta') append((part.name ?? '') + part.argumentsDelta);
      else if (part.type === 'finish') finishReason = part.finishReason;
      else {
        usage = part.usage;
        if (!keepText) generated = '';
      }
      const events = encode(part);
      if (events.length === 0) return;
      const data = events.length === 1 ? (events[0] as string) : events.join('');
      if (firstSent) {
        pending = pending === undefined ? data : pending + data;
        return;
      }
      // Node sends a tick's writes together at its end: the head, the start and the first part go now,
      // before the parts that came in the same upstream packet are even mapped.
      firstSent = true;
      write(data);
      stream.flush();
    },
    endOfBatch,
    end: () => done({ generated, finishReason, usage, failure: undefined }),
    fail: (error) => done({ generated, finishReason, usage, failure: streamFailure(error, subject) }),
  });
}

function streamFailure(error: unknown, subject: string): GatewayError {
  if (error instanceof UpstreamError && error.kind === 'aborted') {
    return new GatewayError(499, 'invalid_request_error', 'client_closed_request', 'The client closed the connection.');
  }
  const message = error instanceof Error ? error.message : 'unknown error';
  return new GatewayError(502, 'upstream_error', 'upstream_stream_error', `${subject} broke after it had started: ${message}`);
}
