import type { MaybePromise } from '../lib/maybe-promise.js';

/**
 * The one primitive every rate limit is built on: a strict sliding log. An
 * admission adds an entry (id, time, weight) to each subject's log; a check
 * passes when the weights of the entries younger than the window, plus the new
 * weight, stay within the limit. So "N per minute" means at most N in ANY
 * 60-second span: not clock-aligned buckets, not a refilling bucket.
 *
 * Requests per minute are weight 1; tokens per minute weigh the estimated
 * tokens (corrected later with `adjust`); a concurrency cap is a log whose
 * entries are removed (`release`) when the request ends, with a long window
 * acting as a lease so a crashed instance's entries expire. An id is admitted
 * once per subject (one per request).
 */
export interface WindowCheck {
  /** e.g. `key:<id>:rpm`. */
  readonly subject: string;
  readonly limit: number;
  readonly weight: number;
  readonly windowMs: number;
}

export interface WindowResult {
  readonly subject: string;
  readonly limit: number;
  /** Weight in the window after this admission (before it, when refused). */
  readonly used: number;
  /** Until every entry now in the window has left it (OpenAI's `x-ratelimit-reset-*`). */
  readonly resetMs: number;
  /** Refused checks: until enough weight leaves the window for this request; `Infinity` when its weight alone is over the limit. 0 otherwise. */
  readonly retryAfterMs: number;
  readonly allowed: boolean;
}

export interface WindowAdmission {
  /** Every check passed, and the entry was added to every subject; otherwise to none. */
  readonly allowed: boolean;
  readonly results: readonly WindowResult[];
  /** Set when the limits cannot be checked safely (Redis just went down): refuse with 503 and retry after this many ms. */
  readonly unavailableMs?: number;
}

/** One entry of a log, as an instance remembers its own admissions. */
export interface WindowEntry {
  readonly subject: string;
  readonly id: string;
  readonly at: number;
  readonly weight: number;
  readonly windowMs: number;
}

/** The in-process store answers synchronously (no promise layer on the hot path); Redis-backed ones with promises. */
export interface WindowStore {
  /** All-or-nothing admission of `id` against every check, at `now`. */
  admit(id: string, checks: readonly WindowCheck[], now: number): MaybePromise<WindowAdmission>;
  /**
   * Removes the entry (a finished request's concurrency slot, or a refused request's earlier admission). `at`, when
   * known, is the `now` it was admitted at: the in-process store finds it by time instead of walking its log.
   */
  release(id: string, subjects: readonly string[], at?: number): MaybePromise<void>;
  /** Sets the entry's weight, if it is still in the log (real token usage after the call); `at` as for release. */
  adjust(id: string, subject: string, weight: number, at?: number): MaybePromise<void>;
  /**
   * Forgets every entry whose window has passed. A log drops them itself only when its subject is next admitted, so a
   * process that went quiet after a load would keep a busy key's whole last window (an object per request) until then.
   * Stores that keep nothing in this process have none.
   *
   * Returns when the entries still held will have left their windows (ms from `now`), so that an idle process can let
   * them go then too; undefined when it holds too few to be worth a collection (under 10,000 entries, about 0.6 MiB).
   */
  dropExpired?(now: number): number | undefined;
}
