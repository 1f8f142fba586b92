import type { Availability } from '../routing-contract.js';
import type { HealthOptions } from './health-options.js';
import { errorRateOf, type WindowTotals } from './sliding-window.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export type BreakerOptions = Pick<
  HealthOptions,
  'failureThreshold' | 'errorRateThreshold' | 'minimumRequests' | 'cooldownMs' | 'maxCooldownMs' | 'probeLeaseMs'
>;

/**
 * One model's circuit breaker.
 *
 * - closed: calls go through. `failureThreshold` consecutive retryable failures,
 *   or an error rate of at least `errorRateThreshold` over a window holding at
 *   least `minimumRequests` calls, open it.
 * - open: no call until the cool-down ends: `cooldownMs`, doubled for each
 *   consecutive opening (a failed probe re-opens), at most `maxCooldownMs`.
 * - half-open: after the cool-down, exactly one call at a time is let through as
 *   the probe. Its success closes the circuit (and resets the cool-down), its
 *   failure opens it again. A probe that never reports frees the slot after
 *   `probeLeaseMs`.
 *
 * Results of calls let through before the circuit opened may arrive late: while
 * open they are ignored; while half-open any success closes and any failure
 * re-opens, since it is news about the model either way.
 * Time is given by the caller, on any monotonic clock in milliseconds.
 */
export class CircuitBreaker {
  readonly #options: BreakerOptions;
  #open = false;
  #openUntil = 0;
  /** Consecutive openings without a successful probe; sets the cool-down. */
  #openings = 0;
  #consecutiveFailures = 0;
  /** While a probe is out: when its lease ends. */
  #probeUntil: number | undefined;

  constructor(options: BreakerOptions) {
    this.#options = options;
  }

  state(now: number): BreakerState {
    if (!this.#open) return 'closed';
    return now < this.#openUntil ? 'open' : 'half-open';
  }

  /** Consecutive retryable failures since the last success or opening. */
  get consecutiveFailures(): number {
    return this.#consecutiveFailures;
  }

  /** Pure: whether a call could go through now. */
  availability(now: number): Availability {
    switch (this.state(now)) {
      case 'closed':
        return { available: true, probe: false };
      case 'open':
        return { available: false, reason: 'circuit_open', until: this.#openUntil };
      case 'half-open':
        return this.#probeOut(now) ? { available: false, reason: 'probe_in_flight', until: now } : { available: true, probe: true };
    }
  }

  /** Like `availability`, but a half-open circuit hands its one probe to this caller. */
  admit(now: number): Availability {
    const availability = this.availability(now);
    if (availability.available && availability.probe) this.#probeUntil = now + this.#options.probeLeaseMs;
    return availability;
  }

  /** A call that says nothing about the model ended: a probe's slot is free again. */
  release(): void {
    this.#probeUntil = undefined;
  }

  /** @returns true when this success closed the circuit */
  onSuccess(now: number): boolean {
    this.#consecutiveFailures = 0;
    if (this.state(now) !== 'half-open') return false;
    this.#open = false;
    this.#openings = 0;
    this.#probeUntil = undefined;
    return true;
  }

  /**
   * A retryable failure. `window` holds the model's calls, this one included.
   * @returns true when this failure opened the circuit
   */
  onFailure(now: number, window: WindowTotals): boolean {
    const state = this.state(now);
    if (state === 'open') return false;
    if (state === 'half-open') {
      this.#trip(now);
      return true;
    }
    this.#consecutiveFailures += 1;
    const { failureThreshold, errorRateThreshold, minimumRequests } = this.#options;
    const tooMany = this.#consecutiveFailures >= failureThreshold;
    const tooOften = window.requests >= minimumRequests && errorRateOf(window) >= errorRateThreshold;
    if (!tooMany && !tooOften) return false;
    this.#trip(now);
    return true;
  }

  /** When an open circuit may let a probe through; meaningless while closed. */
  get openUntil(): number {
    return this.#openUntil;
  }

  /**
   * Another instance opened this model's circuit until `until`: stay shut until
   * the same time (never shorter than an opening of its own). After it, this
   * instance probes on its own, as after any opening.
   * @returns true when it changed anything
   */
  adoptOpening(until: number, now: number): boolean {
    if (until <= now || (this.#open && this.#openUntil >= until)) return false;
    if (!this.#open) this.#openings += 1;
    this.#open = true;
    this.#openUntil = until;
    this.#consecutiveFailures = 0;
    this.#probeUntil = undefined;
    return true;
  }

  #trip(now: number): void {
    const cooldown = Math.min(this.#options.cooldownMs * 2 ** this.#openings, this.#options.maxCooldownMs);
    this.#open = true;
    this.#openings += 1;
    this.#openUntil = now + cooldown;
    this.#consecutiveFailures = 0;
    this.#probeUntil = undefined;
  }

  #probeOut(now: number): boolean {
    return this.#probeUntil !== undefined && now < this.#probeUntil;
  }
}
