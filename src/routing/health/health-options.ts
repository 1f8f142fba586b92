/**
 * How model health judges models and providers. Every field has a default; the
 * operator changes them through the MODELPORT_BREAKER_* variables (config.ts).
 */
export interface HealthOptions {
  /**
   * Circuit breakers and provider back-offs decide availability. Off, every
   * model is always available (fallback still moves past failures) and
   * latency and error rates are still measured.
   * @default true
   */
  readonly enabled: boolean;
  /** Length of the sliding window error rates are computed over, ms. @default 60000 */
  readonly windowMs: number;
  /** Buckets of the window's ring buffer: its resolution is `windowMs / buckets`. @default 12 */
  readonly buckets: number;
  /** Consecutive retryable failures that open a model's circuit. @default 5 */
  readonly failureThreshold: number;
  /**
   * Error rate over the window (0..1) that opens a circuit, once the window holds
   * at least `minimumRequests` calls. @default 0.5
   */
  readonly errorRateThreshold: number;
  /** Calls the window must hold before its error rate can open a circuit. @default 20 */
  readonly minimumRequests: number;
  /**
   * How long a circuit stays open the first time, ms; each consecutive opening
   * without a successful probe doubles it, up to `maxCooldownMs`. @default 10000
   */
  readonly cooldownMs: number;
  /** Longest cool-down, ms. @default 120000 */
  readonly maxCooldownMs: number;
  /**
   * A half-open circuit's probe that never reports (a lost call) stops blocking
   * other probes after this long, ms. @default 60000
   */
  readonly probeLeaseMs: number;
  /**
   * Longest back-off a provider's 429 `retry-after` may impose on all its models, ms:
   * a provider asking for an hour must not silence it for an hour. @default 60000
   */
  readonly maxRetryAfterMs: number;
  /** Weight of the newest sample in the latency moving averages (0..1]. @default 0.2 */
  readonly latencySmoothing: number;
}

export const defaultHealthOptions: HealthOptions = {
  enabled: true,
  windowMs: 60_000,
  buckets: 12,
  failureThreshold: 5,
  errorRateThreshold: 0.5,
  minimumRequests: 20,
  cooldownMs: 10_000,
  maxCooldownMs: 120_000,
  probeLeaseMs: 60_000,
  maxRetryAfterMs: 60_000,
  latencySmoothing: 0.2,
};
