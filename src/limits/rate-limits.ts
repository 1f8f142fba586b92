import { randomBytes } from 'node:crypto';
import { errors } from '../lib/errors.js';
import { flattenString } from '../lib/flat-string.js';
import { thenMaybe, type MaybePromise } from '../lib/maybe-promise.js';
import type { LimitKind, LimiterRejections } from '../observability/metrics.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import type { WindowAdmission, WindowCheck, WindowResult, WindowStore } from './window-store.js';

export interface RateLimitSettings {
  /** Requests per minute of a key without its own (MODELPORT_DEFAULT_RPM). */
  readonly defaultRpm: number;
  /** Tokens per minute of a key without its own (MODELPORT_DEFAULT_TPM); undefined: none. */
  readonly defaultTpm?: number | undefined;
  /** The window "per minute" means (MODELPORT_RATE_WINDOW_MS, shorter only in tests). @default 60000 */
  readonly windowMs?: number;
  /** How long a concurrency slot lasts if its instance dies before releasing it. @default 900000 */
  readonly concurrencyLeaseMs?: number;
  /** Counts refusals (metrics). */
  readonly rejections?: LimiterRejections | undefined;
}

/** One request's admissions, so they can be corrected and released. */
export interface RateTicket {
  readonly id: string;
  /** When the key's limits admitted it, and the router's (so a store finds the entries by time). */
  readonly requestAt: number;
  routedAt: number;
  readonly keyId: string;
  /** Subjects holding this request's entries that are released when it ends (concurrency). */
  readonly slots: string[];
  /** Token subjects, corrected to the real usage when the request ends. */
  readonly tokenSubjects: string[];
  /** Key rpm subject, released again if a later limit refuses the request. */
  readonly requestSubjects: string[];
  /** `x-ratelimit-*` headers for the answer. */
  readonly headers: Record<string, string>;
  finished: boolean;
}

/**
 * Per key and per router, requests and tokens per minute (strict sliding
 * windows) and a per-key cap on requests in flight, over a WindowStore
 * (in process, or Redis with a safe mode). 429 `rate_limit_error` with
 * `Retry-After` and OpenAI's `x-ratelimit-*` headers; 503 while limits cannot be
 * checked safely.
 */
export interface RateLimits {
  /**
   * At the request's start: the key's requests per minute and its concurrency cap.
   * Over the in-process store the answer (or the 429) comes synchronously; over Redis as a promise.
   */
  admitRequest(key: ApiKeyRecord): MaybePromise<RateTicket>;
  /** Once the router and the prompt are known: the key's tokens per minute and the router's limits. Returns the headers to add (synchronously like admitRequest). */
  admitRouted(ticket: RateTicket, key: ApiKeyRecord, router: RouterRecord, estimatedTokens: number): MaybePromise<Record<string, string>>;
  /** When the request ends: corrects token entries to the tokens really used and frees its concurrency slot. */
  finish(ticket: RateTicket, usedTokens: number | undefined): void;
  /**
   * Forgets the entries whose windows have passed (WindowStore.dropExpired), e.g. once the process is idle. Returns in
   * how many ms the entries still held will have passed too (undefined: too few to matter).
   */
  dropExpired(): number | undefined;
}

