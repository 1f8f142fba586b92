import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CATALOG_PATH, buildCatalog, genaiPricesVersion, readModelFacts, serializeCatalog } from '../../scripts/refresh-catalog.js';
import { PROVIDER_PRESETS } from '../providers/credentials/provider-presets.js';
import { catalogFromData, loadShippedCatalog, modelKind, parseModelRef } from './catalog.js';
import { shippedCatalogSchema } from './data/shipped-catalog-schema.js';

const shippedText = readFileSync(CATALOG_PATH, 'utf8');
const shipped = shippedCatalogSchema.parse(JSON.parse(shippedText));
const catalog = loadShippedCatalog();
const models = catalog.list();
const chatModels = models.filter((model) => !model.simulated && model.kind !== 'embedding');
const knownProviders = new Set([...PROVIDER_PRESETS.map((preset) => preset.name), 'sim']);
const LOCAL_PROVIDERS = new Set(['ollama', 'vllm', 'lmstudio', 'llamacpp']);

describe('shipped model catalog', () => {
  it('has at least 60 real chat models, across the providers routers are built from', () => {
    assert.ok(chatModels.length >= 60, `${chatModels.length} models`);
    const count = (provider: string) => chatModels.filter((model) => model.provider === provider).length;
    for (const provider of ['openai', 'anthropic', 'gemini', 'mistral', 'deepseek', 'groq', 'together', 'xai', 'ollama']) {
      assert.ok(count(provider) >= 2, `${provider}: ${count(provider)} models`);
    }
    for (const provider of ['fireworks', 'cerebras', 'openrouter', 'perplexity', 'vllm', 'azure', 'bedrock']) {
      assert.ok(count(provider) >= 1, `${provider}: no model`);
    }
    const llamas = chatModels.filter((model) => /llama/i.test(model.model));
    for (const provider of ['groq', 'together']) assert.ok(llamas.some((model) => model.provider === provider), `a Llama on ${provider}`);
  });

  it('keeps the models other code and tests name', () => {
    for (const id of [
      'openai:gpt-4o',
      'openai:gpt-4o-mini',
      'openai:gpt-4.1-nano',
      'anthropic:claude-3-5-haiku-latest',
      'anthropic:claude-sonnet-4-5',
      'gemini:gemini-2.0-flash',
      'gemini:gemini-2.5-pro',
      'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0',
      'bedrock:amazon.nova-lite-v1:0',
      'bedrock:meta.llama3-1-70b-instruct-v1:0',
      'azure:gpt-4o-mini',
      'groq:llama-3.3-70b-versatile',
      'together:meta-llama/Llama-3.3-70B-Instruct-Turbo',
      'deepseek:deepseek-chat',
      'ollama:llama3.1',
    ]) {
      assert.equal(catalog.get(id)?.id, id, id);
    }
  });

  it('names every model provider:model with a known provider preset', () => {
    for (const model of models) {
      const ref = parseModelRef(model.id);
      assert.ok(ref !== undefined, model.id);
      assert.equal(ref.provider, model.provider);
      assert.ok(knownProviders.has(model.provider), `${model.id}: unknown provider ${model.provider}`);
      for (const alias of model.aliases ?? []) assert.equal(parseModelRef(alias)?.provider, model.provider, `${model.id}: alias ${alias}`);
    }
  });

  it('gives every figure a source', () => {
    for (const entry of shipped.models) {
      assert.ok(entry.pricing.source.length > 0, `${entry.id}: price source`);
      assert.ok(entry.quality.source.length > 0, `${entry.id}: quality source`);
      assert.match(entry.activeParamsB.source, /^(published|estimate|simulated|EcoLogits 0\.9\.1 data\/models\.json, )/, `${entry.id}: parameter count source`);
      assert.match(entry.totalParamsB.source, /^(published|estimate|simulated|dense|EcoLogits 0\.9\.1 data\/models\.json, )/, `${entry.id}: total parameter source`);
      assert.ok(entry.limitsSource.length > 0 && entry.capabilitiesSource.length > 0 && entry.speedSource.length > 0, entry.id);
      if (entry.retired) assert.ok((entry.retiredSource ?? '').length > 0, `${entry.id}: why retired`);
    }
  });

  it('takes the prices of hosted models from genai-prices (or by hand from the provider\'s price page), and prices local ones at zero', () => {
    assert.equal(shipped.pricesFrom, `@pydantic/genai-prices ${genaiPricesVersion()}`);
    const byHand: string[] = [];
    for (const entry of shipped.models) {
      const provider = parseModelRef(entry.id)?.provider ?? '';
      if (LOCAL_PROVIDERS.has(provider)) {
        assert.equal(entry.pricing.inputPerMTok + entry.pricing.outputPerMTok, 0, entry.id);
        assert.equal(entry.region, 'local', entry.id);
      } else if (provider !== 'sim' && !/^@pydantic\/genai-prices /.test(entry.pricing.source)) {
        // Only where genai-prices lacks the model or names another: the source says why and where the price is from.
        assert.match(entry.pricing.source, /^by hand: .*genai-prices/, `${entry.id}: why not genai-prices`);
        assert.match(entry.pricing.source, /[a-z]\.(com|dev)\/\S/, `${entry.id}: the provider's price page`);
        byHand.push(entry.id);
      }
    }
    assert.deepEqual(byHand.sort(), ['bedrock:amazon.titan-embed-text-v2:0', 'gemini:text-embedding-004']);
  });

  it('ships embedding models with their dimensions, vector space and input-only prices', () => {
    const expected: Record<string, [dimensions: number, shortenable: boolean, space: string, inputPerMTok: number]> = {
      'openai:text-embedding-3-small': [1536, true, 'openai/text-embedding-3-small', 0.02],
      'openai:text-embedding-3-large': [3072, true, 'openai/text-embedding-3-large', 0.13],
      'openai:text-embedding-ada-002': [1536, false, 'openai/text-embedding-ada-002', 0.1],
      'azure:text-embedding-3-small': [1536, true, 'openai/text-embedding-3-small', 0.02],
      'azure:text-embedding-3-large': [3072, true, 'openai/text-embedding-3-large', 0.13],
      'azure:text-embedding-ada-002': [1536, false, 'openai/text-embedding-ada-002', 0.1],
      'gemini:gemini-embedding-001': [3072, true, 'google/gemini-embedding-001', 0.15],
      'gemini:text-embedding-004': [768, true, 'google/text-embedding-004', 0.1],
      'mistral:mistral-embed': [1024, false, 'mistral/mistral-embed', 0.1],
      'bedrock:amazon.titan-embed-text-v2:0': [1024, true, 'amazon/titan-embed-text-v2', 0.02],
      'ollama:nomic-embed-text': [768, false, 'nomic/nomic-embed-text-v1.5', 0],
      'ollama:mxbai-embed-large': [1024, false, 'mixedbread/mxbai-embed-large-v1', 0],
      'vllm:BAAI/bge-m3': [1024, false, 'baai/bge-m3', 0],
      'sim:embed-small': [256, true, 'sim/embed-small', 0.02],
    };
    const embeddings = models.filter((model) => modelKind(model) === 'embedding');
    assert.deepEqual(embeddings.map((model) => model.id).sort(), Object.keys(expected).sort());
    for (const model of embeddings) {
      const { embedding } = model;
      assert.ok(embedding !== undefined, model.id);
      assert.deepEqual([embedding.dimensions, embedding.shortenable, embedding.space, model.pricing.inputPerMTok], expected[model.id], model.id);
      assert.equal(model.pricing.outputPerMTok, 0, `${model.id}: an embedding is priced by its input alone`);
      assert.equal(model.pricing.cachedInputPerMTok, undefined, model.id);
      assert.equal(model.maxOutputTokens, 0, model.id);
      assert.deepEqual(model.capabilities, { tools: false, vision: false, jsonMode: false, streaming: false }, model.id);
      assert.ok(embedding.maxBatch >= 1 && model.contextWindow >= 512, model.id);
    }
    assert.deepEqual(catalog.get('bedrock:amazon.titan-embed-text-v2:0')?.embedding?.dimensionChoices, [1024, 512, 256]);
    assert.equal(catalog.get('bedrock:amazon.titan-embed-text-v2:0')?.embedding?.maxBatch, 1, 'InvokeModel embeds one text a call');
    assert.equal(catalog.get('sim:embed-small')?.simulated, true);
    assert.equal(catalog.get('gemini:text-embedding-004')?.retired, true);
    assert.match(shipped.models.find((entry) => entry.id === 'mistral:mistral-embed')?.pricing.source ?? '', /output price is not applied/);
    assert.equal(catalog.get('ollama:nomic-embed-text:latest')?.id, 'ollama:nomic-embed-text');
    for (const model of chatModels) assert.equal(model.kind, undefined, `${model.id}: chat models carry no kind`);
  });

  it('refuses facts that give an embedding model chat figures, or price it by its output', () => {
    const facts = readModelFacts();
    const embeddingFact = facts.models.find((fact) => fact.id === 'sim:embed-small');
    assert.ok(embeddingFact?.embedding !== undefined);
    const { embedding } = embeddingFact;
    const build = (fact: typeof embeddingFact) => buildCatalog({ ...facts, models: [fact] }, { asOf: shipped.asOf, pricesVersion: genaiPricesVersion() });
    assert.throws(() => build({ ...embeddingFact, maxOutputTokens: 10 }), /an embedding model generates no tokens/);
    assert.throws(() => build({ ...embeddingFact, handPrice: { inputPerMTok: 1, outputPerMTok: 1, source: 'x' } }), /priced by its input alone/);
    assert.throws(() => build({ ...embeddingFact, embedding: { ...embedding, shortenable: false, dimensionChoices: [256, 128] } }), /dimensionChoices needs shortenable/);
  });

  it('keeps prices consistent: cache reads cost no more than input, tiers rise with the prompt', () => {
    for (const model of models) {
      const { pricing } = model;
      if (pricing.cachedInputPerMTok !== undefined) assert.ok(pricing.cachedInputPerMTok <= pricing.inputPerMTok, model.id);
      let previous = { aboveInputTokens: 0, inputPerMTok: pricing.inputPerMTok };
      for (const tier of pricing.tiers ?? []) {
        assert.ok(tier.aboveInputTokens > previous.aboveInputTokens && tier.inputPerMTok >= previous.inputPerMTok, `${model.id}: tiers`);
        previous = tier;
      }
      assert.ok(model.maxOutputTokens <= model.contextWindow, `${model.id}: output limit within the window`);
    }
    const pro = catalog.get('gemini:gemini-2.5-pro')?.pricing;
    assert.deepEqual(pro?.tiers?.map((tier) => tier.aboveInputTokens), [200_000]);
  });

  it('gives every model its total parameters: at least the active ones, more for a mixture of experts, as the catalog reports them', () => {
    for (const entry of shipped.models) {
      const { activeParamsB: active, totalParamsB: total } = entry;
      assert.ok(total.value >= active.value, `${entry.id}: ${total.value}B total below ${active.value}B active`);
      const moe = /\bMoE\b/.test(total.source);
      if (moe) assert.ok(total.value > active.value, `${entry.id}: a mixture of experts holds more than it uses per token`);
      else assert.equal(total.value, active.value, `${entry.id}: a model not said to be a mixture of experts is dense`);
      const model = catalog.get(entry.id);
      assert.equal(model?.activeParamsB, active.value, entry.id);
      assert.equal(model?.totalParamsB, moe ? total.value : undefined, `${entry.id}: the catalog gives totalParamsB for a mixture only`);
    }
    const moeIds = shipped.models.filter((entry) => entry.totalParamsB.value > entry.activeParamsB.value).map((entry) => entry.id);
    for (const id of ['deepseek:deepseek-chat', 'groq:meta-llama/llama-4-scout-17b-16e-instruct', 'cerebras:gpt-oss-120b', 'mistral:mistral-large-2512', 'openai:gpt-4o']) {
      assert.ok(moeIds.includes(id), `${id} is a mixture of experts`);
    }
  });

  it("takes EcoLogits' ranges at their midpoint, and gives one model the same figures whoever serves it", () => {
    let ranges = 0;
    for (const entry of shipped.models) {
      const range = /(\d+(?:\.\d+)?)–(\d+(?:\.\d+)?)B(?: active)? \(estimate; midpoint (\d+(?:\.\d+)?)B\)/.exec(entry.activeParamsB.source);
      if (range === null) continue;
      ranges += 1;
      const [, low, high, stated] = range.map(Number);
      const midpoint = ((low ?? NaN) + (high ?? NaN)) / 2;
      assert.equal(entry.activeParamsB.value, midpoint, entry.id);
      assert.equal(stated, midpoint, `${entry.id}: the midpoint the source states`);
    }
    assert.ok(ranges >= 20, `${ranges} models from EcoLogits' ranges`);
    const figures = (id: string) => {
      const model = catalog.get(id);
      return [model?.activeParamsB, model?.totalParamsB];
    };
    for (const [hosted, original] of [
      ['azure:gpt-4o', 'openai:gpt-4o'],
      ['azure:gpt-4o-mini', 'openai:gpt-4o-mini'],
      ['azure:gpt-4.1', 'openai:gpt-4.1'],
      ['openrouter:openai/gpt-4o-mini', 'openai:gpt-4o-mini'],
      ['openrouter:anthropic/claude-sonnet-4', 'anthropic:claude-sonnet-4-20250514'],
      ['openrouter:google/gemini-2.5-flash', 'gemini:gemini-2.5-flash'],
      ['bedrock:anthropic.claude-3-5-haiku-20241022-v1:0', 'anthropic:claude-3-5-haiku-latest'],
      ['cerebras:gpt-oss-120b', 'groq:openai/gpt-oss-120b'],
      ['ollama:llama3.1', 'groq:llama-3.1-8b-instant'],
    ] as const) {
      assert.ok(catalog.get(original)?.activeParamsB !== undefined, original);
      assert.deepEqual(figures(hosted), figures(original), `${hosted} is ${original}`);
    }
  });

  it('refuses facts whose total parameters fall below the active ones', () => {
    const facts = readModelFacts();
    const fact = facts.models.find((entry) => entry.id === 'sim:small');
    assert.ok(fact !== undefined);
    const build = (totalParamsB: typeof fact.totalParamsB) => buildCatalog({ ...facts, models: [{ ...fact, totalParamsB }] }, { asOf: shipped.asOf, pricesVersion: genaiPricesVersion() });
    assert.throws(() => build({ value: fact.activeParamsB.value / 2, source: 'x' }), /totalParamsB is below activeParamsB/);
    assert.doesNotThrow(() => build({ value: fact.activeParamsB.value * 4, source: 'x' }));
  });

  it("takes EcoLogits' PUE for the providers it lists and its grid intensities for every real region", () => {
    const regionOf = (id: string) => shipped.models.find((entry) => entry.id === id)?.region ?? '';
    assert.equal(regionOf('openai:gpt-4o'), 'us-openai');
    assert.equal(regionOf('azure:gpt-4o'), 'us-azure', 'Azure OpenAI keeps Microsoft\'s own PUE');
    for (const [id, pue] of [
      ['openai:gpt-4o', 1.2],
      ['anthropic:claude-sonnet-4-5', (1.09 + 1.14) / 2],
      ['gemini:gemini-2.5-pro', 1.09],
      ['mistral:mistral-large-2411', 1.16],
    ] as const) {
      const region = shipped.regions[regionOf(id)];
      assert.ok(region !== undefined, id);
      assert.ok(Math.abs(region.pue - pue) < 1e-9, `${id}: PUE ${region.pue}`);
      assert.match(region.pueSource, /ecologits\/tracers\/utils\.py PROVIDER_CONFIG_MAP/, id);
    }
    for (const [key, region] of Object.entries(shipped.regions)) {
      if (key === 'sim') continue;
      const cited = /ecologits\/data\/electricity_mixes\.csv, zone [A-Z]{3}[^:]*: (\d+\.\d+) kgCO2e\/kWh/.exec(region.gridSource);
      assert.ok(cited !== null, `${key}: grid from EcoLogits' table`);
      assert.ok(Math.abs(region.gridGCo2PerKWh - Number(cited[1]) * 1000) < 1e-9, `${key}: ${region.gridGCo2PerKWh} g is the cited ${cited[1]} kg`);
    }
  });

  it('puts every model in a known region with PUE and grid intensity, each with its source', () => {
    for (const entry of shipped.models) {
      const region = shipped.regions[entry.region];
      assert.ok(region !== undefined, `${entry.id}: region ${entry.region}`);
      assert.ok(region.pue >= 1 && region.gridGCo2PerKWh > 0, entry.region);
      assert.ok(region.pueSource.length > 0 && region.gridSource.length > 0, entry.region);
    }
    for (const key of ['us-openai', 'us-azure', 'us-aws', 'us-gcp', 'us-anthropic', 'eu-mistral', 'cn-deepseek', 'local']) assert.ok(shipped.regions[key] !== undefined, key);
  });

  it('lets the operator set the local region', () => {
    const localRegion = { pue: 1.4, gridGCo2PerKWh: 20 };
    const custom = loadShippedCatalog({ localRegion });
    assert.deepEqual(custom.get('ollama:llama3.1')?.region, localRegion);
    assert.deepEqual(custom.get('openai:gpt-4o')?.region, catalog.get('openai:gpt-4o')?.region, 'hosted models keep theirs');
  });

  it('resolves aliases to the same model', () => {
    const haiku = catalog.get('anthropic:claude-3-5-haiku-latest');
    assert.ok(haiku !== undefined);
    assert.equal(catalog.get('anthropic:claude-3-5-haiku-20241022'), haiku);
    assert.equal(catalog.get('openai:gpt-4o-mini-2024-07-18'), catalog.get('openai:gpt-4o-mini'));
    assert.equal(catalog.get('ollama:llama3.1:8b')?.id, 'ollama:llama3.1');
    for (const model of models) for (const alias of model.aliases ?? []) assert.equal(catalog.get(alias), model, alias);
  });

  it('lists no id or alias twice', () => {
    const seen = new Set<string>();
    for (const model of models) {
      for (const id of [model.id, ...(model.aliases ?? [])]) {
        assert.ok(!seen.has(id), `${id} is listed twice`);
        seen.add(id);
      }
    }
  });

  it('keeps the simulator models as they were', () => {
    const sim = (id: string) => shipped.models.find((entry) => entry.id === id);
    assert.deepEqual(sim('sim:small')?.pricing, { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075, source: 'simulated: priced like a small hosted model' });
    assert.deepEqual(sim('sim:medium')?.pricing, { inputPerMTok: 0.5, outputPerMTok: 1.5, cachedInputPerMTok: 0.25, source: 'simulated: priced like a medium hosted model' });
    assert.deepEqual(sim('sim:large')?.pricing, { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3, source: 'simulated: priced like a frontier hosted model' });
    const figures = ['sim:small', 'sim:medium', 'sim:large'].map((id) => {
      const model = catalog.get(id);
      return [model?.contextWindow, model?.maxOutputTokens, model?.qualityScore, model?.activeParamsB, model?.typicalTtftMs, model?.typicalTokensPerSecond, model?.simulated];
    });
    assert.deepEqual(figures, [
      [128_000, 16_384, 1200, 8, 150, 150, true],
      [128_000, 16_384, 1280, 70, 250, 90, true],
      [200_000, 32_000, 1380, 300, 500, 60, true],
    ]);
    assert.deepEqual(catalog.get('sim:small')?.region, { pue: 1.2, gridGCo2PerKWh: 400 });
  });

  it('is exactly what the generator makes of model-facts.json (run npm run catalog:refresh after editing either)', () => {
    const generated = buildCatalog(readModelFacts(), { asOf: shipped.asOf, pricesVersion: genaiPricesVersion() });
    assert.equal(serializeCatalog(generated), shippedText, 'models.json differs from the generator output: run npm run catalog:refresh');
    assert.deepEqual(catalogFromData(generated).list(), models);
  });
});
