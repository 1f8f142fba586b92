import { GatewayError, errors } from '../lib/errors.js';
import { ClientAbort, type ClientSignal } from '../lib/client-abort.js';
import { UpstreamError, type ChatModel } from '../providers/contract.js';
import type { ModelInfo } from '../catalog/catalog.js';
import type { Availability, LatencySample, ModelHealth } from './routing-contract.js';

export interface Attempt {
  readonly model: string;
  readonly outcome: 'ok' | 'failed' | 'skipped';
  readonly reason?: string;
  readonly status?: number;
  readonly latencyMs: number;
}

export interface FallbackResult<T> {
  readonly value: T;
  readonly model: ModelInfo;
  readonly attempts: readonly Attempt[];
}

/** What each call is given. */
export interface AttemptContext {
  /**
   * Aborts when the client goes away, or when the request's deadline passes
   * before the call resolved. Once it resolved (a stream's first part), only the
   * client can abort it: the deadline bounds the search for an answer, not a
   * long stream that has started.
   */
  readonly signal: ClientSignal;
}

/** A model client fallback can call: a chat model, or an embedding model. */
export interface ModelClient {
  readonly provider: string;
  readonly modelId: string;
}

/** Model health as fallback uses it; `M` is the kind of model client called. */
export interface FallbackHealth<M extends ModelClient = ChatModel> {
  readonly state: ModelHealth;
  /** The health's clock (epoch ms). */
  readonly now: () => number;
  /**
   * Which health a call reports to: an owner's own credentials keep theirs apart
   * (routing/health/health-keys.ts). @default the model id
   */
  readonly keyOf?: ((info: ModelInfo, model: M) => string) | undefined;
}

export interface FallbackOptions<T = unknown, M extends ModelClient = ChatModel> {
  /** At most this many upstream calls per request. @default 3 (MODELPORT_MAX_ATTEMPTS) */
  readonly maxAttempts: number;
  /** Measures attempts' latency (ms, monotonic). */
  readonly now: () => number;
  /**
   * On the `now` clock: no call starts after it, and a call still unresolved then
   * is aborted and ends the search (503). @default none
   */
  readonly deadlineAt?: number | undefined;
  /** The client's signal: its abort ends the search at once (499), never falls back. */
  readonly signal?: ClientSignal | undefined;
  /** Skips models health calls unavailable, and reports every call to it. @default none: nothing skipped or recorded */
  readonly health?: FallbackHealth<M> | undefined;
  /** What a resolved call says about the model's latency. @default its duration only */
  readonly measure?: ((value: T, elapsedMs: number) => LatencySample) | undefined;
}

const DEADLINE_REASON = "the request's deadline passed";
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls the candidates best-first until one answers.
 *
 * - A model is called at most once, even when the list repeats it.
 * - A model health calls unavailable (circuit open, provider backing off after a
 *   429) is skipped without a call, with the reason in the attempts. When every
 *   candidate is unavailable, the answer is 503 at once, with `Retry-After` set
 *   to when the first may be available again: the breaker exists to fail fast,
 *   and a half-open circuit's probe is what finds a recovered model.
 * - Retryable upstream failures (5xx, 429, timeouts, refused connections, our
 *   credentials rejected) move on to the next model; a request the upstream calls
 *   invalid does not, since every model would refuse it too; a client that left
 *   ends it (499).
 * - At most `maxAttempts` calls; none starts after the deadline, and one still
 *   unresolved at the deadline is aborted. The rest are listed as skipped.
 *
 * Every attempt is reported, skipped ones included: a fallback is never a
 * silent surprise in cost. `resolve` gives the router owner's models (their
 * own keys first, then the server's).
 */
