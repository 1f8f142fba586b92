import { toUsageRow } from '../accounting/usage-row.js';
import { errors } from '../lib/errors.js';
import { roundUsd } from '../lib/money.js';
import type { ApiKeysRepository } from '../storage/api-keys-repository.js';
import type { UsageRecordRow } from '../storage/schema.js';
import type { RollupSums, UsageRollupRepository } from '../storage/usage-rollup-repository.js';
import { usdOfUnits } from '../storage/usage-rollup-schema.js';
import { planRollupSpans, rollupHorizons, type UsageRetention } from '../storage/usage-rollup-spans.js';
import { latencyOfBucket } from '../lib/latency-sketch.js';
import type { RequestPageQuery, UsageAnalyticsRepository } from '../storage/usage-analytics-repository.js';
import type { ModelKindView, RequestsPageView, TrafficReportView, UsageReportView, UsageRequestView } from './dashboard-api-types.js';

/** The kind of the model a usage record names (`provider:model`; null when no model answered). */
export type ModelKindOf = (model: string | null) => ModelKindView;
const allChat: ModelKindOf = () => 'chat';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Usage from the dashboard's playground carries this key id. */
export const PLAYGROUND_KEY_ID = 'dashboard';
/** The name usage reports give the playground's key id. */
const PLAYGROUND_KEY_NAME = 'Dashboard playground';
export const MAX_RANGE_MS = 366 * DAY;
export const MAX_BUCKETS = 2000;

export type Bucket = 'hour' | 'day';

export interface UsageRange {
  readonly from: number;
  readonly to: number;
  readonly bucket: Bucket;
}

/** Reads `from`, `to` and `bucket` from a query, with the defaults and bounds of docs/dashboard-api.md. */
export function resolveRange(query: { from?: string | undefined; to?: string | undefined; bucket?: string | undefined }, now: number): UsageRange {
  const to = query.to === undefined ? now : parseTime(query.to, 'to');
  const from = query.from === undefined ? to - DAY : parseTime(query.from, 'from');
  if (from >= to) throw errors.invalidRequest('"from" must be before "to".', 'from');
  if (to - from > MAX_RANGE_MS) throw errors.invalidRequest('The range may span at most 366 days.', 'from');
  if (query.bucket !== undefined && query.bucket !== 'hour' && query.bucket !== 'day') throw errors.invalidRequest('"bucket" must be "hour" or "day".', 'bucket');
  const bucket: Bucket = query.bucket ?? (to - from <= 2 * DAY ? 'hour' : 'day');
  if (Math.ceil((to - from) / (bucket === 'hour' ? HOUR : DAY)) > MAX_BUCKETS) throw errors.invalidRequest(`At most ${MAX_BUCKETS} buckets: use "day" for this range.`, 'bucket');
  return { from, to, bucket };
}

/** An ISO 8601 time or epoch milliseconds. */
export function parseTime(text: string, param: string): number {
  const value = /^\d{1,15}$/.test(text) ? Number(text) : /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN;
  if (!Number.isFinite(value)) throw errors.invalidRequest(`"${param}" must be an ISO 8601 time or epoch milliseconds.`, param);
  return value;
}

/** Bucket starts (UTC hours or days) covering [from, to). */
export function bucketStarts(range: UsageRange): number[] {
  const size = range.bucket === 'hour' ? HOUR : DAY;
  const starts: number[] = [];
  for (let start = Math.floor(range.from / size) * size; start < range.to; start += size) starts.push(start);
  return starts;
}

/** What the reports read: the rollups (off the event loop where the engine needs it), and how long usage is kept. */
export interface UsageReportSources {
  readonly rollups: UsageRollupRepository;
  readonly retention: UsageRetention;
  readonly now: () => number;
}

const PERCENTILES = [50, 95, 99] as const;

