import { GatewayError, errors } from '../lib/errors.js';
import { UpstreamError, type ChatModel } from '../providers/contract.js';
import type { ModelResolver } from '../providers/registry.js';
import type { ModelInfo } from './catalog.js';

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

export interface FallbackOptions {
  /** At most this many upstream calls per request. @default 3 */
  readonly maxAttempts: number;
  readonly now: () => number;
}

/**
 * Calls the candidates best-first until one answers. Retryable upstream
 * failures (5xx, 429, timeouts, refused connections, our credentials rejected)
 * move on to the next model; a request the upstream calls invalid does not,
 * since every model would refuse it too. Every attempt is reported.
 * `resolve` gives the router owner's models (their own keys first, then the server's).
 */
export async function callWithFallback<T>(
  candidates: readonly ModelInfo[],
  resolve: ModelResolver,
  options: FallbackOptions,
  call: (model: ChatModel, info: ModelInfo) => Promise<T>,
): Promise<FallbackResult<T>> {
  const attempts: Attempt[] = [];
  let calls = 0;
  for (const info of candidates) {
    const model = resolve(info.provider, info.model);
    if (model === undefined) {
      attempts.push({ model: info.id, outcome: 'skipped', reason: `provider "${info.provider}" is not configured on this server or for this owner`, latencyMs: 0 });
      continue;
    }
    if (calls >= options.maxAttempts) {
      attempts.push({ model: info.id, outcome: 'skipped', reason: 'attempt limit reached', latencyMs: 0 });
      continue;
    }
    calls += 1;
    const started = options.now();
    try {
      const value = await call(model, info);
      attempts.push({ model: info.id, outcome: 'ok', latencyMs: Math.round((options.now() - started) * 100) / 100 });
      return { value, model: info, attempts };
    } catch (error) {
      const latencyMs = Math.round((options.now() - started) * 100) / 100;
      if (!(error instanceof UpstreamError)) throw error;
      attempts.push({
        model: info.id,
        outcome: 'failed',
        reason: error.message,
        ...(error.statusCode !== undefined ? { status: error.statusCode } : {}),
        latencyMs,
      });
      if (!error.isRetryable) throw upstreamToGatewayError(error, attempts);
    }
  }
  const tried = attempts.map((attempt) => `${attempt.model}: ${attempt.reason ?? attempt.outcome}`).join('; ');
  throw withAttempts(errors.allModelsUnavailable(tried === '' ? '' : `Tried ${tried}.`), attempts);
}

function upstreamToGatewayError(error: UpstreamError, attempts: readonly Attempt[]): GatewayError {
  if (error.kind === 'aborted') return withAttempts(new GatewayError(499, 'invalid_request_error', 'client_closed_request', error.message), attempts);
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