export async function callWithFallback<T, M extends ModelClient = ChatModel>(
  candidates: readonly ModelInfo[],
  resolve: (provider: string, model: string) => M | undefined,
  options: FallbackOptions<T, M>,
  call: (model: M, info: ModelInfo, attempt: AttemptContext) => Promise<T>,
): Promise<FallbackResult<T>> {
  const attempts: Attempt[] = [];
  const seen = new Set<string>();
  const health = options.health;
  /** When each skipped-as-unavailable model may be available again, on the health's clock. */
  const availableAgain: number[] = [];
  let calls = 0;
  let deadlinePassed = false;

  for (const info of candidates) {
    if (seen.has(info.id)) continue;
    seen.add(info.id);
    if (!deadlinePassed && options.deadlineAt !== undefined && options.now() >= options.deadlineAt) deadlinePassed = true;
    if (deadlinePassed) {
      attempts.push(skipped(info, DEADLINE_REASON));
      continue;
    }
    const model = resolve(info.provider, info.model);
    if (model === undefined) {
      attempts.push(skipped(info, `provider "${info.provider}" is not configured on this server or for this owner`));
      continue;
    }
    if (calls >= options.maxAttempts) {
      attempts.push(skipped(info, 'attempt limit reached'));
      continue;
    }
    const report = healthReport(health, info, model);
    const admission = report.admit();
    if (!admission.available) {
      attempts.push(skipped(info, unavailableReason(admission, info)));
      availableAgain.push(admission.until);
      continue;
    }
    if (options.signal?.aborted === true) {
      report.release();
      throw withAttempts(clientClosed('The client went away.'), attempts);
    }

    calls += 1;
    const outcome = await attempt(info, model, options, call);
    const latencyMs = round(outcome.elapsedMs);
    if (outcome.kind === 'ok') {
      report.success(options.measure?.(outcome.value, outcome.elapsedMs) ?? { totalMs: outcome.elapsedMs });
      attempts.push({ model: info.id, outcome: 'ok', latencyMs });
      return { value: outcome.value, model: info, attempts };
    }
    if (outcome.kind === 'deadline') {
      // The budget ran out: that says as much about the models tried before as about this one.
      report.release();
      attempts.push({ model: info.id, outcome: 'failed', reason: `cut off: ${DEADLINE_REASON}`, latencyMs });
      deadlinePassed = true;
      continue;
    }
    const error = outcome.error;
    if (!(error instanceof UpstreamError)) {
      report.release();
      throw error;
    }
    report.failure(error);
    attempts.push({
      model: info.id,
      outcome: 'failed',
      reason: error.message,
      ...(error.statusCode !== undefined ? { status: error.statusCode } : {}),
      latencyMs,
    });
    if (!error.isRetryable) throw upstreamToGatewayError(error, attempts);
  }

  const tried = attempts.map((entry) => `${entry.model}: ${entry.reason ?? entry.outcome}`).join('; ');
  const detail = `${deadlinePassed ? "The request's deadline passed. " : ''}${tried === '' ? '' : `Tried ${tried}.`}`;
  throw withAttempts(unavailable(detail, retryAfterSeconds(availableAgain, health)), attempts);
}

type AttemptOutcome<T> =
  | { readonly kind: 'ok'; readonly value: T; readonly elapsedMs: number }
  | { readonly kind: 'failed'; readonly error: unknown; readonly elapsedMs: number }
  | { readonly kind: 'deadline'; readonly elapsedMs: number };

/** One call, aborted if the deadline passes before it resolves. */
async function attempt<T, M extends ModelClient>(
  info: ModelInfo,
  model: M,
  options: FallbackOptions<T, M>,
  call: (model: M, info: ModelInfo, attempt: AttemptContext) => Promise<T>,
): Promise<AttemptOutcome<T>> {
  // A ClientAbort, not an AbortController (about 1.1 KiB, an EventTarget with two SafeMaps; a held stream keeps it).
  // The client's abort is linked by hand, and stays linked after the call resolved (a stream goes on): AbortSignal.any
  // costs a GC-tracked signal per attempt (docs/performance.md). The client's signal lives only as long as its request.
  const deadline = new ClientAbort();
  const client = options.signal;
  const onClientAbort = () => deadline.abort(client?.reason);
  if (client?.aborted === true) deadline.abort(client.reason);
  else client?.addEventListener('abort', onClientAbort, { once: true });
  const signal: ClientSignal = deadline;
  const delayMs = options.deadlineAt === undefined ? undefined : Math.max(0, options.deadlineAt - options.now());
  // Node fires a timer of more than 2^31 - 1 ms at once: a deadline that far away is no deadline.
  const timer =
    delayMs === undefined || delayMs > MAX_TIMER_MS ? undefined : setTimeout(() => deadline.abort(new DOMException(DEADLINE_REASON, 'TimeoutError')), delayMs);
  const started = options.now();
  try {
    const value = await call(model, info, { signal });
    return { kind: 'ok', value, elapsedMs: options.now() - started };
  } catch (error) {
    const elapsedMs = options.now() - started;
    // The deadline's abort reaches the provider as an abort: tell it apart from the client's.
    if (deadline.aborted && options.signal?.aborted !== true) return { kind: 'deadline', elapsedMs };
    return { kind: 'failed', error, elapsedMs };
  } finally {
    clearTimeout(timer);
  }
}