export function createRateLimits(store: WindowStore, settings: RateLimitSettings, now: () => number, onError: (error: unknown) => void): RateLimits {
  const windowMs = settings.windowMs ?? 60_000;
  const leaseMs = settings.concurrencyLeaseMs ?? 900_000;
  const check = (subject: string, limit: number, weight = 1, window = windowMs): WindowCheck => ({ subject, limit, weight, windowMs: window });
  // A request's entries keep its id for a whole window (480,000 of them for a key at 8,000 req/s). A random 48-bit
  // prefix per process and a counter keep ids unique across a fleet sharing Redis in at most 16 characters (32 bytes
  // flat, against 56 for a UUID); flattened because a concatenation past 12 characters is a rope.
  const idPrefix = randomBytes(6).toString('base64url');
  let idCount = 0;
  const nextId = (): string => flattenString(idPrefix + (idCount++).toString(36));

  const refuse = (admission: WindowAdmission, what: (result: WindowResult) => string, headers: Record<string, string>): never => {
    if (admission.unavailableMs !== undefined) {
      settings.rejections?.rejected('safe_mode', 'key');
      throw errors.rateLimitsUnavailable(Math.ceil(admission.unavailableMs / 1000));
    }
    const refused = admission.results.filter((result) => !result.allowed);
    for (const result of refused) settings.rejections?.rejected(...rejectionOf(result.subject));
    const retryMs = Math.max(...refused.map((result) => result.retryAfterMs));
    const first = refused[0];
    const retry = Number.isFinite(retryMs) ? Math.max(1, Math.ceil(retryMs / 1000)) : undefined;
    const message = `${first === undefined ? 'Rate limit reached.' : what(first)}${retry === undefined ? '' : ` Retry after ${retry} s.`}`;
    throw errors.rateLimited(message, retry === undefined ? headers : { ...headers, ...resetAtRetry(headers, refused, retry), 'retry-after': String(retry) });
  };

  /** A store operation whose failure is only reported; a promise only when the store answered with one. */
  const quietly = (operation: () => MaybePromise<void>): MaybePromise<void> => {
    try {
      const done = operation();
      return done instanceof Promise ? done.catch(onError) : undefined;
    } catch (error) {
      onError(error);
      return undefined;
    }
  };

  return {
    admitRequest(key) {
      const id = nextId();
      const rpm = check(`key:${key.id}:rpm`, key.rpmLimit ?? settings.defaultRpm);
      const checks = [rpm, ...(key.maxConcurrency === undefined ? [] : [check(`key:${key.id}:inflight`, key.maxConcurrency, 1, leaseMs)])];
      const requestAt = now();
      return thenMaybe(store.admit(id, checks, requestAt), (admission): RateTicket => {
        const headers = headersFor(admission.results, 'requests', `key:${key.id}:rpm`);
        if (!admission.allowed) {
          refuse(admission, (result) =>
            result.subject.endsWith(':inflight')
              ? `Too many requests in flight for this API key: at most ${result.limit} at once.`
              : `Rate limit reached for this API key: ${result.limit} requests per minute.`,
          headers);
        }
        return {
          id,
          requestAt,
          routedAt: requestAt,
          keyId: key.id,
          slots: key.maxConcurrency === undefined ? [] : [`key:${key.id}:inflight`],
          tokenSubjects: [],
          requestSubjects: [rpm.subject],
          headers,
          finished: false,
        };
      });
    },

    admitRouted(ticket, key, router, estimatedTokens) {
      const tokens = Math.max(0, Math.ceil(estimatedTokens));
      const tpm = key.tpmLimit ?? settings.defaultTpm;
      const checks = [
        ...(tpm === undefined ? [] : [check(`key:${key.id}:tpm`, tpm, tokens)]),
        ...(router.rpmLimit === undefined ? [] : [check(`router:${router.id}:rpm`, router.rpmLimit)]),
        ...(router.tpmLimit === undefined ? [] : [check(`router:${router.id}:tpm`, router.tpmLimit, tokens)]),
      ];
      if (checks.length === 0) return {};
      const routedAt = now();
      return thenMaybe(store.admit(ticket.id, checks, routedAt), (admission): MaybePromise<Record<string, string>> => {
        const headers = {
          ...(router.rpmLimit === undefined ? {} : headersFor(admission.results, 'requests', `router:${router.id}:rpm`, ticket.headers)),
          ...headersFor(admission.results, 'tokens', tpm === undefined ? `router:${router.id}:tpm` : `key:${key.id}:tpm`),
        };
        if (!admission.allowed) {
          // A refused request does not count against the key's requests either (released before the 429 is thrown).
          return thenMaybe(quietly(() => store.release(ticket.id, ticket.requestSubjects, ticket.requestAt)), () => refuse(admission, (result) => {
            const owner = result.subject.startsWith('router:') ? `router ${router.id}` : 'this API key';
            const unit = result.subject.endsWith(':tpm') ? 'tokens' : 'requests';
            return Number.isFinite(result.retryAfterMs)
              ? `Rate limit reached for ${owner}: ${result.limit} ${unit} per minute.`
              : `Request too large for ${owner}: it needs about ${tokens} tokens, above the limit of ${result.limit} tokens per minute. Lower max_tokens or shorten the prompt.`;
          }, { ...ticket.headers, ...headers }));
        }
        ticket.routedAt = routedAt;
        ticket.tokenSubjects.push(...checks.filter((entry) => entry.subject.endsWith(':tpm')).map((entry) => entry.subject));
        return headers;
      });
    },

    finish(ticket, usedTokens) {
      if (ticket.finished) return;
      ticket.finished = true;
      if (ticket.slots.length > 0) void quietly(() => store.release(ticket.id, ticket.slots, ticket.requestAt));
      if (usedTokens !== undefined) for (const subject of ticket.tokenSubjects) void quietly(() => store.adjust(ticket.id, subject, Math.max(0, usedTokens), ticket.routedAt));
    },

    dropExpired() {
      return store.dropExpired?.(now());
    },
  };
}

