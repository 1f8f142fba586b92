import fc from 'fast-check';
import type { ChatRequest } from '../../src/providers/contract.js';
import { createModelCatalog, type ModelCatalog, type ModelInfo } from '../../src/catalog/catalog.js';
import type { Availability, LatencyEstimate, ModelHealthView, RouterSettings } from '../../src/routing/routing-contract.js';
import { filterEligible } from '../../src/routing/strategies/eligibility.js';
import { profileRequest } from '../../src/routing/strategies/estimates.js';
import type { CandidateEstimate, StrategyContext } from '../../src/routing/strategies/routing-strategy.js';

/** A fixed instant for every routing test: nothing reads the real clock. */
export const T0 = Date.UTC(2026, 0, 1);

function model(id: string, fields: Partial<Omit<ModelInfo, 'id' | 'provider' | 'model'>>): ModelInfo {
  const [provider = '', name = ''] = id.split(':');
  return {
    id,
    provider,
    model: name,
    displayName: id,
    pricing: { inputPerMTok: 1, outputPerMTok: 4 },
    contextWindow: 128_000,
    maxOutputTokens: 16_384,
    capabilities: { tools: true, vision: true, jsonMode: true, streaming: true },
    qualityScore: 1250,
    activeParamsB: 30,
    region: { pue: 1.2, gridGCo2PerKWh: 400 },
    typicalTtftMs: 400,
    typicalTokensPerSecond: 80,
    simulated: false,
    ...fields,
  };
}

/**
 * A small fixed catalog whose models each win one criterion:
 * tiny is cheapest and fastest but weak, with a small window and no tools or
 * images; big is strongest, dearest and slowest; green runs on a clean grid.
 */
export const FIXTURE_MODELS: readonly ModelInfo[] = [
  model('acme:tiny', {
    pricing: { inputPerMTok: 0.1, outputPerMTok: 0.4 },
    contextWindow: 8_000,
    maxOutputTokens: 2_000,
    capabilities: { tools: false, vision: false, jsonMode: false, streaming: true },
    qualityScore: 1150,
    activeParamsB: 3,
    typicalTtftMs: 120,
    typicalTokensPerSecond: 200,
  }),
  model('acme:mid', { pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 }, qualityScore: 1280, activeParamsB: 70, typicalTtftMs: 300, typicalTokensPerSecond: 90 }),
  model('acme:big', {
    pricing: { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 },
    contextWindow: 200_000,
    maxOutputTokens: 32_000,
    qualityScore: 1390,
    activeParamsB: 400,
    typicalTtftMs: 700,
    typicalTokensPerSecond: 45,
  }),
  model('green:mid', {
    pricing: { inputPerMTok: 0.6, outputPerMTok: 1.8 },
    qualityScore: 1270,
    activeParamsB: 70,
    region: { pue: 1.1, gridGCo2PerKWh: 30 },
    typicalTtftMs: 450,
    typicalTokensPerSecond: 70,
  }),
];

export const fixtureCatalog: ModelCatalog = createModelCatalog(FIXTURE_MODELS);
export const FIXTURE_IDS = FIXTURE_MODELS.map((entry) => entry.id);

export function fixtureModel(id: string): ModelInfo {
  const found = fixtureCatalog.get(id);
  if (found === undefined) throw new Error(`no fixture model ${id}`);
  return found;
}

export function userRequest(text: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { messages: [{ role: 'user', content: text }], ...extra };
}

export interface FakeHealthState {
  /** Model id → unavailable until this time (epoch ms). */
  readonly downUntil?: ReadonlyMap<string, number>;
  readonly latency?: ReadonlyMap<string, LatencyEstimate>;
}

/** A ModelHealthView from fixed answers, read against the injected clock. */
export function fakeHealth(state: FakeHealthState = {}): ModelHealthView {
  const availability = (id: string, now: number): Availability => {
    const until = state.downUntil?.get(id);
    return until !== undefined && now < until ? { available: false, reason: 'circuit_open', until } : { available: true, probe: false };
  };
  return {
    isAvailable: (id, now) => availability(id, now).available,
    availability,
    latency: (id) => state.latency?.get(id),
    errorRate: () => 0,
  };
}

export function strategyContext(fields: Partial<StrategyContext> = {}): StrategyContext {
  return { settings: {}, now: T0, random: () => 0.99, request: userRequest('Hello'), ...fields };
}

/** The eligible candidates of `ids` for a request, in the given order. */
export function candidatesFor(
  ids: readonly string[],
  request: ChatRequest = userRequest('Hello'),
  options: { health?: ModelHealthView; settings?: RouterSettings; catalog?: ModelCatalog } = {},
): CandidateEstimate[] {
  return filterEligible({
    modelIds: ids,
    catalog: options.catalog ?? fixtureCatalog,
    profile: profileRequest(request),
    settings: options.settings ?? {},
    health: options.health,
    now: T0,
  }).eligible;
}

export const ids = (ranked: readonly { candidate: CandidateEstimate }[]): string[] => ranked.map((entry) => entry.candidate.model.id);

/** Any plausible model, with prices in whole cents so ties are real ties, not float noise. */
export function arbitraryModel(id: string): fc.Arbitrary<ModelInfo> {
  return fc
    .record({
      input: fc.integer({ min: 0, max: 10_000 }),
      output: fc.integer({ min: 0, max: 20_000 }),
      contextWindow: fc.integer({ min: 1_000, max: 2_000_000 }),
      maxOutputShare: fc.double({ min: 0.001, max: 1, noNaN: true }),
      tools: fc.boolean(),
      vision: fc.boolean(),
      quality: fc.integer({ min: 1000, max: 1500 }),
      activeParamsB: fc.integer({ min: 1, max: 1000 }),
      pue: fc.integer({ min: 100, max: 160 }),
      grid: fc.integer({ min: 10, max: 900 }),
      ttft: fc.integer({ min: 50, max: 3000 }),
      tps: fc.integer({ min: 5, max: 500 }),
    })
    .map((draw) =>
      model(id, {
        pricing: { inputPerMTok: draw.input / 100, outputPerMTok: draw.output / 100 },
        contextWindow: draw.contextWindow,
        maxOutputTokens: Math.max(1, Math.floor(draw.contextWindow * draw.maxOutputShare)),
        capabilities: { tools: draw.tools, vision: draw.vision, jsonMode: true, streaming: true },
        qualityScore: draw.quality,
        activeParamsB: draw.activeParamsB,
        region: { pue: draw.pue / 100, gridGCo2PerKWh: draw.grid },
        typicalTtftMs: draw.ttft,
        typicalTokensPerSecond: draw.tps,
      }),
    );
}

/** 1 to `max` models with distinct ids `p:m0`, `p:m1`… */
export function arbitraryModels(max = 6): fc.Arbitrary<ModelInfo[]> {
  return fc.integer({ min: 1, max }).chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => arbitraryModel(`p:m${index}`))));
}

/** Live latency figures for some models: ttft, speed and a sample count. */
export function arbitraryLatency(): fc.Arbitrary<LatencyEstimate> {
  return fc.record({ ttftMs: fc.integer({ min: 20, max: 5000 }), tokensPerSecond: fc.integer({ min: 2, max: 800 }), samples: fc.integer({ min: 1, max: 500 }) });
}
