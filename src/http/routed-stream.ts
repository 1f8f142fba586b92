import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountCall } from '../accounting/call-accounting.js';
import { chargeQuietly } from '../limits/budget-guard.js';
import type { GatewayError } from '../lib/errors.js';
import type { FinishReason, StreamPart, Usage } from '../providers/contract.js';
import type { ModelInfo } from '../routing/catalog.js';
import { streamRoute } from '../routing/route-and-call.js';
import type { AppDependencies } from './dependencies.js';
import { openEventStream, relayPartsThen, type EventStream, type RelayedStream } from './event-stream.js';
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
 *
 * Resolves once the stream has started: its end (accounting, the last events, the usage record) runs from the
 * relay's callback, so neither this function nor the route's handlers above it stay suspended with their frames for
 * as long as the stream is held (thousands of held streams; docs/performance.md).
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
  const encoder = createEncoder(outcome.model);
  const stream = openEventStream(request, reply, outcome.model.id);
  await stream.write(encoder.start());
  relayPartsThen(outcome.parts, (part) => encoder.part(part), stream, "The model's stream", false, (relayed) => {
    endRoutedStream(request, routed, deps, outcome, encoder, stream, relayed).catch((error: unknown) => {
      // Nothing above can catch it any more: the stream's head and parts are out. Its end must not be lost silently,
      // nor its usage record.
      request.log.error({ err: error }, 'ending a stream failed');
      if (!request.gateway.recorded) {
        request.gateway.recorded = true;
        deps.usage.record(usageRecordFrom(request, 500, 'internal_error'));
      }
      stream.end([]);
    });
  });
}

type StreamOutcome = Awaited<ReturnType<typeof streamRoute>>;

/** Accounts the finished (or broken) stream, charges it, writes its last events and its usage record. */
async function endRoutedStream(
  request: FastifyRequest,
  routed: RoutedRequest,
  deps: AppDependencies,
  outcome: StreamOutcome,
  encoder: StreamEncoder,
  stream: EventStream,
  { generated, finishReason, usage, failure }: RelayedStream,
): Promise<void> {
  const state = request.gateway;
  const { firstAt } = outcome;
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
    deps.usage.record(usageRecordFrom(request, failure.status, failure.code));
    state.recorded = true;
    stream.end(encoder.fail(failure, meta));
  } else {
    deps.usage.record(usageRecordFrom(request, 200, null));
    state.recorded = true;
    stream.end(encoder.end({ finishReason, usage: account.usage, meta }));
  }
}
