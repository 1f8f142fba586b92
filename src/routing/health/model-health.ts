import type { UpstreamError } from '../../providers/contract.js';
import type { Availability, LatencyEstimate, LatencySample, ModelHealth } from '../routing-contract.js';
import { CircuitBreaker, type BreakerState } from './circuit-breaker.js';
import { providerKeyOf } from './health-keys.js';
import { defaultHealthOptions, type HealthOptions } from './health-options.js';
import { MovingAverage } from './moving-average.js';
import { RemoteLatency, blendLatency, type HealthEvent, type LatencyFigures, type LatencyTable } from './shared-health-state.js';
import { SlidingWindow, errorRateOf, type WindowTotals } from './sliding-window.js';

/** Counts over the sliding window. */
export interface WindowStats {
  readonly requests: number;
  readonly failures: number;
  /** 0..1; 0 when the window is empty. */
  readonly errorRate: number;
  /** Mean time to first token of the window's streams; NaN without one. */
  readonly meanTtftMs: number;
}

/** One model's health at a moment, for logs and operators. */
export interface ModelHealthSnapshot extends WindowStats {
  readonly key: string;
  readonly circuit: BreakerState;
  /** When its circuit may let a probe through; undefined unless open. */
  readonly openUntil: number | undefined;
  readonly consecutiveFailures: number;
  /** When its provider's 429 back-off ends; undefined when none is running. */
  readonly backoffUntil: number | undefined;
  readonly latency: LatencyEstimate | undefined;
}

/** ModelHealth kept in this process's memory, with what operators and tests may read besides. */
export interface ProcessModelHealth extends ModelHealth {
  readonly options: HealthOptions;
  circuit(modelId: string, now: number): BreakerState;
  stats(modelId: string, now: number): WindowStats;
  /** `provider` as in model ids (`openai`), or a scoped provider key (see health-keys.ts). */
  providerStats(provider: string, now: number): WindowStats;
  /** When the provider's 429 back-off ends, or undefined when none is running. */
  backoffUntil(provider: string, now: number): number | undefined;
  /** Every model seen so far, at the clock's time. */
  snapshot(): ModelHealthSnapshot[];
  /**
   * Calls `listener` for each back-off this process started or lengthened and
   * each circuit it opened, synchronously: a listener must only queue work.
   * What `adopt` applies is not reported (it came from elsewhere).
   */
  onEvent(listener: (event: HealthEvent) => void): void;
  /** Applies what another instance learned. @returns true when it changed anything here */
  adopt(event: HealthEvent, now: number): boolean;
  /** The back-offs and open circuits running now, as events (to republish after an outage). */
  activeEvents(now: number): HealthEvent[];
  /** This process's own latency averages, per measured model (what it publishes). */
  localLatency(): LatencyTable;
  /** Other instances' latency averages; `latency` blends them with this process's by sample count. */
  readonly remoteLatency: RemoteLatency;
}

interface ModelState {
  readonly window: SlidingWindow;
  readonly breaker: CircuitBreaker;
  readonly ttft: MovingAverage;
  readonly tokensPerSecond: MovingAverage;
  samples: number;
}

interface ProviderState {
  readonly window: SlidingWindow;
  backoffUntil: number;
}

const AVAILABLE: Availability = { available: true, probe: false };

/**
 * Health of every model and provider this process called, in memory: sliding
 * windows of calls and failures per model and per provider, a circuit breaker
 * per model, a back-off per provider when a 429 carries `retry-after`, and
 * moving averages of time to first token and throughput per model.
 *
 * Only retryable failures (5xx, 429, timeouts, refused connections, rejected
 * credentials) count against a model; a request the upstream calls invalid and
 * a client that went away say nothing about it. Keys are model ids, or scoped
 * keys for owners' own credentials (health-keys.ts). `clock` (ms) is only read
 * by `snapshot`; every other method takes the time from its caller, so one
 * clock (epoch ms) serves a later shared store as well.
 */
