import { createTimeOrderedIdSource } from '../src/lib/random-id.js';
import type { NewUsageRecord } from '../src/storage/schema.js';
import { seededRandom } from '../src/lib/seeded-random.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Who the records belong to: the owner (its personal workspace has the same id), its routers and keys. */
export interface BenchAnalyticsTenant {
  readonly ownerId: string;
  readonly email: string;
  readonly password: string;
  readonly routers: readonly { readonly id: string; readonly models: readonly string[] }[];
  readonly keyIds: readonly string[];
}

/** A stretch of time and the share of the records created in it. */
interface Segment {
  readonly from: number;
  readonly to: number;
  readonly share: number;
}

/** USD per million tokens, as the shipped catalog lists them: the bench's costs are computed here, not by the gateway. */
const PRICES: Readonly<Record<string, { input: number; output: number }>> = {
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6 },
  'openai:gpt-4o': { input: 2.5, output: 10 },
  'openai:gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'anthropic:claude-haiku-4-5': { input: 1, output: 5 },
  'anthropic:claude-sonnet-4-5': { input: 3, output: 15 },
  'mistral:mistral-small-latest': { input: 0.1, output: 0.3 },
};

/** The routers the bench creates: their models, first the one most requests go to. */
export const BENCH_ANALYTICS_ROUTERS: readonly { readonly name: string; readonly models: readonly string[] }[] = [
  { name: 'support bot', models: ['openai:gpt-4o-mini', 'openai:gpt-4o'] },
  { name: 'coding agent', models: ['anthropic:claude-sonnet-4-5', 'anthropic:claude-haiku-4-5'] },
  { name: 'batch summaries', models: ['mistral:mistral-small-latest', 'openai:gpt-4.1-mini'] },
];
const ROUTER_WEIGHTS = [0.5, 0.3, 0.2];
const KEY_WEIGHTS = [0.55, 0.25, 0.15, 0.05];
/** HTTP statuses and their shares: mostly answered, a few rate-limited, upstream failures and bad requests. */
const STATUSES: readonly (readonly [number, number, string | null])[] = [
  [200, 0.965, null],
  [429, 0.015, 'rate_limited'],
  [502, 0.008, 'upstream_error'],
  [500, 0.007, 'internal_error'],
  [400, 0.005, 'invalid_request'],
];

function pick<T>(random: () => number, items: readonly T[], weights: readonly number[]): T {
  let roll = random();
  for (let index = 0; index < items.length; index += 1) {
    roll -= weights[index] ?? 0;
    if (roll < 0) return items[index]!;
  }
  return items[items.length - 1]!;
}

/**
 * What was written, per minute since the oldest record's minute: records and cost in 1e-10 USD (whole numbers, so the
 * sums are exact). A report's range is made of whole minutes (or hours or days), so its expected totals are exact sums.
 */
export class ExpectedUsage {
  private readonly counts: Float64Array;
  private readonly costUnits: Float64Array;

  constructor(readonly firstMinute: number, minutes: number) {
    this.counts = new Float64Array(minutes);
    this.costUnits = new Float64Array(minutes);
  }

  add(createdAt: number, costUnits: number): void {
    const index = Math.floor((createdAt - this.firstMinute) / MINUTE);
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.costUnits[index] = (this.costUnits[index] ?? 0) + costUnits;
  }

  /** Records and cost units created in [from, to). */
  between(from: number, to: number): { requests: number; costUnits: number } {
    const first = Math.max(0, Math.ceil((from - this.firstMinute) / MINUTE));
    const last = Math.min(this.counts.length, Math.ceil((to - this.firstMinute) / MINUTE));
    let requests = 0;
    let costUnits = 0;
    for (let index = first; index < last; index += 1) {
      requests += this.counts[index] ?? 0;
      costUnits += this.costUnits[index] ?? 0;
    }
    return { requests, costUnits };
  }
}

