import type { FastifyRequest } from 'fastify';
import type { RateTicket } from '../limits/rate-limits.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { NewUsageRecord } from '../storage/schema.js';

/** What a request learns on its way through the gateway; read by the usage record. */
export interface RequestState {
  key: ApiKeyRecord | undefined;
  /** performance.now() when the request arrived. */
  startedAt: number;
  routerId: string | undefined;
  model: string | undefined;
  streamed: boolean;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  carbonGrams: number;
  attempts: number;
  /** The error code the request failed with, if it did. */
  errorCode: string | null;
  /** Set once the usage record is queued, so it is never queued twice. */
  recorded: boolean;
  /** The request's rate-limit admissions (released and corrected when it ends). */
  rateTicket?: RateTicket | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    gateway: RequestState;
  }
}

export function createRequestState(startedAt: number): RequestState {
  return {
    key: undefined,
    startedAt,
    routerId: undefined,
    model: undefined,
    streamed: false,
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    carbonGrams: 0,
    attempts: 0,
    errorCode: null,
    recorded: false,
  };
}

/** The usage record of a finished request, from its state. */
export function usageRecordFrom(request: FastifyRequest, status: number, errorCode: string | null): NewUsageRecord {
  const state = request.gateway;
  return {
    id: request.id,
    created_at: Date.now(),
    owner_id: state.key?.ownerId ?? null,
    key_id: state.key?.id ?? null,
    router_id: state.routerId ?? null,
    model: state.model ?? null,
    status,
    error_code: errorCode,
    streamed: state.streamed ? 1 : 0,
    prompt_tokens: state.promptTokens,
    completion_tokens: state.completionTokens,
    total_tokens: state.promptTokens + state.completionTokens,
    cost_usd: state.costUsd,
    latency_ms: Math.round((performance.now() - state.startedAt) * 100) / 100,
    carbon_grams: state.carbonGrams,
    attempts: state.attempts,
  };
}