/** Usage charts and the request log of a workspace (its `owner_id`). */
export function createUsageReports(analytics: UsageAnalyticsRepository, apiKeys: ApiKeysRepository, sources: UsageReportSources) {
  const names = async (ownerId: string) => {
    const [routers, keys] = await Promise.all([analytics.routerNames(ownerId), apiKeys.listByOwner(ownerId)]);
    return { routers, keys: new Map(keys.map((key) => [key.id, key])) };
  };
  const plan = (range: UsageRange) => planRollupSpans(range.from, range.to, range.bucket, rollupHorizons(sources.retention, sources.now()));

  return {
    /** Totals, a series and breakdowns over the range, every figure summed in SQL from the rollups. */
    async report(ownerId: string, range: UsageRange): Promise<UsageReportView> {
      const { from, to, spans } = plan(range);
      const size = range.bucket === 'hour' ? HOUR : DAY;
      const subject = { ownerId };
      const [series, byRouter, byModel, byKey, latency, { routers, keys }] = await Promise.all([
        sources.rollups.series(subject, spans, size),
        sources.rollups.breakdown(ownerId, spans, 'router_id'),
        sources.rollups.breakdown(ownerId, spans, 'model'),
        sources.rollups.breakdown(ownerId, spans, 'key_id'),
        sources.rollups.latencyPercentiles(subject, spans, size, PERCENTILES),
        names(ownerId),
      ]);
      const byStart = new Map(series.map((point) => [point.t, point]));
      const latencyByStart = new Map(latency.series.map((point) => [point.t, point.buckets]));
      const totals = series.reduce(addSums, emptySums());
      const [p50, p95, p99] = latency.overall.map(latencyOf);
      return {
        from,
        to,
        bucket: range.bucket,
        totals: {
          requests: totals.requests,
          errors: totals.errors,
          costUsd: roundUsd(usdOfUnits(totals.costUnits)),
          promptTokens: totals.promptTokens,
          completionTokens: totals.completionTokens,
          cachedPromptTokens: totals.cachedPromptTokens,
          cacheWritePromptTokens: totals.cacheWritePromptTokens,
          reasoningTokens: totals.reasoningTokens,
          carbonGrams: roundGrams(totals.carbonGrams),
          energyWh: roundGrams(totals.energyWh),
          p50LatencyMs: p50 ?? null,
          p95LatencyMs: p95 ?? null,
          p99LatencyMs: p99 ?? null,
        },
        series: bucketStarts({ from, to, bucket: range.bucket }).map((t) => {
          const point = byStart.get(t) ?? emptySums();
          const [bucketP50, bucketP95] = (latencyByStart.get(t) ?? []).map(latencyOf);
          return {
            t,
            requests: point.requests,
            errors: point.errors,
            costUsd: roundUsd(usdOfUnits(point.costUnits)),
            tokens: point.totalTokens,
            carbonGrams: roundGrams(point.carbonGrams),
            p50LatencyMs: bucketP50 ?? null,
            p95LatencyMs: bucketP95 ?? null,
          };
        }),
        byRouter: byRouter.filter((row) => row.id !== '').map((row) => ({ id: row.id, name: routers.get(row.id) ?? row.id, ...breakdownFigures(row) })),
        byModel: byModel.map((row) => ({ id: row.id === '' ? null : row.id, ...breakdownFigures(row) })),
        byKey: byKey.map((row) => {
          const id = row.id === '' ? null : row.id;
          const key = id === null ? undefined : keys.get(id);
          return { id, name: keyName(id, keys), prefix: key?.displayPrefix ?? null, ...breakdownFigures(row) };
        }),
      };
    },

    /** The hourly counts and newest requests of one router. */
    async traffic(ownerId: string, routerId: string, range: UsageRange, kindOf: ModelKindOf = allChat): Promise<TrafficReportView> {
      const { from, to, spans } = plan({ ...range, bucket: 'hour' });
      const series = await sources.rollups.series({ ownerId, routerId }, spans, HOUR);
      const byStart = new Map(series.map((point) => [point.t, point]));
      const hourly = bucketStarts({ from, to, bucket: 'hour' }).map((t) => {
        const point = byStart.get(t);
        return { t, requests: point?.requests ?? 0, errors: point?.errors ?? 0, costUsd: roundUsd(usdOfUnits(point?.costUnits ?? 0)) };
      });
      const recent = await this.requests(ownerId, { limit: 20, routerId }, kindOf);
      return { from, to, hourly, recent: recent.requests };
    },

    async requests(
      ownerId: string,
      query: Omit<RequestPageQuery, 'ownerId' | 'before'> & { before?: string | undefined },
      kindOf: ModelKindOf = allChat,
    ): Promise<RequestsPageView> {
      const before = query.before === undefined ? undefined : parseCursor(query.before);
      const rows = await analytics.page({ ...query, ownerId, before });
      const { routers, keys } = await names(ownerId);
      const last = rows.length === query.limit ? rows[rows.length - 1] : undefined;
      return {
        requests: rows.map((row) => requestView(row, routers, keys, kindOf)),
        nextBefore: last === undefined ? null : `${last.created_at}:${last.id}`,
        expiredBefore: rollupHorizons(sources.retention, sources.now()).minute,
      };
    },

    /** One request's usage row, as the request log lists it; undefined when the owner has none by this id. */
    async request(ownerId: string, id: string, kindOf: ModelKindOf = allChat): Promise<UsageRequestView | undefined> {
      const row = await analytics.find(ownerId, id);
      if (row === undefined) return undefined;
      const { routers, keys } = await names(ownerId);
      return requestView(row, routers, keys, kindOf);
    },
  };
}