export function createModelHealth(options: Partial<HealthOptions> = {}, clock: () => number = Date.now): ProcessModelHealth {
  const settings: HealthOptions = { ...defaultHealthOptions, ...options };
  const models = new Map<string, ModelState>();
  const providers = new Map<string, ProviderState>();
  const remoteLatency = new RemoteLatency();
  const listeners: Array<(event: HealthEvent) => void> = [];
  const emit = (event: HealthEvent) => {
    for (const listener of listeners) listener(event);
  };

  const modelState = (key: string): ModelState => {
    let state = models.get(key);
    if (state === undefined) {
      state = {
        window: new SlidingWindow(settings.windowMs, settings.buckets),
        breaker: new CircuitBreaker(settings),
        ttft: new MovingAverage(settings.latencySmoothing),
        tokensPerSecond: new MovingAverage(settings.latencySmoothing),
        samples: 0,
      };
      models.set(key, state);
    }
    return state;
  };
  const providerState = (key: string): ProviderState => {
    let state = providers.get(key);
    if (state === undefined) {
      state = { window: new SlidingWindow(settings.windowMs, settings.buckets), backoffUntil: Number.NEGATIVE_INFINITY };
      providers.set(key, state);
    }
    return state;
  };

  const backoffUntil = (providerKey: string, now: number): number | undefined => {
    const until = providers.get(providerKey)?.backoffUntil;
    return until !== undefined && until > now ? until : undefined;
  };

  const check = (key: string, now: number, claim: boolean): Availability => {
    if (!settings.enabled) return AVAILABLE;
    const until = backoffUntil(providerKeyOf(key), now);
    if (until !== undefined) return { available: false, reason: 'provider_backoff', until };
    const breaker = models.get(key)?.breaker;
    if (breaker === undefined) return AVAILABLE;
    return claim ? breaker.admit(now) : breaker.availability(now);
  };

  const figuresOf = (state: ModelState): LatencyFigures => ({
    ttftMs: state.ttft.value,
    ttftSamples: state.ttft.samples,
    tokensPerSecond: state.tokensPerSecond.value,
    speedSamples: state.tokensPerSecond.samples,
    samples: state.samples,
  });
  const latency = (key: string): LatencyEstimate | undefined => {
    const state = models.get(key);
    const local = state === undefined || state.samples === 0 ? undefined : state;
    if (remoteLatency.size > 0) {
      const remote = remoteLatency.figures(key);
      if (remote.length > 0) return blendLatency(local === undefined ? remote : [figuresOf(local), ...remote]);
    }
    if (local === undefined) return undefined;
    return { ttftMs: local.ttft.value, tokensPerSecond: local.tokensPerSecond.value, samples: local.samples };
  };

  const statsOf = (totals: WindowTotals): WindowStats => ({
    requests: totals.requests,
    failures: totals.failures,
    errorRate: errorRateOf(totals),
    meanTtftMs: totals.ttftSamples === 0 ? Number.NaN : totals.ttftSumMs / totals.ttftSamples,
  });
  const emptyStats: WindowStats = { requests: 0, failures: 0, errorRate: 0, meanTtftMs: Number.NaN };

  return {
    options: settings,

    isAvailable: (key, now) => check(key, now, false).available,
    availability: (key, now) => check(key, now, false),
    admit: (key, now) => check(key, now, true),
    latency,
    errorRate: (key, now) => {
      const state = models.get(key);
      return state === undefined ? 0 : errorRateOf(state.window.totals(now));
    },

    recordSuccess(key: string, sample: LatencySample, now: number): void {
      const state = modelState(key);
      state.window.record(now, { failed: false, ttftMs: sample.ttftMs });
      providerState(providerKeyOf(key)).window.record(now, { failed: false, ttftMs: sample.ttftMs });
      // A model that recovered starts a fresh window: its old failures must not re-open it at once.
      if (state.breaker.onSuccess(now)) state.window.clear();
      state.samples += 1;
      if (sample.ttftMs !== undefined) state.ttft.add(sample.ttftMs);
      const tokens = sample.completionTokens;
      if (tokens !== undefined && tokens > 0) {
        // A complete answer's time includes its time to first token: take out what is known of it.
        const ttft = state.ttft.samples > 0 && state.ttft.value < sample.totalMs ? state.ttft.value : 0;
        const generationMs = sample.totalMs - ttft;
        if (generationMs > 0) state.tokensPerSecond.add(tokens / (generationMs / 1000));
      }
    },

    recordFailure(key: string, error: UpstreamError, now: number): void {
      const state = modelState(key);
      if (!error.isRetryable || error.kind === 'aborted') {
        state.breaker.release();
        return;
      }
      const providerKey = providerKeyOf(key);
      const provider = providerState(providerKey);
      state.window.record(now, { failed: true });
      provider.window.record(now, { failed: true });
      if (error.statusCode === 429 && error.retryAfterMs !== undefined && error.retryAfterMs > 0) {
        const until = now + Math.min(error.retryAfterMs, settings.maxRetryAfterMs);
        if (until > provider.backoffUntil) {
          provider.backoffUntil = until;
          emit({ kind: 'backoff', provider: providerKey, until });
        }
      }
      if (state.breaker.onFailure(now, state.window.totals(now))) emit({ kind: 'open', model: key, until: state.breaker.openUntil });
    },

    release(key: string): void {
      models.get(key)?.breaker.release();
    },

    circuit: (key, now) => models.get(key)?.breaker.state(now) ?? 'closed',
    stats: (key, now) => {
      const state = models.get(key);
      return state === undefined ? emptyStats : statsOf(state.window.totals(now));
    },
    providerStats: (provider, now) => {
      const state = providers.get(provider);
      return state === undefined ? emptyStats : statsOf(state.window.totals(now));
    },
    backoffUntil,

    onEvent: (listener) => listeners.push(listener),
    adopt(event, now) {
      if (event.until <= now) return false;
      if (event.kind === 'open') return modelState(event.model).breaker.adoptOpening(event.until, now);
      const provider = providerState(event.provider);
      if (event.until <= provider.backoffUntil) return false;
      provider.backoffUntil = event.until;
      return true;
    },
    activeEvents(now) {
      const events: HealthEvent[] = [];
      for (const [provider, state] of providers) if (state.backoffUntil > now) events.push({ kind: 'backoff', provider, until: state.backoffUntil });
      for (const [model, state] of models) if (state.breaker.state(now) === 'open') events.push({ kind: 'open', model, until: state.breaker.openUntil });
      return events;
    },
    localLatency() {
      const table = new Map<string, LatencyFigures>();
      for (const [key, state] of models) if (state.samples > 0) table.set(key, figuresOf(state));
      return table;
    },
    remoteLatency,

    snapshot() {
      const now = clock();
      return [...models.entries()].map(([key, state]) => {
        const availability = state.breaker.availability(now);
        return {
          key,
          ...statsOf(state.window.totals(now)),
          circuit: state.breaker.state(now),
          openUntil: !availability.available && availability.reason === 'circuit_open' ? availability.until : undefined,
          consecutiveFailures: state.breaker.consecutiveFailures,
          backoffUntil: backoffUntil(providerKeyOf(key), now),
          latency: latency(key),
        };
      });
    },
  };
}
