import type { onErrorHookHandler, onRequestHookHandler, onResponseHookHandler } from 'fastify';
import type { UsageRecorder } from '../accounting/usage-recorder.js';
import { GatewayError } from '../lib/errors.js';
import { createRequestState, usageRecordFrom } from './request-state.js';

/**
 * The hooks that give a request that carries a key exactly one usage record,
 * failures included (streams and agent steps record their own and set
 * `recorded`). Shared by the gateway's routes and the dashboard's playground and
 * agent runs. Synchronous (`done`): nothing here waits, and an async hook costs
 * a promise and a microtask turn per request.
 */

/** Starts the request's state and names it in `x-request-id`. */
export const startRequestState: onRequestHookHandler = (request, reply, done) => {
  request.gateway = createRequestState(performance.now());
  void reply.header('x-request-id', request.id);
  done();
};

/** Queues the request's usage record, unless it has no key or was recorded already. */
export function recordUsageOnResponse(usage: UsageRecorder): onResponseHookHandler {
  return (request, reply, done) => {
    const state = request.gateway;
    if (state !== null && state.key !== undefined && !state.recorded) {
      state.recorded = true;
      usage.record(usageRecordFrom(request, reply.statusCode, state.errorCode));
    }
    done();
  };
}

/** Keeps the error code of a failed request for its usage record. */
export const noteErrorCode: onErrorHookHandler = (request, _reply, error, done) => {
  if (request.gateway !== null) request.gateway.errorCode = error instanceof GatewayError ? error.code : 'error';
  done();
};
