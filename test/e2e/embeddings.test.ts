import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { startFakeAzureOpenAI, type FakeAzureOpenAI } from '../support/fake-azure-openai.js';
import { fakeEmbedding, fromFloat32Base64 } from '../support/fake-embedding-vectors.js';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const SMALL = 'openai:text-embedding-3-small';
const AZURE_SMALL = 'azure:text-embedding-3-small';
const GEMINI = 'gemini:gemini-embedding-001';
/** text-embedding-3-small, USD per million input tokens (src/catalog/data/models.json). */
const SMALL_PER_MTOK = 0.02;

interface Meta {
  readonly modelUsed: string;
  readonly cost: number;
  readonly usageEstimated: boolean;
  readonly routerId: string;
  readonly attempts: readonly { model: string; outcome: string; status?: number }[];
}

const metaOf = (value: unknown): Meta => {
  const meta = (value as { _meta?: Meta })._meta;
  assert.ok(meta !== undefined, 'the answer carries _meta');
  return meta;
};

/** float32 rounding, as a vector sent as base64 comes back. */
const asFloat32 = (vector: readonly number[]): number[] => [...new Float32Array(vector)];

describe('embeddings: the openai SDK → gateway → OpenAI, Azure and Gemini fakes', () => {
  let openai: FakeOpenAI;
  let azure: FakeAzureOpenAI;
  let gemini: FakeGemini;
  let gateway: Gateway;
  let client: OpenAI;
  let geminiRouter: string;

  before(async () => {
    openai = await startFakeOpenAI({ apiKey: 'sk-test' });
    azure = await startFakeAzureOpenAI({ apiKey: 'azure-key', deployments: { 'text-embedding-3-small': 'text-embedding-3-small' } });
    gemini = await startFakeGemini({ apiKey: 'gemini-key' });
    gateway = await startGateway({
      env: {
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        AZURE_OPENAI_API_KEY: 'azure-key',
        AZURE_OPENAI_ENDPOINT: azure.endpoint,
        AZURE_OPENAI_API_VERSION: '2024-10-21',
        GEMINI_BASE_URL: gemini.baseUrl,
        GEMINI_API_KEY: 'gemini-key',
        MODELPORT_DEFAULT_RPM: '100000',
        // /metrics is read below by router: public with router labels, as on a deployment only its operator reaches.
        MODELPORT_METRICS_PUBLIC: 'true',
        MODELPORT_METRICS_ROUTER_LABELS: 'true',
      },
      // Two deployments of one model: the same vector space, so fallback between them is allowed.
      models: [SMALL, AZURE_SMALL],
      strategy: 'cost_optimized',
    });
    geminiRouter = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'gemini embeddings', models: [GEMINI], strategy: 'cost_optimized' })).id;
    client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl, maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await openai.close();
    await azure.close();
    await gemini.close();
  });
  beforeEach(() => {
    openai.reset();
    azure.reset();
    gemini.reset();
  });

  it("float: the upstream's vectors in input order, its token count, the router's _meta and the input's cost", async () => {
    const inputs = ['The quick brown fox', 'jumps over the lazy dog'];
    openai.enqueue({ type: 'embeddings', promptTokens: 11 });
    const response = await client.embeddings.create({ model: gateway.router.id, input: inputs, encoding_format: 'float' });
    assert.equal(response.object, 'list');
    assert.deepEqual(
      response.data.map((entry) => [entry.index, entry.embedding]),
      inputs.map((input, index) => [index, fakeEmbedding('text-embedding-3-small', input)]),
    );
    assert.equal(response.model, SMALL);
    assert.deepEqual(response.usage, { prompt_tokens: 11, total_tokens: 11 });
    const meta = metaOf(response);
    assert.equal(meta.modelUsed, SMALL);
    assert.equal(meta.routerId, gateway.router.id);
    assert.equal(meta.usageEstimated, false);
    assert.equal(meta.cost, (11 * SMALL_PER_MTOK) / 1_000_000);
    // What went upstream: the model's own name, the inputs, and floats asked for.
    const sent = openai.embeddingRequests()[0]?.body as { model: string; input: unknown; encoding_format: string };
    assert.deepEqual([sent.model, sent.input, sent.encoding_format], ['text-embedding-3-small', inputs, 'float']);
  });

  it("base64: the SDK's default (it asks for base64 and decodes it) and an explicit base64 string", async () => {
    const decoded = await client.embeddings.create({ model: gateway.router.id, input: 'hello vectors' });
    assert.deepEqual(decoded.data[0]?.embedding, asFloat32(fakeEmbedding('text-embedding-3-small', 'hello vectors')));
    const raw = await client.embeddings.create({ model: gateway.router.id, input: 'hello vectors', encoding_format: 'base64' });
    const text = raw.data[0]?.embedding as unknown as string;
    assert.equal(typeof text, 'string');
    assert.deepEqual(fromFloat32Base64(text), asFloat32(fakeEmbedding('text-embedding-3-small', 'hello vectors')));
  });

  it('falls back only within one vector space: OpenAI fails, Azure serves the same model with the same vectors', async () => {
    openai.enqueue({ type: 'error', status: 503, body: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } });
    const response = await client.embeddings.create({ model: gateway.router.id, input: ['fall back'], encoding_format: 'float' });
    assert.deepEqual(response.data[0]?.embedding, fakeEmbedding('text-embedding-3-small', 'fall back'));
    const meta = metaOf(response);
    assert.equal(meta.modelUsed, AZURE_SMALL);
    assert.deepEqual(
      meta.attempts.map((attempt) => [attempt.model, attempt.outcome]),
      [
        [SMALL, 'failed'],
        [AZURE_SMALL, 'ok'],
      ],
    );
  });

  it('dimensions: passed to a model that shortens; a length no model of the router gives is a 400 naming what they give', async () => {
    const short = await client.embeddings.create({ model: gateway.router.id, input: 'short', dimensions: 256, encoding_format: 'float' });
    assert.equal(short.data[0]?.embedding.length, 256);
    assert.deepEqual(short.data[0]?.embedding, fakeEmbedding('text-embedding-3-small', 'short', 256));
    await assert.rejects(
      client.embeddings.create({ model: gateway.router.id, input: 'too long', dimensions: 4096 }),
      (error: unknown) => error instanceof OpenAI.BadRequestError && (error.error as { param?: string }).param === 'dimensions' && /1536/.test(error.message),
    );
  });

  it('Gemini: its own wire format; no token count from it, so the inputs are counted and marked estimated', async () => {
    const response = await client.embeddings.create({ model: geminiRouter, input: ['ein Satz', 'a sentence'], encoding_format: 'float' });
    assert.deepEqual(
      response.data.map((entry) => entry.embedding),
      ['ein Satz', 'a sentence'].map((input) => fakeEmbedding('gemini-embedding-001', input)),
    );
    const meta = metaOf(response);
    assert.equal(meta.modelUsed, GEMINI);
    assert.equal(meta.usageEstimated, true);
    assert.ok(response.usage.prompt_tokens > 0);
  });

  it('never crosses kinds: a chat request to an embedding router and an embeddings request to a chat router are 400s', async () => {
    const chatRouter = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'chat', models: ['sim:small'], strategy: 'cost_optimized' })).id;
    await assert.rejects(client.embeddings.create({ model: chatRouter, input: 'x' }), (error: unknown) => error instanceof OpenAI.BadRequestError);
    await assert.rejects(
      client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'hi' }] }),
      (error: unknown) => error instanceof OpenAI.BadRequestError,
    );
    assert.equal(openai.chatRequests().length, 0);
  });

  it('records usage (input tokens, no completion tokens, the cost) and counts it in /metrics like a chat call', async () => {
    openai.enqueue({ type: 'embeddings', promptTokens: 7 });
    const response = await client.embeddings.create({ model: gateway.router.id, input: 'record me', encoding_format: 'float' });
    const requestId = metaOf(response) as unknown as { requestId: string };
    await gateway.app.usage.flush();
    const record = (await gateway.app.repositories.usage.list({ routerId: gateway.router.id })).find((row) => row.id === requestId.requestId);
    assert.ok(record !== undefined, 'the usage record was written');
    assert.deepEqual([record.model, record.status, record.prompt_tokens, record.completion_tokens, record.cost_usd], [SMALL, 200, 7, 0, (7 * SMALL_PER_MTOK) / 1_000_000]);
    const metrics = await (await fetch(`${gateway.origin}/metrics`)).text();
    assert.match(metrics, new RegExp(`modelport_requests_total\\{[^}]*router="${gateway.router.id}"[^}]*model="${SMALL}"[^}]*status="200"[^}]*\\} [1-9]`));
  });

  it('rate limits count embeddings: a router limited to 1 request a minute refuses the second', async () => {
    const limited = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'one a minute', models: [SMALL], strategy: 'cost_optimized', rpmLimit: 1 });
    await client.embeddings.create({ model: limited.id, input: 'first' });
    await assert.rejects(client.embeddings.create({ model: limited.id, input: 'second' }), (error: unknown) => error instanceof OpenAI.RateLimitError);
  });

  it('tokens per minute count the inputs: a key whose limit is below one input is refused before any upstream call', async () => {
    const { value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'few tokens', tpmLimit: 5 });
    const limitedClient = new OpenAI({ apiKey: value, baseURL: gateway.baseUrl, maxRetries: 0 });
    await assert.rejects(
      limitedClient.embeddings.create({ model: gateway.router.id, input: 'a long enough input to need more than five tokens in the estimate' }),
      (error: unknown) => error instanceof OpenAI.RateLimitError,
    );
    assert.equal(openai.embeddingRequests().length, 0);
  });

  it('budgets count embeddings: a key over its budget is stopped with insufficient_quota', async () => {
    const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'budgeted' });
    await gateway.admin.setBudget(gateway.ownerEmail, 'key', key.id, { amountUsd: 1e-7, period: 'day' });
    const budgeted = new OpenAI({ apiKey: value, baseURL: gateway.baseUrl, maxRetries: 0 });
    openai.enqueue({ type: 'embeddings', promptTokens: 10 });
    await budgeted.embeddings.create({ model: gateway.router.id, input: 'spend' });
    await assert.rejects(budgeted.embeddings.create({ model: gateway.router.id, input: 'spend more' }), (error: unknown) => error instanceof OpenAI.RateLimitError && /insufficient_quota/.test(String((error.error as { code?: string }).code)));
  });
});
