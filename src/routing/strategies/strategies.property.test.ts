import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ChatRequest } from '../../providers/contract.js';
import { createModelCatalog, type ModelInfo } from '../../catalog/catalog.js';
import type { LatencyEstimate } from '../routing-contract.js';
import { T0, arbitraryLatency, arbitraryModels, fakeHealth, ids, strategyContext } from '../../../test/support/routing-fixtures.js';
import { filterEligible } from './eligibility.js';
import { profileRequest } from './estimates.js';
import { latencyStrategy } from './latency-strategy.js';
import { STRATEGY_NAMES, type CandidateEstimate } from './routing-strategy.js';
import { defaultStrategies } from './strategy-registry.js';

/** A request of any size, with or without tools, images, history and max_tokens. */
const arbitraryRequest: fc.Arbitrary<ChatRequest> = fc
  .record({
    promptCharacters: fc.oneof(fc.integer({ min: 1, max: 900 }), fc.integer({ min: 900, max: 4_000_000 })),
    maxTokens: fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: undefined }),
    tools: fc.boolean(),
    image: fc.boolean(),
    history: fc.array(fc.integer({ min: 1, max: 20_000 }), { maxLength: 3 }),
  })
  .map(({ promptCharacters, maxTokens, tools, image, history }): ChatRequest => ({
    messages: [
      ...history.flatMap((length) => [
        { role: 'user' as const, content: 'q' },
        { role: 'assistant' as const, content: 'a'.repeat(length) },
      ]),
      image
        ? { role: 'user' as const, content: [{ type: 'text', text: 'b '.repeat(promptCharacters >> 1) }, { type: 'image_url', image_url: { url: 'https://example.com/i.png' } }] }
        : { role: 'user' as const, content: 'b '.repeat(promptCharacters >> 1) },
    ],
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(tools ? { tools: [{ type: 'function' as const, function: { name: 'lookup' } }] } : {}),
  }));

interface World {
  readonly models: ModelInfo[];
  readonly request: ChatRequest;
  readonly down: ReadonlySet<string>;
  readonly latency: ReadonlyMap<string, LatencyEstimate>;
  readonly ceiling: number | undefined;
  readonly randomDraw: number;
}

const arbitraryWorld: fc.Arbitrary<World> = arbitraryModels().chain((models) =>
  fc.record({
    models: fc.constant(models),
    request: arbitraryRequest,
    down: fc.subarray(models.map((model) => model.id)).map((list) => new Set(list)),
    latency: fc.array(fc.tuple(fc.constantFrom(...models.map((model) => model.id)), arbitraryLatency())).map((entries) => new Map(entries)),
    ceiling: fc.option(fc.integer({ min: 1, max: 100_000 }).map((micro) => micro / 1e6), { nil: undefined }),
    randomDraw: fc.double({ min: 0, max: 0.999_999, noNaN: true }),
  }),
);

function eligibilityOf(world: World) {
  const health = fakeHealth({ downUntil: new Map([...world.down].map((id) => [id, T0 + 1])), latency: world.latency });
  return filterEligible({
    modelIds: world.models.map((model) => model.id),
    catalog: createModelCatalog(world.models),
    profile: profileRequest(world.request),
    settings: world.ceiling === undefined ? {} : { maxCostPerRequestUsd: world.ceiling },
    health,
    now: T0,
  });
}

const sortedIds = (candidates: readonly CandidateEstimate[]) => candidates.map((candidate) => candidate.model.id).sort();

