import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadShippedCatalog } from '../../src/catalog/catalog.js';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { requestedModel, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { usageRecordOf } from '../support/usage-records.js';

/**
 * Every figure of `_meta` can be recomputed from what `_meta` shows: the carbon from `_meta.carbon`'s inputs by
 * EcoLogits 0.9.1's formula (typed out below, not imported), the cost from `_meta.prices` and the answering
 * attempt's tokens. Through the real gateway, whole and streamed, with a failed attempt and a broken stream.
 */

interface CarbonMeta {
  carbonGrams: number;
  energyWh: number;
  gridGramsPerKWh: number;
  pue: number;
  activeParamsB: number;
  totalParamsB: number;
  gpus: number;
  latencySeconds: number;
  outputTokens: number;
  embodiedGrams: number;
  method: string;
}

interface AttemptMeta {
  model: string;
  outcome: string;
  reason?: string;
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
  cacheWritePromptTokens?: number;
  reasoningTokens?: number;
  cost: number;
  carbonGrams: number;
}

interface Meta {
  requestId: string;
  modelUsed: string;
  cost: number;
  carbonGrams: number;
  embodiedCarbonGrams: number;
  latencyMs: number;
  carbon: CarbonMeta;
  prices: { inputPerMTok: number; outputPerMTok: number; cachedInputPerMTok: number; cacheWritePerMTok: number };
  attempts: AttemptMeta[];
}

/** EcoLogits 0.9.1, `ecologits/impacts/llm.py`, for one request: energy in Wh (PUE included), usage and embodied grams. */
function ecologits(input: { active: number; total: number; tokens: number; latency: number; pue: number; grid: number }) {
  const batch = 64;
  const gpuWhPerToken = 1.1665273170451914e-6 * Math.exp(-0.011205921025579175 * batch) * input.active + 4.052928146734005e-5;
  const modelled = input.tokens * (6.785088094353663e-4 * input.active + 3.119310311688259e-4 * batch + 1.9473717579473387e-2);
  const latency = Math.min(modelled, input.latency);
  const gpus = 2 ** Math.ceil(Math.log2(Math.max(1, Math.ceil((1.2 * input.total * 16) / 8 / 80))));
  const serverWh = ((latency / 3600) * 1200 * (gpus / 8)) / batch;
  const energyWh = input.pue * (serverWh + gpus * input.tokens * gpuWhPerToken);
  const embodiedGrams = ((latency * ((gpus / 8) * 5700 + gpus * 164)) / (3 * 365 * 86400 * batch)) * 1000;
  return { energyWh, carbonGrams: (energyWh / 1000) * input.grid, embodiedGrams, gpus, modelled };
}

function close(actual: number, expected: number, label: string, share = 1e-4): void {
  assert.ok(Math.abs(actual - expected) <= share * Math.abs(expected) + 1e-15, `${label}: ${actual} vs ${expected}`);
}

const catalog = loadShippedCatalog();

/** The carbon and cost of `meta` against the formula, the catalog, and the tokens the upstream reported. */
function checkMeta(meta: Meta, expected: { model: string; completionTokens: number; promptTokens: number }): void {
  const model = catalog.get(expected.model) ?? assert.fail(`${expected.model} is not in the catalog`);
  const { carbon } = meta;
  assert.equal(carbon.method, 'ecologits-0.9');
  assert.equal(carbon.activeParamsB, model.activeParamsB);
  assert.equal(carbon.totalParamsB, model.totalParamsB ?? model.activeParamsB);
  assert.equal(carbon.pue, model.region.pue);
  assert.equal(carbon.gridGramsPerKWh, model.region.gridGCo2PerKWh);
  assert.equal(carbon.outputTokens, expected.completionTokens, 'reasoning tokens are generated tokens: counted');
  assert.ok(carbon.latencySeconds > 0 && carbon.latencySeconds <= meta.latencyMs / 1000, 'the latency used is at most the measured one');

  const reference = ecologits({ active: carbon.activeParamsB, total: carbon.totalParamsB, tokens: carbon.outputTokens, latency: carbon.latencySeconds, pue: carbon.pue, grid: carbon.gridGramsPerKWh });
  assert.ok(carbon.latencySeconds <= reference.modelled * (1 + 1e-6), "never more than EcoLogits' latency model");
  assert.equal(carbon.gpus, reference.gpus);
  close(carbon.energyWh, reference.energyWh, 'energy');
  close(carbon.carbonGrams, reference.carbonGrams, 'carbon');
  close(carbon.embodiedGrams, reference.embodiedGrams, 'embodied');
  assert.equal(meta.carbonGrams, carbon.carbonGrams);
  assert.equal(meta.embodiedCarbonGrams, carbon.embodiedGrams);

  const answered = meta.attempts.at(-1) ?? assert.fail('no attempt');
  assert.equal(answered.model, expected.model);
  assert.equal(answered.promptTokens, expected.promptTokens);
  assert.equal(answered.completionTokens, expected.completionTokens);
  const cached = answered.cachedPromptTokens ?? 0;
  const written = answered.cacheWritePromptTokens ?? 0;
  const prices = meta.prices;
  assert.equal(prices.inputPerMTok, model.pricing.inputPerMTok);
  assert.equal(prices.outputPerMTok, model.pricing.outputPerMTok);
  const recomputed =
    ((answered.promptTokens - cached - written) * prices.inputPerMTok +
      cached * prices.cachedInputPerMTok +
      written * prices.cacheWritePerMTok +
      answered.completionTokens * prices.outputPerMTok) /
    1e6;
  close(meta.cost, recomputed, 'cost', 1e-6);
  close(meta.attempts.reduce((sum, attempt) => sum + attempt.cost, 0), meta.cost, 'the attempts add up to the cost', 1e-9);
  assert.equal(answered.carbonGrams, meta.carbonGrams);
}

/** The `_meta` of the last chunk carrying one, or of the error event that ended a broken stream. */
function lastMeta(sse: string): Meta {
  const events = sse
    .split('\n\n')
    .filter((block) => block.startsWith('data: ') && block !== 'data: [DONE]')
    .map((block) => JSON.parse(block.slice('data: '.length)) as { _meta?: Meta });
  return events.findLast((event) => event._meta !== undefined)?._meta ?? assert.fail('no _meta in the stream');
}

describe('carbon and cost in _meta recompute from the inputs _meta shows', () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gateway: Gateway;
  let anthropicRouter: string;

  const record = (id: string) => usageRecordOf(gateway, id);
  const post = async (router: string, body: Record<string, unknown>) => {
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: router, messages: [{ role: 'user', content: 'Tell me about carbon.' }], ...body }),
    });
    return { status: response.status, text: await response.text() };
  };

  before(async () => {
    openai = await startFakeOpenAI({ apiKey: 'sk-test' });
    anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
    gateway = await startGateway({
      env: {
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        MODELPORT_DEFAULT_RPM: '100000',
      },
      // cost_optimized tries gpt-4o-mini (dense) first, then gpt-4o (a mixture of experts in the catalog).
      models: ['openai:gpt-4o-mini', 'openai:gpt-4o'],
      strategy: 'cost_optimized',
    });
    anthropicRouter = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'claude', models: ['anthropic:claude-haiku-4-5'], strategy: 'cost_optimized' })).id;
  });
  after(async () => {
    await gateway.close();
    await openai.close();
    await anthropic.close();
  });
  beforeEach(() => {
    openai.reset();
    openai.setHandler(undefined);
  });

  for (const stream of [false, true]) {
    it(`a fallback's attempts, reasoning tokens and cached tokens, ${stream ? 'streamed' : 'whole'}`, async () => {
      const usage = { prompt_tokens: 900, completion_tokens: 420, cached_tokens: 300, reasoning_tokens: 120 };
      openai.setHandler((request) =>
        requestedModel(request) === 'gpt-4o-mini'
          ? { type: 'error', status: 500, body: { error: { message: 'boom', type: 'server_error', code: null } } }
          : { type: 'answer', content: 'Carbon is element six.', usage, ...(stream ? { transport: { writeSizes: [7, 13] } } : {}) },
      );
      const answer = await post(gateway.router.id, stream ? { stream: true } : {});
      assert.equal(answer.status, 200, answer.text);
      const meta = stream ? lastMeta(answer.text) : (JSON.parse(answer.text) as { _meta: Meta })._meta;

      assert.equal(meta.modelUsed, 'openai:gpt-4o');
      assert.deepEqual(
        meta.attempts.map(({ model, outcome, promptTokens, completionTokens, cost }) => ({ model, outcome, promptTokens, completionTokens, cost })),
        [
          { model: 'openai:gpt-4o-mini', outcome: 'failed', promptTokens: 0, completionTokens: 0, cost: 0 },
          { model: 'openai:gpt-4o', outcome: 'ok', promptTokens: 900, completionTokens: 420, cost: meta.cost },
        ],
      );
      assert.equal(meta.attempts[1]?.cachedPromptTokens, 300);
      assert.equal(meta.attempts[1]?.reasoningTokens, 120);
      checkMeta(meta, { model: 'openai:gpt-4o', promptTokens: 900, completionTokens: 420 });
      assert.ok(meta.carbon.gpus > 1, 'a mixture of experts is held on GPUs for all its parameters');

      const row = await record(meta.requestId);
      assert.equal(row.carbon_grams, meta.carbonGrams);
      assert.equal(row.energy_wh, meta.carbon.energyWh);
      assert.equal(row.cost_usd, meta.cost);
      assert.deepEqual([row.cached_prompt_tokens, row.reasoning_tokens, row.cache_write_prompt_tokens], [300, 120, 0]);
    });
  }

  for (const stream of [false, true]) {
    it(`cache writes at the cache-write price, from Anthropic, ${stream ? 'streamed' : 'whole'}`, async () => {
      anthropic.enqueue({
        type: 'answer',
        content: [{ type: 'text', text: 'Cached and written.' }],
        usage: { input_tokens: 100, output_tokens: 80, cache_creation_input_tokens: 2_000, cache_read_input_tokens: 500 },
      });
      const answer = await post(anthropicRouter, stream ? { stream: true } : {});
      assert.equal(answer.status, 200, answer.text);
      const meta = stream ? lastMeta(answer.text) : (JSON.parse(answer.text) as { _meta: Meta })._meta;
      const answered = meta.attempts.at(-1);
      assert.equal(answered?.cacheWritePromptTokens, 2_000);
      assert.equal(answered?.cachedPromptTokens, 500);
      assert.ok(meta.prices.cacheWritePerMTok > meta.prices.inputPerMTok, 'Anthropic charges more to write the cache than to read the prompt');
      checkMeta(meta, { model: 'anthropic:claude-haiku-4-5', promptTokens: 2_600, completionTokens: 80 });
      const row = await record(meta.requestId);
      assert.deepEqual([row.cached_prompt_tokens, row.cache_write_prompt_tokens], [500, 2_000]);
    });
  }

  it('a stream that broke after its first bytes: its attempt failed, still billed and counted', async () => {
    openai.setHandler((request) =>
      requestedModel(request) === 'gpt-4o-mini'
        ? { type: 'answer', content: 'One two three four five six seven eight nine ten.', transport: { resetAfterEvents: 6 } }
        : undefined,
    );
    const answer = await post(gateway.router.id, { stream: true });
    assert.equal(answer.status, 200);
    const meta = lastMeta(answer.text);
    const last = meta.attempts.at(-1) ?? assert.fail('no attempt');
    assert.equal(meta.attempts.length, 1, 'no fallback once bytes were sent');
    assert.equal(last.outcome, 'failed');
    assert.ok(last.reason !== undefined && last.reason.length > 0);
    assert.ok(last.completionTokens > 0 && last.cost > 0, 'what was generated before the break is billed');
    checkMeta(meta, { model: 'openai:gpt-4o-mini', promptTokens: last.promptTokens, completionTokens: last.completionTokens });
    const row = await record(meta.requestId);
    assert.ok(row.status >= 500);
    assert.equal(row.cost_usd, meta.cost);
    assert.equal(row.energy_wh, meta.carbon.energyWh);
  });
});
