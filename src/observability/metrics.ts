import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { UpstreamError } from '../providers/contract.js';
import type { ModelHealth } from '../routing/routing-contract.js';
import type { NewUsageRecord } from '../storage/schema.js';

/** Which limit refused a request. */
export type LimitKind = 'rpm' | 'tpm' | 'concurrency' | 'budget' | 'safe_mode';

/** What a limiter calls when it refuses a request (the rate limiter, budgets, Redis-outage safe mode). */
export interface LimiterRejections {
  rejected(limit: LimitKind, scope: 'key' | 'router'): void;
}

export interface GatewayMetrics extends LimiterRejections {
  /** One finished routed request, from its usage record (never the key: only router, model, status). */
  observeRequest(record: NewUsageRecord): void;
  /** One failed upstream call (fallback may still have answered with another model). */
  upstreamError(modelId: string, kind: string): void;
  /** The Prometheus text exposition of every metric. */
  render(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsOptions {
  /** Usage records waiting to be written (sampled at each scrape). */
  readonly usageQueue: () => { readonly queued: number; readonly dropped: number };
  /** Also export Node's process metrics (CPU, memory, event loop lag) as `modelport_process_*`, `modelport_nodejs_*`. @default true */
  readonly processMetrics?: boolean;
  /**
   * Label request, token, cost and carbon series with the router id (MODELPORT_METRICS_ROUTER_LABELS). Router ids are
   * tenants' own: off, those series carry no `router` label and add up every router's traffic. @default false
   */
  readonly routerLabels?: boolean;
}

/** A series' labels; `router` only when the operator allows router ids in labels. */
type SeriesLabels = { readonly router?: string; readonly model: string; readonly status: string };

/** One (router, model, status) label set: its request count, and its duration histogram's child. */
interface RequestSeries {
  readonly labels: SeriesLabels;
  readonly duration: Histogram.Internal<string>;
  readonly model: ModelSeries;
  requests: number;
}

/** One (router, model) label set's totals; `router` is empty when router ids are not labels. */
interface ModelSeries {
  readonly router: string;
  readonly model: string;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  carbon: number;
  energy: number;
}

/**
 * The gateway's Prometheus metrics on a registry of its own (no global
 * registry: several apps in one process, as in tests, never share counters).
 * Labels are bounded: router ids (only when the operator allows them) and model ids (both bounded per owner), the
 * HTTP status, a token kind, a limit kind. Never a key, a key id, a user or a prompt.
 */
export function createMetrics(options: MetricsOptions): GatewayMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'modelport_' });
  const byRouter = options.routerLabels === true;
  const labels = byRouter ? ['router', 'model', 'status'] : ['model', 'status'];
  const byRouterAnd = byRouter ? 'router, ' : '';
  /** `labels` with the router's when router ids are labels. */
  const withRouter = <T extends object>(router: string, rest: T): T & { router?: string } => (byRouter ? { router, ...rest } : rest);
  // Requests, tokens, cost and carbon are counted in plain numbers and handed to prom-client when it is scraped: an
  // inc() on a labelled counter (a child's too) hashes its labels into a string and checks them, on every request
  // (docs/performance.md, The request path). The duration histogram is observed as it comes.
  const seriesByLabels = new Map<string, RequestSeries>();
  const modelSeries = new Map<string, ModelSeries>();
  new Counter({
    name: 'modelport_requests_total',
    help: `Routed requests answered, by ${byRouterAnd}model and HTTP status.`,
    labelNames: labels,
    registers: [registry],
    collect() {
      this.reset();
      for (const series of seriesByLabels.values()) this.inc(series.labels, series.requests);
    },
  });
  const duration = new Histogram({
    name: 'modelport_request_duration_seconds',
    help: `Time from arrival to the last byte of the answer, by ${byRouterAnd}model and HTTP status.`,
    labelNames: labels,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  /** A counter by (router, model) whose value is read from each model's totals at scrape time; zero totals are left out. */
  const modelCounter = (name: string, help: string, value: (series: ModelSeries) => number) =>
    new Counter({
      name,
      help,
      labelNames: byRouter ? ['router', 'model'] : ['model'],
      registers: [registry],
      collect() {
        this.reset();
        for (const series of modelSeries.values()) if (value(series) > 0) this.inc(withRouter(series.router, { model: series.model }), value(series));
      },
    });
  new Counter({
    name: 'modelport_tokens_total',
    help: `Tokens by ${byRouterAnd}model and kind (prompt, completion).`,
    labelNames: byRouter ? ['router', 'model', 'kind'] : ['model', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { router, model, promptTokens, completionTokens } of modelSeries.values()) {
        if (promptTokens > 0) this.inc(withRouter(router, { model, kind: 'prompt' }), promptTokens);
        if (completionTokens > 0) this.inc(withRouter(router, { model, kind: 'completion' }), completionTokens);
      }
    },
  });
  modelCounter('modelport_cost_usd_total', `Cost of answered requests in USD, by ${byRouterAnd}model.`, (series) => series.cost);
  modelCounter('modelport_carbon_grams_total', `Estimated operational CO2e in grams (EcoLogits' method), by ${byRouterAnd}model.`, (series) => series.carbon);
  modelCounter('modelport_energy_wh_total', `Estimated energy in watt-hours, data-centre overhead included (EcoLogits' method), by ${byRouterAnd}model.`, (series) => series.energy);
  const upstreamErrors = new Counter({ name: 'modelport_upstream_errors_total', help: 'Failed upstream calls, by model and error kind.', labelNames: ['model', 'kind'], registers: [registry] });
  const rejections = new Counter({ name: 'modelport_limiter_rejections_total', help: 'Requests refused by a limit, by limit kind and scope (key, router).', labelNames: ['limit', 'scope'], registers: [registry] });
  new Gauge({
    name: 'modelport_usage_queue_depth',
    help: 'Usage records queued in memory, not yet written to the database.',
    registers: [registry],
    collect() {
      this.set(options.usageQueue().queued);
    },
  });
  new Gauge({
    name: 'modelport_usage_records_dropped',
    help: 'Usage records dropped because the queue was full (the database was unreachable for long).',
    registers: [registry],
    collect() {
      this.set(options.usageQueue().dropped);
    },
  });

  return {
    contentType: registry.contentType,
    observeRequest(record) {
      const router = byRouter ? (record.router_id ?? 'none') : '';
      const model = record.model ?? 'none';
      const status = String(record.status);
      const name = `${router}\u0000${model}\u0000${status}`;
      let series = seriesByLabels.get(name);
      if (series === undefined) {
        const modelName = `${router}\u0000${model}`;
        let totals = modelSeries.get(modelName);
        if (totals === undefined) {
          totals = { router, model, promptTokens: 0, completionTokens: 0, cost: 0, carbon: 0, energy: 0 };
          modelSeries.set(modelName, totals);
        }
        const seriesLabels = withRouter(router, { model, status });
        series = { labels: seriesLabels, duration: duration.labels(seriesLabels), model: totals, requests: 0 };
        seriesByLabels.set(name, series);
      }
      series.requests += 1;
      series.duration.observe(record.latency_ms / 1000);
      if (record.model === null || record.model === undefined) return;
      const totals = series.model;
      if (record.prompt_tokens > 0) totals.promptTokens += record.prompt_tokens;
      if (record.completion_tokens > 0) totals.completionTokens += record.completion_tokens;
      if (record.cost_usd > 0) totals.cost += record.cost_usd;
      if (record.carbon_grams > 0) totals.carbon += record.carbon_grams;
      const energy = record.energy_wh ?? 0;
      if (energy > 0) totals.energy += energy;
    },
    upstreamError(modelId, kind) {
      upstreamErrors.inc({ model: modelId, kind });
    },
    rejected(limit, scope) {
      rejections.inc({ limit, scope });
    },
    render: () => registry.metrics(),
  };
}

/** Model health that also counts every failed upstream call (owner-scoped health keys are counted under the model id). */
export function countingUpstreamErrors(health: ModelHealth, metrics: GatewayMetrics): ModelHealth {
  return {
    isAvailable: (modelId, now) => health.isAvailable(modelId, now),
    availability: (modelId, now) => health.availability(modelId, now),
    latency: (modelId) => health.latency(modelId),
    errorRate: (modelId, now) => health.errorRate(modelId, now),
    admit: (modelId, now) => health.admit(modelId, now),
    recordSuccess: (modelId, sample, now) => health.recordSuccess(modelId, sample, now),
    recordFailure(modelId: string, error: UpstreamError, now: number) {
      metrics.upstreamError(modelId.split('|')[0] ?? modelId, error.kind);
      health.recordFailure(modelId, error, now);
    },
    release: (modelId, now) => health.release(modelId, now),
  };
}