describe('routing properties', () => {
  it('eligibility never lets through a model too small, lacking a capability, unavailable or over the ceiling', () => {
    fc.assert(
      fc.property(arbitraryWorld, (world) => {
        const profile = profileRequest(world.request);
        const { eligible, dropped } = eligibilityOf(world);
        for (const candidate of eligible) {
          const model = candidate.model;
          assert.ok(profile.promptTokens + (profile.maxTokens ?? 0) <= model.contextWindow, `${model.id}: context`);
          if (profile.needsTools) assert.ok(model.capabilities.tools, `${model.id}: tools`);
          if (profile.needsVision) assert.ok(model.capabilities.vision, `${model.id}: vision`);
          assert.ok(!world.down.has(model.id), `${model.id}: unavailable`);
          if (world.ceiling !== undefined) assert.ok(candidate.expectedCostUsd <= world.ceiling, `${model.id}: ceiling`);
        }
        // Every model is either eligible or dropped with a reason, never both, never lost.
        assert.deepEqual([...eligible.map((c) => c.model.id), ...dropped.map((d) => d.model)].sort(), world.models.map((m) => m.id).sort());
        for (const drop of dropped) assert.ok(drop.reason.length > 0);
      }),
      { numRuns: 400 },
    );
  });

  it('every strategy returns a permutation of exactly the eligible models', () => {
    fc.assert(
      fc.property(arbitraryWorld, fc.constantFrom(...STRATEGY_NAMES), (world, name) => {
        const { eligible } = eligibilityOf(world);
        const ranked = defaultStrategies[name].rank(eligible, strategyContext({ random: () => world.randomDraw, request: world.request }));
        assert.deepEqual(ranked.map((entry) => entry.candidate.model.id).sort(), sortedIds(eligible));
        for (const entry of ranked) {
          assert.ok(Number.isFinite(entry.score), `${name}: finite score`);
          assert.ok(entry.reason.length > 0);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('balanced with all the weight on one criterion orders exactly like that criterion\'s strategy', () => {
    const criteria = [
      ['cost', 'cost_optimized'],
      ['latency', 'latency_optimized'],
      ['quality', 'quality_optimized'],
      ['carbon', 'carbon_optimized'],
    ] as const;
    fc.assert(
      fc.property(arbitraryWorld, fc.constantFrom(...criteria), (world, [criterion, name]) => {
        // Every model measured enough and a draw that never explores: latency_optimized ranks by expected latency alone.
        const measured = new Map(world.models.map((model) => [model.id, world.latency.get(model.id) ?? { ttftMs: model.typicalTtftMs, tokensPerSecond: model.typicalTokensPerSecond, samples: 0 }]));
        const warmed = new Map([...measured].map(([id, estimate]) => [id, { ...estimate, samples: estimate.samples + 3 }]));
        const { eligible } = eligibilityOf({ ...world, latency: warmed });
        const context = strategyContext({ random: () => 0.99, request: world.request });
        const single = defaultStrategies[name].rank(eligible, context);
        const balanced = defaultStrategies.balanced.rank(eligible, { ...context, settings: { weights: { [criterion]: 1 } } });
        assert.deepEqual(ids(balanced), ids(single));
      }),
      { numRuns: 400 },
    );
  });

  it('latency_optimized prefers a model measured fast over catalog figures once measured', () => {
    fc.assert(
      fc.property(arbitraryModels(5), fc.integer({ min: 0, max: 4 }), (models, pick) => {
        const chosen = models[pick % models.length];
        assert.ok(chosen !== undefined);
        // Everyone measured as the catalog says, except the chosen one, which the catalog calls the slowest but is measured fastest.
        const slowest = { ...chosen, typicalTtftMs: 100_000, typicalTokensPerSecond: 1 };
        const catalogModels = models.map((model) => (model.id === chosen.id ? slowest : model));
        const latency = new Map(
          catalogModels.map((model) => [model.id, { ttftMs: model.typicalTtftMs, tokensPerSecond: model.typicalTokensPerSecond, samples: 10 }] as const),
        );
        latency.set(chosen.id, { ttftMs: 1, tokensPerSecond: 100_000, samples: 10 });
        const world: World = { models: catalogModels, request: { messages: [{ role: 'user', content: 'Hi' }] }, down: new Set(), latency, ceiling: undefined, randomDraw: 0.99 };
        const { eligible } = eligibilityOf(world);
        const ranked = latencyStrategy.rank(eligible, strategyContext({ random: () => 0.99 }));
        assert.equal(ranked[0]?.candidate.model.id, chosen.id);
        assert.equal(ranked[0]?.candidate.latencySource, 'measured');
        // Unmeasured, the same model is ranked by its (slow) catalog figures: last.
        const unmeasured = eligibilityOf({ ...world, latency: new Map() }).eligible;
        if (unmeasured.length > 1) assert.equal(ids(latencyStrategy.rank(unmeasured, strategyContext({ random: () => 0.99 }))).at(-1), chosen.id);
      }),
      { numRuns: 300 },
    );
  });
});
