import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createModelCatalog, type ModelInfo } from '../catalog/catalog.js';
import { GatewayError } from '../lib/errors.js';
import type { ChatRequest } from '../providers/contract.js';
import { FIXTURE_MODELS, T0, fakeHealth, userRequest } from '../../test/support/routing-fixtures.js';
import { planRoute, type PlanRouteInput } from './plan-route.js';
import { estimateCandidate, profileEmbeddingRequest, profileRequest } from './strategies/estimates.js';

function embeddingModel(id: string, space: string, fields: Partial<ModelInfo> = {}): ModelInfo {
  const [provider = '', model = ''] = id.split(':');
  return {
    id,
    provider,
    model,
    displayName: id,
    pricing: { inputPerMTok: 0.02, outputPerMTok: 0 },
    contextWindow: 100,
    maxOutputTokens: 0,
    capabilities: { tools: false, vision: false, jsonMode: false, streaming: false },
    qualityScore: 1000,
    activeParamsB: 0.5,
    region: { pue: 1.2, gridGCo2PerKWh: 400 },
    typicalTtftMs: 200,
    typicalTokensPerSecond: 1000,
    simulated: false,
    kind: 'embedding',
    embedding: { dimensions: 1536, shortenable: true, space, maxBatch: 2048 },
    ...fields,
  };
}

const catalog = createModelCatalog([
  ...FIXTURE_MODELS,
  embeddingModel('openai:small-embed', 'openai/small-embed'),
  embeddingModel('azure:small-embed', 'openai/small-embed', { pricing: { inputPerMTok: 0.03, outputPerMTok: 0 }, typicalTtftMs: 100, region: { pue: 1.1, gridGCo2PerKWh: 300 } }),
  embeddingModel('google:other-embed', 'google/other-embed'),
]);

/** One user message per input, as the embeddings endpoint gives them. */
function embeddingRequest(...inputs: string[]): ChatRequest {
  return { messages: inputs.map((input) => ({ role: 'user', content: input })) };
}

const embeddingRouter = { strategy: 'cost_optimized', models: ['openai:small-embed', 'azure:small-embed'] };
const base: PlanRouteInput = { router: embeddingRouter, request: embeddingRequest('hello world'), catalog, health: undefined, now: T0, random: () => 0.5, kind: 'embedding' };

