import { once } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountCall } from '../accounting/call-accounting.js';
import { chargeQuietly } from '../limits/budget-guard.js';
import { GatewayError } from '../lib/errors.js';
import { UpstreamError, type FinishReason, type StreamPart, type Usage } from '../providers/contract.js';
import type { ModelInfo } from '../routing/catalog.js';
import { streamRoute } from '../routing/route-and-call.js';
import type { AppDependencies } from './dependencies.js';
import type { RouterMeta } from './openai-response.js';
import { usageRecordFrom } from './request-state.js';
import { attemptsForMeta, round, type RoutedRequest } from './routed-call.js';

/** How a stream ended normally. */
export interface StreamEnd<M = RouterMeta> {
  /** `stop` when the upstream sent no finish part. */
  readonly finishReason: FinishReason;
  /** The provider's counts, or the tokenizer's when it gave none. */
  readonly usage: Usage;
  readonly meta: M;
}

/**
 * One client format's SSE framing. Every method returns whole SSE events
 * (`data: …\n\n`, `event: …\ndata: …\n\n`), written in order with backpressure.
 */
export interface StreamEncoder<M = RouterMeta> {
  /** What is sent as soon as a model has started answering. */
  start(): readonly string[];
  part(part: StreamPart): readonly string[];
  end(end: StreamEnd<M>): readonly string[];
  /** The last events of a stream that broke after it had started. */
  fail(error: GatewayError, meta: M): readonly string[];
}

/** Builds the encoder once the model that answers is known (its id goes into the events). */
export type StreamEncoderFactory = (model: ModelInfo) => StreamEncoder;

/**
 * Streams a routed request in the encoder's format. The upstream's first part is
 * awaited inside the fallback loop, so a model that fails before its first byte
 * is replaced invisibly and the client still gets a plain JSON error if none
 * answers. After that, events are written as parts arrive (with backpressure);
 * a failure can only be reported inside the stream. Accounting and the usage
 * record are the same as for a non-streamed call.
 */
export async function streamRoutedCall(
  request: FastifyRequest,
  reply: FastifyReply,
  routed: RoutedRequest,
  deps: AppDependencies,
  createEncoder: StreamEncoderFactory,
): Promise<void> {
  const state = request.gateway;
  state.streamed = true;
  const outcome = await streamRoute(routed, routed.chatRequest, deps, { startedAt: state.startedAt, signal: routed.signal });
  const { iterator, firstAt } = outcome;
  const encoder = createEncoder(outcome.model);
  const raw = reply.raw;

  reply.hijack();
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
    'x-modelport-model': outcome.model.id,
  });

  const write = async (events: readonly string[]): Promise<void> => {
    for (const event of events) {
      if (raw.destroyed) return;
      if (!raw.write(event)) await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
    }
  };

  let generated = '';
  let finishReason: FinishReason = 'stop';
  let usage: Usage | undefined;
  let failure: GatewayError | undefined;
  const apply = async (part: StreamPart): Promise<void> => {
    if (part.type === 'text-delta' || part.type === 'refusal-delta') generated += part.text;
    else if (part.type === 'tool-call-delta') generated += (part.name ?? '') + part.argumentsDelta;
    else if (part.type === 'finish') finishReason = part.finishReason;
    else usage = part.usage;
    await write(encoder.part(part));
  };

  await write(encoder.start());
  try {
    if (!outcome.first.done) await apply(outcome.first.value);
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      await apply(next.value);
    }
  } catch (error) {
    failure = streamFailure(error);
  }

  const account = accountCall({
    model: outcome.model,
    request: routed.chatRequest,
    usage,
    generatedText: generated,
    generationMs: performance.now() - firstAt,
  });
  const meta: RouterMeta = {
    modelUsed: outcome.model.id,
    cost: account.costUsd,
    latencyMs: round(performance.now() - state.startedAt),
    carbonGrams: account.carbonGrams,
    embodiedCarbonGrams: account.embodiedCarbonGrams,
    routerDecision: routed.strategy,
    routerId: routed.router.id,
    requestId: request.id,
    provider: outcome.model.provider,
    usageEstimated: account.usage.estimated,
    timeToFirstTokenMs: round(firstAt - state.startedAt),
    attempts: attemptsForMeta(outcome.attempts),
    routing: routed.routing,
  };
  Object.assign(state, {
    model: outcome.model.id,
    promptTokens: account.usage.promptTokens,
    completionTokens: account.usage.completionTokens,
    costUsd: account.costUsd,
    carbonGrams: account.carbonGrams,
    attempts: outcome.attempts.length,
  });
  // The stream's real cost (its usage, or counted tokens) is charged before its last event.
  await chargeQuietly(deps.budgets, state.key?.id, routed.router.id, account.costUsd, (error) => request.log.warn({ err: error }, 'budget charge failed'));

  if (failure !== undefined) {
    // A stream that broke after bytes were sent ends with an error event, never silently.
    await write(encoder.fail(failure, meta));
    deps.usage.record(usageRecordFrom(request, failure.status, failure.code));
  } else {
    await write(encoder.end({ finishReason, usage: account.usage, meta }));
    deps.usage.record(usageRecordFrom(request, 200, null));
  }
  state.recorded = true;
  raw.end();
}

function streamFailure(error: unknown): GatewayError {
  if (error instanceof UpstreamError && error.kind === 'aborted') {
    return new GatewayError(499, 'invalid_request_error', 'client_closed_request', 'The client closed the connection.');
  }
  const message = error instanceof Error ? error.message : 'unknown error';
  return new GatewayError(502, 'upstream_error', 'upstream_stream_error', `The model's stream broke after it had started: ${message}`);
}