/**
 * `total` usage records of one owner, oldest first, in chunks of `chunkSize`: 80 % in the 24 hours before `now`, 10 %
 * over the 29 days before those, 10 % over the rest of the year. Token counts, latencies and so costs are log-normal;
 * errors carry no tokens and no cost. Every record is added to `expected` as it is made.
 */
export function* benchUsageRecords(tenant: BenchAnalyticsTenant, total: number, now: number, chunkSize: number, expected: ExpectedUsage): Generator<NewUsageRecord[]> {
  const random = seededRandom(20_261_127);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const logNormal = (median: number, sigma: number) => median * Math.exp(sigma * normal());
  const end = Math.floor(now / MINUTE) * MINUTE;
  const segments: Segment[] = [
    { from: end - 364 * DAY, to: end - 30 * DAY, share: 0.1 },
    { from: end - 30 * DAY, to: end - DAY, share: 0.1 },
    { from: end - DAY, to: end, share: 0.8 },
  ];
  let createdAt = 0;
  const nextId = createTimeOrderedIdSource('req_', { now: () => createdAt });
  let chunk: NewUsageRecord[] = [];
  let made = 0;
  for (const [index, segment] of segments.entries()) {
    const count = index === segments.length - 1 ? total - made : Math.round(total * segment.share);
    const step = (segment.to - segment.from) / Math.max(1, count);
    for (let n = 0; n < count; n += 1) {
      // Evenly spread with a jitter inside each record's slot: in time order, as a gateway writes them.
      createdAt = Math.floor(segment.from + (n + random()) * step);
      const routerIndex = ROUTER_WEIGHTS.length === tenant.routers.length ? pick(random, [0, 1, 2], ROUTER_WEIGHTS) : n % tenant.routers.length;
      const router = tenant.routers[routerIndex]!;
      const model = random() < 0.7 ? router.models[0]! : router.models[1 % router.models.length]!;
      const [status, , errorCode] = pick(random, STATUSES, STATUSES.map(([, share]) => share));
      const ok = status === 200;
      const prompt = ok ? Math.min(200_000, Math.max(1, Math.round(logNormal(600, 1)))) : 0;
      const completion = ok ? Math.min(16_000, Math.max(1, Math.round(logNormal(180, 0.9)))) : 0;
      const cached = ok && random() < 0.2 ? Math.floor(prompt / 2) : 0;
      const price = PRICES[model] ?? { input: 1, output: 1 };
      const costUnits = Math.round(((prompt * price.input + completion * price.output) / 1e6) * 1e10);
      const tokens = prompt + completion;
      chunk.push({
        id: nextId(),
        created_at: createdAt,
        owner_id: tenant.ownerId,
        key_id: pick(random, tenant.keyIds, KEY_WEIGHTS.length === tenant.keyIds.length ? KEY_WEIGHTS : tenant.keyIds.map(() => 1 / tenant.keyIds.length)),
        router_id: router.id,
        model,
        status,
        error_code: errorCode,
        streamed: random() < 0.4 ? 1 : 0,
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: tokens,
        cost_usd: costUnits / 1e10,
        latency_ms: Math.round(Math.min(120_000, logNormal(ok ? 900 : 150, 0.6)) * 10) / 10,
        carbon_grams: tokens * 0.0002,
        attempts: random() < 0.05 ? 2 : 1,
        energy_wh: tokens * 0.0004,
        cached_prompt_tokens: cached,
      });
      expected.add(createdAt, costUnits);
      made += 1;
      if (chunk.length === chunkSize) {
        yield chunk;
        chunk = [];
      }
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** The minutes `benchUsageRecords` spreads records over, from its oldest: for ExpectedUsage. */
export function benchUsageMinutes(now: number): { firstMinute: number; minutes: number } {
  const end = Math.floor(now / MINUTE) * MINUTE;
  return { firstMinute: end - 364 * DAY, minutes: (364 * DAY) / MINUTE + 1 };
}
