import type { UsageRecordInput } from '../accounting/usage-row.js';
import type { RateTicket } from '../limits/rate-limits.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { NewRoutingSample } from '../storage/schema.js';

/** What the request log keeps of a routed call's `_meta` (docs/dashboard.md); carbon and prices are null when no model answered. */
export interface CallDetail {
  readonly routerId: string;
  readonly routing: unknown;
  readonly attempts: readonly unknown[];
  readonly carbon: unknown;
  readonly prices: unknown;
}

/** A call's bodies, when its router logs them: the request as received and the answer sent (a stream's text). */
export interface CallBodies {
  readonly request: unknown;
  readonly response: unknown;
  readonly maxBytes: number;
  readonly retentionDays: number;
}

/**
 * What one routed call learns between its admission and its settle-up: who
 * called, which router and model, what it used and cost. The usage record is
 * read from it. Only the pipeline writes `settled` (call-settlement.ts), so a
 * call is recorded and released exactly once whatever ends it.
 */
export interface CallState {
  /** The request's id: the usage record's primary key. */
  readonly requestId: string;
  /** performance.now() when the request arrived: latency and the fallback deadline count from it. */
  readonly startedAt: number;
  key: ApiKeyRecord | undefined;
  routerId: string | undefined;
  model: string | undefined;
  streamed: boolean;
  promptTokens: number;
  completionTokens: number;
  /** Inside promptTokens: read from and written to the provider's cache. */
  cachedPromptTokens: number;
  cacheWritePromptTokens: number;
  /** Inside completionTokens. */
  reasoningTokens: number;
  costUsd: number;
  carbonGrams: number;
  energyWh: number;
  attempts: number;
  /** The error code the call failed with, if it did. */
  errorCode: string | null;
  /** The call's rate-limit admissions, freed and corrected when it ends. */
  rateTicket: RateTicket | undefined;
  /** `auto` routers: the cost of the same tokens on the router's strongest model; null otherwise. */
  counterfactualCostUsd: number | null;
  /** `auto` routers: the prompt's features and the model that answered, written with the usage record. */
  routingSample: NewRoutingSample | undefined;
  /** The call's `_meta` parts for the request log, set where `_meta` is built (or from the attempts of a call no model answered). */
  detail: CallDetail | undefined;
  /** Set only when the router logs bodies. */
  bodies: CallBodies | undefined;
  /** Set by the settle-up: nothing is recorded or released twice. */
  settled: boolean;
}

export function createCallState(requestId: string, startedAt: number): CallState {
  // Every field set here, in one order: one object shape for every request.
  return {
    requestId,
    startedAt,
    key: undefined,
    routerId: undefined,
    model: undefined,
    streamed: false,
    promptTokens: 0,
    completionTokens: 0,
    cachedPromptTokens: 0,
    cacheWritePromptTokens: 0,
    reasoningTokens: 0,
    costUsd: 0,
    carbonGrams: 0,
    energyWh: 0,
    attempts: 0,
    errorCode: null,
    rateTicket: undefined,
    counterfactualCostUsd: null,
    routingSample: undefined,
    detail: undefined,
    bodies: undefined,
    settled: false,
  };
}

/** What a usage record says of one routed call (a request, or one step of an agent run). */
export type CallUsage = UsageRecordInput;

/** A request's usage, from its state, as it ends with `status`. */
export function requestUsage(state: CallState, status: number, errorCode: string | null, createdAt: number): CallUsage {
  return {
    id: state.requestId,
    createdAt,
    ownerId: state.key?.ownerId ?? null,
    keyId: state.key?.id ?? null,
    routerId: state.routerId ?? null,
    model: state.model ?? null,
    status,
    errorCode,
    streamed: state.streamed,
    promptTokens: state.promptTokens,
    completionTokens: state.completionTokens,
    costUsd: state.costUsd,
    latencyMs: roundTo(performance.now() - state.startedAt, 2),
    carbonGrams: state.carbonGrams,
    energyWh: state.energyWh,
    cachedPromptTokens: state.cachedPromptTokens,
    cacheWritePromptTokens: state.cacheWritePromptTokens,
    reasoningTokens: state.reasoningTokens,
    attempts: state.attempts,
    counterfactualCostUsd: state.counterfactualCostUsd,
  };
}

/** Milliseconds as reported in `_meta` and usage records: two decimals. */
export function roundTo(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
