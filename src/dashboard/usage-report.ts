import { toUsageRow } from '../accounting/usage-row.js';
import { errors } from '../lib/errors.js';
import { roundUsd } from '../lib/money.js';
import type { ApiKeysRepository } from '../storage/api-keys-repository.js';
import type { UsageRecordRow } from '../storage/schema.js';
import type { RequestPageQuery, UsageAnalyticsRepository, UsagePoint } from '../storage/usage-analytics-repository.js';
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
/** The most records one usage report reads; beyond it the report says `truncated`. */
export const MAX_REPORT_RECORDS = 200_000;

export type Bucket = 'hour' | 'day';

export interface UsageRange {
  readonly from: number;
  readonly to: number;
  readonly bucket: Bucket;
}

interface Totals {
  requests: number;
  costUsd: number;
  tokens: number;
  carbonGrams: number;
}

/** Nearest-rank percentile of sorted values; null for none. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1] ?? null;
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

/** Usage charts and the request log of a workspace (its `owner_id`). */
export function createUsageReports(analytics: UsageAnalyticsRepository, apiKeys: ApiKeysRepository) {
  const names = async (ownerId: string) => {
    const [routers, keys] = await Promise.all([analytics.routerNames(ownerId), apiKeys.listByOwner(ownerId)]);
    return { routers, keys: new Map(keys.map((key) => [key.id, key])) };
  };

  return {
    async report(ownerId: string, range: UsageRange): Promise<UsageReportView> {
      const rows = await analytics.points(ownerId, range.from, range.to, MAX_REPORT_RECORDS + 1);
      const truncated = rows.length > MAX_REPORT_RECORDS;
      const points = truncated ? rows.slice(0, MAX_REPORT_RECORDS) : rows;
      const { routers, keys } = await names(ownerId);
      const size = range.bucket === 'hour' ? HOUR : DAY;
      const starts = bucketStarts(range);
      const first = starts[0] ?? range.from;
      const buckets = starts.map((t) => ({ t, requests: 0, errors: 0, costUsd: 0, tokens: 0, carbonGrams: 0, latencies: [] as number[] }));
      const totals = { requests: 0, errors: 0, costUsd: 0, promptTokens: 0, completionTokens: 0, carbonGrams: 0, energyWh: 0 };
      const allLatencies: number[] = [];
      const byRouter = new Map<string, Totals>();
      const byModel = new Map<string | null, Totals>();
      const byKey = new Map<string | null, Totals>();
      for (const point of points) {
        const bucket = buckets[Math.floor((point.created_at - first) / size)];
        const failed = point.status >= 400;
        if (bucket !== undefined) {
          bucket.requests += 1;
          bucket.errors += failed ? 1 : 0;
          bucket.costUsd += point.cost_usd;
          bucket.tokens += point.total_tokens;
          bucket.carbonGrams += point.carbon_grams;
          bucket.latencies.push(point.latency_ms);
        }
        totals.requests += 1;
        totals.errors += failed ? 1 : 0;
        totals.costUsd += point.cost_usd;
        totals.promptTokens += point.prompt_tokens;
        totals.completionTokens += point.completion_tokens;
        totals.carbonGrams += point.carbon_grams;
        totals.energyWh += point.energy_wh;
        allLatencies.push(point.latency_ms);
        if (point.router_id !== null) add(byRouter, point.router_id, point);
        add(byModel, point.model, point);
        add(byKey, point.key_id, point);
      }
      allLatencies.sort((a, b) => a - b);
      return {
        from: range.from,
        to: range.to,
        bucket: range.bucket,
        totals: { ...totals, costUsd: roundUsd(totals.costUsd), carbonGrams: roundGrams(totals.carbonGrams), energyWh: roundGrams(totals.energyWh), p50LatencyMs: percentile(allLatencies, 50), p95LatencyMs: percentile(allLatencies, 95) },
        series: buckets.map(({ latencies, ...bucket }) => {
          latencies.sort((a, b) => a - b);
          return { ...bucket, costUsd: roundUsd(bucket.costUsd), carbonGrams: roundGrams(bucket.carbonGrams), p50LatencyMs: percentile(latencies, 50), p95LatencyMs: percentile(latencies, 95) };
        }),
        byRouter: ranked(byRouter).map(([id, value]) => ({ id, name: routers.get(id) ?? id, ...value })),
        byModel: ranked(byModel).map(([id, value]) => ({ id, ...value })),
        byKey: ranked(byKey).map(([id, value]) => {
          const key = id === null ? undefined : keys.get(id);
          return { id, name: keyName(id, keys), prefix: key?.displayPrefix ?? null, ...value };
        }),
        truncated,
      };
    },

    /** The hourly counts and newest requests of one router. */
    async traffic(ownerId: string, routerId: string, range: UsageRange, kindOf: ModelKindOf = allChat): Promise<TrafficReportView> {
      const points = await analytics.points(ownerId, range.from, range.to, MAX_REPORT_RECORDS, routerId);
      const starts = bucketStarts(range);
      const first = starts[0] ?? range.from;
      const hourly = starts.map((t) => ({ t, requests: 0, errors: 0, costUsd: 0 }));
      for (const point of points) {
        const bucket = hourly[Math.floor((point.created_at - first) / HOUR)];
        if (bucket === undefined) continue;
        bucket.requests += 1;
        bucket.errors += point.status >= 400 ? 1 : 0;
        bucket.costUsd += point.cost_usd;
      }
      const recent = await this.requests(ownerId, { limit: 20, routerId }, kindOf);
      return { from: range.from, to: range.to, hourly: hourly.map((bucket) => ({ ...bucket, costUsd: roundUsd(bucket.costUsd) })), recent: recent.requests };
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

function add<K>(map: Map<K, Totals>, key: K, point: UsagePoint): void {
  const entry = map.get(key) ?? { requests: 0, costUsd: 0, tokens: 0, carbonGrams: 0 };
  entry.requests += 1;
  entry.costUsd += point.cost_usd;
  entry.tokens += point.total_tokens;
  entry.carbonGrams += point.carbon_grams;
  map.set(key, entry);
}

function ranked<K>(map: Map<K, Totals>): Array<[K, Totals]> {
  return [...map.entries()]
    .map(([key, value]): [K, Totals] => [key, { ...value, costUsd: roundUsd(value.costUsd), carbonGrams: roundGrams(value.carbonGrams) }])
    .sort((a, b) => b[1].costUsd - a[1].costUsd || b[1].requests - a[1].requests);
}

/** Sums of grams, rounded so float noise does not show. */
function roundGrams(value: number): number {
  return Math.round(value * 1e9) / 1e9;
}
