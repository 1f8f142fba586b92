import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { azureErrors, startFakeAzureOpenAI, type FakeAzureOpenAI } from '../../../test/support/fake-azure-openai.js';
import { fakeEmbedding } from '../../../test/support/fake-embedding-vectors.js';
import { UpstreamError, type EmbeddingModel } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { AZURE_DEFAULT_API_VERSION } from './azure-chat-model.js';
import { createAzureEmbeddingModel } from './azure-embedding-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const signal = (): AbortSignal => new AbortController().signal;

describe('createAzureEmbeddingModel against a fake Azure OpenAI resource over real HTTP', () => {
  let fake: FakeAzureOpenAI;
  let dispatcher: Dispatcher;
  let model: EmbeddingModel;

  before(async () => {
    fake = await startFakeAzureOpenAI({ apiKey: 'azure-key', deployments: { 'embed-small': 'text-embedding-3-small' } });
    dispatcher = createUpstreamDispatcher(timeouts);
    // The endpoint as the portal shows it, with `/openai/` on it.
    model = createAzureEmbeddingModel({ provider: 'azure', endpoint: `${fake.endpoint}/openai/`, apiKey: 'azure-key', http: { dispatcher, timeouts } }, 'embed-small');
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it("calls the deployment's embeddings with the api-version and the api-key header, the model left out of the body", async () => {
    await model.embed({ input: ['hello'], dimensions: 512 }, { signal: signal() });
    const [sent] = fake.embeddingRequests();
    assert.equal(sent?.path, `/openai/deployments/embed-small/embeddings?api-version=${AZURE_DEFAULT_API_VERSION}`);
    assert.equal(sent?.headers['api-key'], 'azure-key');
    assert.equal(sent?.headers.authorization, undefined);
    assert.deepEqual(sent?.body, { input: ['hello'], dimensions: 512, encoding_format: 'float' });
  });

  it("the deployment's model gives the vectors OpenAI's does: one vector space", async () => {
    const result = await model.embed({ input: ['same text', 'another'] }, { signal: signal() });
    assert.deepEqual(result.embeddings, [fakeEmbedding('text-embedding-3-small', 'same text'), fakeEmbedding('text-embedding-3-small', 'another')]);
    assert.equal(result.embeddings[0]?.length, 1536);
  });

  it('a deployment the resource does not have: 404, retryable', async () => {
    const missing = createAzureEmbeddingModel({ provider: 'azure', endpoint: fake.endpoint, apiKey: 'azure-key', http: { dispatcher, timeouts } }, 'nowhere');
    await assert.rejects(missing.embed({ input: ['x'] }, { signal: signal() }), (error: unknown) => {
      assert.ok(error instanceof UpstreamError && error.statusCode === 404 && error.isRetryable);
      return true;
    });
  });

  it("Azure's rate limit: 429 with its retry-after-ms", async () => {
    fake.enqueue(azureErrors.rateLimited(2_500));
    await assert.rejects(model.embed({ input: ['x'] }, { signal: signal() }), (error: unknown) => {
      assert.ok(error instanceof UpstreamError && error.statusCode === 429 && error.retryAfterMs === 2_500);
      return true;
    });
  });
});