/** The usage row (the CLI's too), with the names of its router and key; `time` is the record's `createdAt`. */
function requestView(row: UsageRecordRow, routers: ReadonlyMap<string, string>, keys: ReadonlyMap<string, { name: string }>, kindOf: ModelKindOf): UsageRequestView {
  const { createdAt, ownerId: _ownerId, ...usage } = toUsageRow(row);
  return {
    ...usage,
    kind: kindOf(usage.model),
    time: createdAt,
    routerName: usage.routerId === null ? null : (routers.get(usage.routerId) ?? null),
    keyName: keyName(usage.keyId, keys),
  };
}

function keyName(keyId: string | null, keys: ReadonlyMap<string, { name: string }>): string | null {
  if (keyId === PLAYGROUND_KEY_ID) return PLAYGROUND_KEY_NAME;
  return keyId === null ? null : (keys.get(keyId)?.name ?? null);
}

function parseCursor(text: string): { time: number; id: string } {
  const match = /^(\d{1,15}):(.{1,128})$/.exec(text);
  if (match === null) throw errors.invalidRequest('"before" must be the nextBefore of a previous page.', 'before');
  return { time: Number(match[1]), id: match[2] ?? '' };
}

function emptySums(): RollupSums {
  return { requests: 0, errors: 0, streamed: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cachedPromptTokens: 0, cacheWritePromptTokens: 0, reasoningTokens: 0, costUnits: 0, counterfactualCostUnits: 0, carbonGrams: 0, energyWh: 0, latencyMsSum: 0 };
}

function addSums(total: RollupSums, point: RollupSums): RollupSums {
  for (const name of Object.keys(total) as (keyof RollupSums)[]) total[name] += point[name];
  return total;
}

function breakdownFigures(row: RollupSums) {
  return { requests: row.requests, costUsd: roundUsd(usdOfUnits(row.costUnits)), tokens: row.totalTokens, carbonGrams: roundGrams(row.carbonGrams) };
}

/** A latency-sketch bucket's value, to the microsecond: more digits than that are noise in a latency. */
function latencyOf(bucket: number | null): number | null {
  return bucket === null ? null : Math.round(latencyOfBucket(bucket) * 1000) / 1000;
}

/** Sums of grams, rounded so float noise does not show. */
function roundGrams(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