/** One candidate's conversation with health: ask before the call, then exactly one report after it. */
interface HealthReport {
  admit(): Availability;
  success(sample: LatencySample): void;
  failure(error: UpstreamError): void;
  release(): void;
}

const AVAILABLE: Availability = { available: true, probe: false };
const UNTRACKED: HealthReport = { admit: () => AVAILABLE, success: () => undefined, failure: () => undefined, release: () => undefined };

function healthReport<M extends ModelClient>(health: FallbackHealth<M> | undefined, info: ModelInfo, model: M): HealthReport {
  if (health === undefined) return UNTRACKED;
  const { state, now } = health;
  const key = health.keyOf?.(info, model) ?? info.id;
  return {
    admit: () => state.admit(key, now()),
    success: (sample) => state.recordSuccess(key, sample, now()),
    failure: (error) => state.recordFailure(key, error, now()),
    release: () => state.release(key, now()),
  };
}

function skipped(info: ModelInfo, reason: string): Attempt {
  return { model: info.id, outcome: 'skipped', reason, latencyMs: 0 };
}

function unavailableReason(availability: Availability & { available: false }, info: ModelInfo): string {
  switch (availability.reason) {
    case 'circuit_open':
      return `circuit open after repeated failures, until ${isoTime(availability.until)}`;
    case 'probe_in_flight':
      return 'circuit half-open: another request is probing the model';
    case 'provider_backoff':
      return `provider "${info.provider}" asked to back off until ${isoTime(availability.until)}`;
  }
}

function isoTime(epochMs: number): string {
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? String(epochMs) : date.toISOString();
}

/** Whole seconds until the first skipped model may be available again; 1 when none was skipped for health. */
function retryAfterSeconds(availableAgain: readonly number[], health: Pick<FallbackHealth<ModelClient>, 'now'> | undefined): number {
  if (availableAgain.length === 0 || health === undefined) return 1;
  const waitMs = Math.min(...availableAgain) - health.now();
  return Math.max(1, Math.ceil(waitMs / 1000));
}

function unavailable(detail: string, retryAfter: number): GatewayError {
  const error = errors.allModelsUnavailable(detail);
  return new GatewayError(error.status, error.type, error.code, error.message, {
    param: error.param,
    headers: { ...error.headers, 'retry-after': String(retryAfter) },
  });
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function clientClosed(message: string): GatewayError {
  return new GatewayError(499, 'invalid_request_error', 'client_closed_request', message);
}

function upstreamToGatewayError(error: UpstreamError, attempts: readonly Attempt[]): GatewayError {
  if (error.kind === 'aborted') return withAttempts(clientClosed(error.message), attempts);
  const status = error.statusCode ?? 502;
  if (status >= 400 && status < 500) {
    return withAttempts(
      new GatewayError(status === 413 ? 413 : 400, 'invalid_request_error', 'upstream_rejected_request', `${error.provider} rejected the request: ${error.message}`),
      attempts,
    );
  }
  return withAttempts(new GatewayError(502, 'upstream_error', 'upstream_error', `${error.provider} failed: ${error.message}`), attempts);
}

/** A routing failure; the attempts travel with it so the usage record and logs can show them. */
export class RoutingFailure extends GatewayError {
  readonly attempts: readonly Attempt[];
  constructor(error: GatewayError, attempts: readonly Attempt[]) {
    super(error.status, error.type, error.code, error.message, { param: error.param, headers: error.headers });
    this.attempts = attempts;
  }
}

function withAttempts(error: GatewayError, attempts: readonly Attempt[]): RoutingFailure {
  return new RoutingFailure(error, [...attempts]);
}
