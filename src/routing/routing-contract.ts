import type { UpstreamError } from '../providers/contract.js';
import type { ModelInfo } from '../catalog/catalog.js';

/**
 * The routing engine's contract: strategies rank, health filters and learns,
 * fallback walks the ranking. Each lives in its own module behind these types;
 * none of them knows about HTTP or providers' wire formats.
 */

/**
 * Live latency of one model, learned from real calls (moving averages). Streams
 * measure the time to first token, complete answers the throughput, so a model
 * called only one way has the other half unmeasured: that half is NaN, and
 * readers fall back to the catalog's typical figure for it.
 */
export interface LatencyEstimate {
  /** Time to first token, ms; NaN until a stream of this model has been measured. */
  readonly ttftMs: number;
  /** Output tokens per second once generating; NaN until a complete answer has been measured. */
  readonly tokensPerSecond: number;
  /** Successful calls measured, of either kind. */
  readonly samples: number;
}

/**
 * What one successful call tells about latency. A stream reports when its
 * first part arrived; a complete answer its whole duration and output tokens.
 */
export interface LatencySample {
  /** From sending the request to the first part of the answer. */
  readonly ttftMs?: number | undefined;
  /** From sending the request to the end of the call as fallback saw it. */
  readonly totalMs: number;
  /** Output tokens, when the answer is complete and the provider counted them. */
  readonly completionTokens?: number | undefined;
}

/** Why health says a model cannot be called now. */
export type UnavailableReason =
  /** Its circuit breaker opened after repeated failures and is cooling down. */
  | 'circuit_open'
  /** Its circuit is half-open and another request is the probe. */
  | 'probe_in_flight'
  /** Its provider answered 429 with a retry-after still in the future. */
  | 'provider_backoff';

/** Whether a model may be called now; when not, why and until when (on the health's clock). */
export type Availability =
  | {
      readonly available: true;
      /** True when this call is the one probe of a half-open circuit. */
      readonly probe: boolean;
    }
  | {
      readonly available: false;
      readonly reason: UnavailableReason;
      /** The earliest time it may be available again (for `Retry-After`); `now` when unknown. */
      readonly until: number;
    };

/** What routing may ask about health; implemented in routing/health/. */
export interface ModelHealthView {
  /**
   * False while the model's circuit is open, or its provider asked us to back off
   * (429 retry-after) until a time still in the future. A half-open circuit answers
   * true for exactly one probe at a time.
   */
  isAvailable(modelId: string, now: number): boolean;
  /**
   * `isAvailable` with the reason and the time it may change. A pure query, as
   * `isAvailable` is: neither claims a half-open circuit's probe (see `admit`).
   */
  availability(modelId: string, now: number): Availability;
  /** Undefined until the model has been measured. */
  latency(modelId: string): LatencyEstimate | undefined;
  /** Error rate over the sliding window, 0..1; 0 when unmeasured. */
  errorRate(modelId: string, now: number): number;
}

/**
 * What fallback reports around every upstream call: `admit` before it, then
 * exactly one of `recordSuccess`, `recordFailure` or `release` after it.
 */
export interface HealthRecorder {
  /**
   * Asks to call the model now. Answers as `availability`, except that on a
   * half-open circuit the first caller becomes its one probe (`probe: true`)
   * and the others are refused until the probe reports.
   */
  admit(modelId: string, now: number): Availability;
  recordSuccess(modelId: string, sample: LatencySample, now: number): void;
  /** Only retryable failures count against the model; others just end the call (as `release`). */
  recordFailure(modelId: string, error: UpstreamError, now: number): void;
  /** Ends an admitted call that says nothing about the model (the client left, the request's deadline passed). */
  release(modelId: string, now: number): void;
}

export type ModelHealth = ModelHealthView & HealthRecorder;

/** The settings an owner chooses per router; their stored shape belongs to storage. */
export type { CalibratedAbility, FittedModel, RouterFit, RouterSettings } from '../storage/router-settings.js';
