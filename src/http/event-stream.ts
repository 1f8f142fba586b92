import { once } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../lib/errors.js';
import { UpstreamError, type FinishReason, type StreamPart, type Usage } from '../providers/contract.js';

/**
 * The SSE half every streamed answer shares (routed requests in any client
 * format, and agents' final steps): the response head, writes with
 * backpressure, and relaying the upstream's parts as they arrive.
 */

export interface EventStream {
  /** Writes whole SSE events in order, waiting for 'drain'; a no-op once the client has gone. */
  write(events: readonly string[]): Promise<void>;
  end(): void;
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
  return {
    async write(events) {
      for (const event of events) {
        if (raw.destroyed) return;
        if (!raw.write(event)) await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
      }
    },
    end: () => raw.end(),
  };
}

/** What a relayed stream produced, for accounting and its last events. */
export interface RelayedStream {
  /** The answer's text (and tool-call names and arguments), for counting tokens when the provider gives none. */
  readonly generated: string;
  /** `stop` when the upstream sent no finish part. */
  readonly finishReason: FinishReason;
  readonly usage: Usage | undefined;
  /** Set when the stream broke after it had started. */
  readonly failure: GatewayError | undefined;
}

/**
 * Writes the first part and then every part as it arrives. A break after the
 * start cannot be a JSON error any more: it is returned, for the caller to end
 * the stream with an error event. `subject` names the stream in that error.
 */
export async function relayParts(
  first: IteratorResult<StreamPart>,
  iterator: AsyncIterator<StreamPart>,
  encode: (part: StreamPart) => readonly string[],
  stream: EventStream,
  subject: string,
): Promise<RelayedStream> {
  let generated = '';
  let finishReason: FinishReason = 'stop';
  let usage: Usage | undefined;
  let failure: GatewayError | undefined;
  const apply = async (part: StreamPart): Promise<void> => {
    if (part.type === 'text-delta' || part.type === 'refusal-delta') generated += part.text;
    else if (part.type === 'tool-call-delta') generated += (part.name ?? '') + part.argumentsDelta;
    else if (part.type === 'finish') finishReason = part.finishReason;
    else usage = part.usage;
    await stream.write(encode(part));
  };
  try {
    if (!first.done) await apply(first.value);
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      await apply(next.value);
    }
  } catch (error) {
    failure = streamFailure(error, subject);
  }
  return { generated, finishReason, usage, failure };
}

function streamFailure(error: unknown, subject: string): GatewayError {
  if (error instanceof UpstreamError && error.kind === 'aborted') {
    return new GatewayError(499, 'invalid_request_error', 'client_closed_request', 'The client closed the connection.');
  }
  const message = error instanceof Error ? error.message : 'unknown error';
  return new GatewayError(502, 'upstream_error', 'upstream_stream_error', `${subject} broke after it had started: ${message}`);
}
