import type { FastifyReply, FastifyRequest, onErrorHookHandler, onRequestHookHandler, onResponseHookHandler } from 'fastify';
import { GatewayError } from '../lib/errors.js';
import { thenMaybe, type MaybePromise } from '../lib/maybe-promise.js';
import { releaseCall, settleCall, type SettlementDependencies } from '../pipeline/call-settlement.js';
import { createCallState, type CallState } from '../pipeline/call-state.js';
import { admitKey, type PipelineDependencies } from '../pipeline/routed-call.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's routed call: what the pipeline learns of it, read by its usage record. */
    gateway: CallState;
  }
}

/**
 * The Fastify side of a call's life: its state starts with the request, its
 * settle-up runs when the answer is written (or from the pipeline, for streams
 * and clients that left), and its limits are freed when the connection closes.
 * Synchronous (`done`): nothing here waits, and an async hook costs a promise
 * and a microtask turn per request.
 */

/** Starts the request's call and names it in `x-request-id`. */
export const startCall: onRequestHookHandler = (request, reply, done) => {
  request.gateway = createCallState(request.id, performance.now());
  void reply.header('x-request-id', request.id);
  done();
};

/**
 * Admits the call against `limitKey`'s rate limits and frees them when the connection closes: 'close' comes for
 * every answer, streamed or not, and for clients that leave.
 */
export function admitCall(request: FastifyRequest, reply: FastifyReply, limitKey: ApiKeyRecord, deps: Pick<PipelineDependencies, 'rateLimiter'>): MaybePromise<void> {
  const call = request.gateway;
  return thenMaybe(admitKey(call, limitKey, deps, reply), () => {
    reply.raw.once('close', () => releaseCall(call, deps));
  });
}

/** Settles the call with the status its answer was written with (streams and clients that left settle earlier). */
export function settleOnResponse(deps: SettlementDependencies): onResponseHookHandler {
  return (request, reply, done) => {
    const call = request.gateway;
    if (call !== null) settleCall(call, reply.statusCode, call.errorCode, deps);
    done();
  };
}

/** Keeps the error code of a failed request for its usage record. */
export const noteErrorCode: onErrorHookHandler = (request, _reply, error, done) => {
  if (request.gateway !== null) request.gateway.errorCode = error instanceof GatewayError ? error.code : 'error';
  done();
};