/** OpenAI's `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` from the named check's result. */
function headersFor(results: readonly WindowResult[], unit: 'requests' | 'tokens', subject: string, tighter?: Record<string, string>): Record<string, string> {
  const result = results.find((candidate) => candidate.subject === subject);
  if (result === undefined) return {};
  const remaining = Math.max(0, result.limit - result.used);
  // Per-router request limits report whichever of key and router has less left.
  if (tighter !== undefined && Number(tighter[`x-ratelimit-remaining-${unit}`] ?? Infinity) <= remaining) return {};
  // Literal names: an object literal with computed (template) names is built property by property, about 10x slower.
  const limit = String(result.limit);
  const left = String(remaining);
  const reset = formatResetDuration(result.resetMs);
  return unit === 'requests'
    ? { 'x-ratelimit-limit-requests': limit, 'x-ratelimit-remaining-requests': left, 'x-ratelimit-reset-requests': reset }
    : { 'x-ratelimit-limit-tokens': limit, 'x-ratelimit-remaining-tokens': left, 'x-ratelimit-reset-tokens': reset };
}

/**
 * On a 429, the `x-ratelimit-reset-*` of each refused unit (requests, tokens) names the instant `retry-after` does: when
 * the request would be admitted, not when the window empties entirely (which a client would otherwise wait for, or retry before).
 */
function resetAtRetry(headers: Record<string, string>, refused: readonly WindowResult[], retrySeconds: number): Record<string, string> {
  const reset = formatResetDuration(retrySeconds * 1000);
  const out: Record<string, string> = {};
  for (const result of refused) {
    if (result.subject.endsWith(':inflight')) continue;
    const name = result.subject.endsWith(':tpm') ? 'x-ratelimit-reset-tokens' : 'x-ratelimit-reset-requests';
    if (headers[name] !== undefined) out[name] = reset;
  }
  return out;
}

/** OpenAI's duration format for `x-ratelimit-reset-*`: "1s", "6m0s", "20ms". */
export function formatResetDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.ceil(ms))}ms`;
  const totalSeconds = Math.ceil(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

/** Which limit a refused subject (`key:<id>:rpm`, `router:<id>:tpm`, `key:<id>:inflight`) is, for the metrics. */
function rejectionOf(subject: string): [LimitKind, 'key' | 'router'] {
  const scope = subject.startsWith('router:') ? 'router' : 'key';
  if (subject.endsWith(':inflight')) return ['concurrency', scope];
  return [subject.endsWith(':tpm') ? 'tpm' : 'rpm', scope];
}