function refusal(input: PlanRouteInput): GatewayError {
  try {
    planRoute(input);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('planRoute did not refuse');
}

describe('planning an embedding request', () => {
  it('ranks the deployments of one model by input alone: no output tokens, cost and latency of the input', () => {
    const plan = planRoute({ ...base, request: embeddingRequest('a'.repeat(400), 'b'.repeat(400)) });
    assert.deepEqual(plan.ranked.map((entry) => entry.candidate.model.id), ['openai:small-embed', 'azure:small-embed']);
    assert.equal(plan.promptTokens, 200, 'two inputs of 100 tokens, without a chat\'s framing');
    for (const { candidate } of plan.ranked) {
      assert.equal(candidate.outputTokens, 0);
      assert.equal(candidate.expectedCostUsd, (200 * candidate.model.pricing.inputPerMTok) / 1e6);
      assert.equal(candidate.expectedLatencyMs, candidate.model.typicalTtftMs);
      assert.equal(candidate.expectedCarbonGrams, 0, 'EcoLogits counts generated tokens only');
    }
    const latency = planRoute({ ...base, router: { ...embeddingRouter, strategy: 'latency_optimized' } });
    assert.equal(latency.ranked[0]?.candidate.model.id, 'azure:small-embed');
    // Equal estimates: the data centre with the cleaner kilowatt-hour (PUE × grid) comes first, whichever is listed first.
    for (const models of [embeddingRouter.models, [...embeddingRouter.models].reverse()]) {
      const carbon = planRoute({ ...base, router: { strategy: 'carbon_optimized', models } });
      assert.equal(carbon.ranked[0]?.candidate.model.id, 'azure:small-embed');
    }
  });

  it('checks each input against the window, not the whole batch', () => {
    const batch = embeddingRequest('x'.repeat(360), 'y'.repeat(360), 'z'.repeat(360));
    assert.equal(planRoute({ ...base, request: batch }).ranked.length, 2, '3 inputs of 90 tokens fit a window of 100 each');
    const error = refusal({ ...base, request: embeddingRequest('short', 'w'.repeat(420)) });
    assert.equal(error.status, 400);
    assert.equal(error.code, 'context_length_exceeded');
    assert.equal(error.param, 'input');
    assert.match(error.message, /input limit 100 < 105 tokens in the longest input/);
  });

  it('never reaches a chat model, and a chat request never reaches an embedding model', () => {
    const mixed = { strategy: 'cost_optimized', models: ['acme:mid', 'openai:small-embed', 'azure:small-embed'] };
    const embedding = planRoute({ ...base, router: mixed });
    assert.deepEqual(embedding.ranked.map((entry) => entry.candidate.model.id), ['openai:small-embed', 'azure:small-embed']);
    assert.deepEqual(embedding.dropped, [{ model: 'acme:mid', code: 'kind', reason: 'a chat model cannot embed' }]);

    const chat = planRoute({ ...base, router: mixed, request: userRequest('Hello'), kind: undefined });
    assert.deepEqual(chat.ranked.map((entry) => entry.candidate.model.id), ['acme:mid']);
    assert.deepEqual(
      chat.dropped.map((drop) => [drop.model, drop.code, drop.reason]),
      [
        ['openai:small-embed', 'kind', 'an embedding model cannot answer a chat request'],
        ['azure:small-embed', 'kind', 'an embedding model cannot answer a chat request'],
      ],
    );
  });

  it('says which endpoint a router serves when a request of the other kind reaches it', () => {
    const chat = refusal({ ...base, request: userRequest('Hello'), kind: 'chat' });
    assert.equal(chat.status, 400);
    assert.equal(chat.param, 'model');
    assert.match(chat.message, /This router serves embeddings, not chat/);
    const embedding = refusal({ ...base, router: { strategy: 'cost_optimized', models: ['acme:mid', 'acme:big'] } });
    assert.match(embedding.message, /This router serves chat, not embeddings/);
  });

  it('stays in the vector space of the router\'s first model, even while that model is down', () => {
    // A router that mixes spaces can no longer be saved; one stored before a model was redeclared still never mixes vectors.
    const router = { strategy: 'cost_optimized', models: ['openai:small-embed', 'google:other-embed', 'azure:small-embed'] };
    const plan = planRoute({ ...base, router });
    assert.deepEqual(plan.ranked.map((entry) => entry.candidate.model.id), ['openai:small-embed', 'azure:small-embed']);
    assert.match(plan.dropped[0]?.reason ?? '', /^gives vectors in google\/other-embed space, not the router's openai\/small-embed/);
    const down = fakeHealth({ downUntil: new Map([['openai:small-embed', T0 + 60_000]]) });
    const fallback = planRoute({ ...base, router, health: down });
    assert.deepEqual(fallback.ranked.map((entry) => entry.candidate.model.id), ['azure:small-embed']);
  });

  it('drops the models the caller says cannot take the input, and refuses when none can', () => {
    const plan = planRoute({ ...base, refuseInput: (model) => (model.provider === 'azure' ? 'token-array input' : undefined) });
    assert.deepEqual(plan.ranked.map((entry) => entry.candidate.model.id), ['openai:small-embed']);
    assert.deepEqual(plan.dropped, [{ model: 'azure:small-embed', code: 'input', reason: 'token-array input' }]);
    const textOnly = { strategy: 'cost_optimized', models: ['google:other-embed'] };
    const error = refusal({ ...base, router: textOnly, refuseInput: (model) => (model.provider === 'google' ? 'token-array input' : undefined) });
    assert.equal(error.status, 400);
    assert.equal(error.code, 'unsupported_value');
    assert.equal(error.param, 'input');
    assert.match(error.message, /google:other-embed: token-array input/);
  });

  it('leaves a chat request\'s profile as it was', () => {
    const request = userRequest('Hello there');
    const profile = profileRequest(request);
    assert.equal(profile.embedding, undefined);
    const chat = FIXTURE_MODELS[1];
    assert.ok(chat !== undefined);
    assert.equal(estimateCandidate(chat, profile, undefined).outputTokens, 256);
    assert.equal(profileEmbeddingRequest(request).embedding?.longestInputTokens, 3);
  });
});
