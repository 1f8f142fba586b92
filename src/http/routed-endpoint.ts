import type { FastifyReply, FastifyRequest } from 'fastify';
import { ClientAbort } from '../lib/client-abort.js';
import { errors } from '../lib/errors.js';
import { settleCall } from '../pipeline/call-settlement.js';
import type { CallState } from '../pipeline/call-state.js';
import { completeCall, prepareCall, runCall, type PreparedCall } from '../pipeline/routed-call.js';
import { finishCallStream, openCallStream } from '../pipeline/routed-stream.js';
import type { RouterMeta } from '../pipeline/router-meta.js';
import { REQUEST_LOG_DEFAULTS } from '../storage/router-settings.js';
import { runAgentCall } from './agent-run.js';
import type { AppDependencies } from './dependencies.js';
import { openEventStream, relayPartsThen } from './event-stream.js';
import type { AnswerIds, DecodedRequest, SurfaceAdapter } from './surface-adapter.js';

/** Options of a surface's routes. */
export interface RoutedEndpointOptions {
  /**
   * `model: "agent:<name>"` in the body runs the key owner's agent (unless the path names a router).
   * @default false: an agent name is a router that is not found
   */
  readonly agents?: boolean;
  /** Runs before the call is prepared, once the body is decoded: another authorisation than the key's (the dashboard's). */
  readonly authorize?: (request: FastifyRequest, reply: FastifyReply, decoded: DecodedRequest) => Promise<void>;
}

/**
 * The one handler every routed surface's routes share: decode the surface's
 * request, run it through the pipeline (prepare → call with fallback, whole or
 * streamed), encode the answer in the surface's format.
 */
export function routedHandler<Body, Decoded extends DecodedRequest>(adapter: SurfaceAdapter<Body, Decoded>, deps: AppDependencies, options: RoutedEndpointOptions = {}) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const decoding = adapter.decode(request.body as Body, { ownerId: request.gateway.key?.ownerId, keyId: request.gateway.key?.id, requestId: request.id });
    const decoded = decoding instanceof Promise ? await decoding : decoding;
    if (options.authorize !== undefined) await options.authorize(request, reply, decoded);
    // The path wins over the body (spec 4.1 rule 2).
    const pathRouter = (request.params as { routerId?: string }).routerId;
    if (options.agents === true && pathRouter === undefined && typeof decoded.model === 'string' && decoded.model.startsWith('agent:')) {
      return runAgentCall(request, reply, adapter, decoded, deps);
    }
    const call = request.gateway;
    const prepared = await prepareCall(
      call,
      { chatRequest: decoded.chatRequest, target: pathRouter ?? decoded.model, idPrefix: adapter.idPrefix, signal: abortOnClose(reply), sink: reply, log: request.log },
      deps,
    );
    const ids: AnswerIds = { id: prepared.completionId, created: prepared.created, requestId: request.id, estimatedPromptTokens: prepared.estimatedPromptTokens };
    return runCall(call, prepared, deps, async () => {
      if (decoded.stream) return streamRoutedCall(request, reply, prepared, deps, adapter, ids, decoded);
      const { result, model, usage, meta } = await completeCall(call, prepared, deps);
      const answer = adapter.encode({ ids, model: model.id, message: result.message, finishReason: result.finishReason, usage, systemFingerprint: result.systemFingerprint, meta }, decoded);
      keepBodies(call, prepared, request.body, answer);
      return answer;
    });
  };
}

/** A POST with no body at all (no Content-Type, no length) never reaches the JSON parser: same answer as an empty one. */
export function requireBody(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  done(request.body === undefined ? errors.invalidJson('The request body is empty; send a JSON object.') : undefined);
}

/** Aborts the upstream call when the client goes away before its answer was written. */
export function abortOnClose(reply: FastifyReply): ClientAbort {
  const abort = new ClientAbort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort;
}

/**
 * Streams a routed call in the surface's format. Resolves once the stream has started: its end (accounting, the
 * settle-up, the last events) runs from the relay's callback, so neither this function nor the handler above it
 * stays suspended with its frame for as long as the stream is held (thousands of held streams; docs/performance.md).
 */
async function streamRoutedCall<Body, Decoded extends DecodedRequest>(
  request: FastifyRequest,
  reply: FastifyReply,
  prepared: PreparedCall,
  deps: AppDependencies,
  adapter: SurfaceAdapter<Body, Decoded>,
  ids: AnswerIds,
  decoded: Decoded,
): Promise<void> {
  const call = request.gateway;
  const started = await openCallStream(call, prepared, deps);
  const encoder = adapter.streamEncoder<RouterMeta>(ids, started.model, decoded);
  const stream = openEventStream(request, reply, started.model.id);
  await stream.write(encoder.start());
  const logBodies = prepared.router.settings.requestLog?.bodies === true;
  relayPartsThen(started.parts, (part) => encoder.part(part), stream, "The model's stream", logBodies, (relayed) => {
    // A stream's answer is logged as the text it carried.
    keepBodies(call, prepared, request.body, relayed.generated);
    finishCallStream(call, prepared, started, relayed, deps)
      // A stream that broke after bytes were sent ends with an error event, never silently.
      .then((end) => (relayed.failure === undefined ? encoder.end(end) : encoder.fail(relayed.failure, end.meta)))
      .then(
        (events) => stream.end(events),
        (error: unknown) => {
          // Nothing above can catch it any more: the stream's head and parts are out. Its end must not be lost
          // silently, nor its usage record.
          request.log.error({ err: error }, 'ending a stream failed');
          settleCall(call, 500, 'internal_error', deps);
          stream.end([]);
        },
      );
  });
}

/** The request as received and the answer sent, kept for the request log when the router logs bodies (redacted at write). */
function keepBodies(call: CallState, prepared: PreparedCall, requestBody: unknown, response: unknown): void {
  const log = prepared.router.settings.requestLog;
  if (log?.bodies !== true) return;
  call.bodies = {
    request: requestBody,
    response,
    maxBytes: log.maxBodyBytes ?? REQUEST_LOG_DEFAULTS.maxBodyBytes,
    retentionDays: log.retentionDays ?? REQUEST_LOG_DEFAULTS.retentionDays,
  };
}
