import type { UsageRequestView } from './dashboard-api-types.js';

/**
 * GET /workspaces/:ws/usage/requests/:id: one request of the request log (docs/dashboard-api.md). Types only: the
 * web app imports them.
 */

/** One attempt, as `_meta.attempts` reported it: the answering one carries the call's tokens, cost and carbon. */
export interface RequestAttemptView {
  readonly model: string;
  readonly outcome: 'ok' | 'failed' | 'skipped';
  /** Why it failed or was skipped (an error code). */
  readonly reason?: string;
  /** The upstream's HTTP status, when it answered with an error. */
  readonly status?: number;
  readonly latencyMs: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly cachedPromptTokens?: number;
  readonly cacheWritePromptTokens?: number;
  readonly reasoningTokens?: number;
  /** USD. */
  readonly cost: number;
  readonly carbonGrams: number;
}

/** What `_meta` said of the call: routing as `_meta.routing`, carbon as `_meta.carbon`, prices as `_meta.prices` (docs/api.md, docs/carbon.md). */
export interface RequestDetailView {
  /** The strategy's decision, the ranked candidates with their reasons and the models dropped. */
  readonly routing: Record<string, unknown> & { readonly candidates?: readonly Record<string, unknown>[] };
  readonly attempts: readonly RequestAttemptView[];
  /** The carbon estimate's inputs and result (`energyWh`, `carbonGrams`, …); null when no model answered. */
  readonly carbon: (Record<string, unknown> & { readonly energyWh?: number; readonly carbonGrams?: number }) | null;
  /** USD per million tokens the call paid; null when no model answered. */
  readonly prices: Record<string, unknown> | null;
}

/** The bodies, when the router logs them: secrets redacted, each capped at the router's `maxBodyBytes`. */
export interface RequestBodiesView {
  /** The client's request body as received (JSON text). */
  readonly request: string | null;
  /** The answer sent (JSON text), or a stream's text. */
  readonly response: string | null;
  /** Either was cut at the size cap. */
  readonly truncated: boolean;
}

export interface RequestLogEntryView {
  readonly request: UsageRequestView;
  /** Null for a request that failed before it was routed (no router, a refused key, an invalid body, a budget). */
  readonly detail: RequestDetailView | null;
  /** Null when none are kept: body logging off for the router, or the bodies deleted. */
  readonly bodies: RequestBodiesView | null;
  /** The bodies were kept and the router's retention has since deleted them. */
  readonly bodiesExpired: boolean;
}
