import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { fakeEmbedding, fakeTokenCount } from '../../../test/support/fake-embedding-vectors.js';
import { openAIErrors, startFakeOpenAI, type FakeOpenAI } from '../../../test/support/fake-openai.js';
import { UpstreamError, type EmbeddingModel, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createOpenAIEmbeddingModel } from './openai-embedding-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const MODEL = 'text-embedding-3-small';
const signal = (): AbortSignal => new AbortController().signal;
const json = { 'content-type': 'application/json' };

function expectUpstreamError(expected: { kind: UpstreamErrorKind; statusCode?: number; isRetryable: boolean; message?: RegExp }) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.provider, 'openai');
    assert.equal(error.kind, expected.kind, error.message);
    assert.equal(error.statusCode, expected.statusCode);
    assert.equal(error.isRetryable, expected.isRetryable);
    if (expected.message !== undefined) assert.match(error.message, expected.message);
    return true;
  };
}

describe('createOpenAIEmbeddingModel against a fake api.openai.com over real HTTP', () => {
  let fake: FakeOpenAI;
  let dispatcher: Dispatcher;
  let model: EmbeddingModel;

  before(async () => {
    fake = await startFakeOpenAI();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createOpenAIEmbeddingModel({ provider: 'openai', baseUrl: `${fake.baseUrl}/`, apiKey: 'sk-test', http: { dispatcher, timeouts } }, MODEL);
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('POSTs /v1/embeddings with the model, the inputs, dimensions, user and float encoding, as a Bearer call', async () => {
    await model.embed({ input: ['Grüße aus Zürich', '東京 🎉'], dimensions: 256, user: 'user-42' }, { signal: signal() });
    const [sent] = fake.embeddingRequests();
    assert.equal(sent?.path, '/v1/embeddings');
    assert.equal(sent?.headers.authorization, 'Bearer sk-test');
    assert.deepEqual(sent?.body, { model: MODEL, input: ['Grüße aus Zürich', '東京 🎉'], dimensions: 256, user: 'user-42', encoding_format: 'float' });
  });

  it('leaves out what the request does not set', async () => {
    await model.embed({ input: ['one'] }, { signal: signal() });
    assert.deepEqual(fake.embeddingRequests()[0]?.body, { model: MODEL, input: ['one'], encoding_format: 'float' });
  });

  it("the upstream's vectors, one per input in input order, and its prompt_tokens", async () => {
    const inputs = ['alpha', 'beta', 'gamma'];
    const result = await model.embed({ input: inputs, dimensions: 64 }, { signal: signal() });
    assert.deepEqual(result.embeddings, inputs.map((input) => fakeEmbedding(MODEL, input, 64)));
    assert.deepEqual(result.usage, { promptTokens: inputs.reduce((sum, input) => sum + fakeTokenCount(input), 0) });
  });

  it('puts vectors back in input order by their index when the upstream sends them in another', async () => {
    const vectors = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]];
    fake.enqueue({ type: 'embeddings', vectors, order: [2, 0, 1], promptTokens: 17 });
    const result = await model.embed({ input: ['a', 'b', 'c'] }, { signal: signal() });
    assert.deepEqual(result, { embeddings: vectors, usage: { promptTokens: 17 } });
  });

  it('token arrays are sent as they are', async () => {
    const input = [[9906, 1917], [15339]];
    const result = await model.embed({ input }, { signal: signal() });
    assert.deepEqual(fake.embeddingRequests()[0]?.body, { model: MODEL, input, encoding_format: 'float' });
    assert.deepEqual(result.embeddings, input.map((tokens) => fakeEmbedding(MODEL, tokens)));
    assert.deepEqual(result.usage, { promptTokens: 3 });
  });

  it('a compatible server without indexes or usage: vectors by position, usage undefined', async () => {
    fake.enqueue({ type: 'raw', headers: json, body: '{"object":"list","data":[{"embedding":[1,2]},{"embedding":[3,4]}],"model":"nomic-embed-text"}' });
    assert.deepEqual(await model.embed({ input: ['x', 'y'] }, { signal: signal() }), { embeddings: [[1, 2], [3, 4]], usage: undefined });
  });

  it('refuses no input and mixed input before calling: not retryable, as OpenAI would answer', async () => {
    await assert.rejects(model.embed({ input: [] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /no input/ }));
    await assert.rejects(model.embed({ input: ['text', [1, 2]] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /mixes/ }));
    assert.equal(fake.requests.length, 0);
  });

  it("OpenAI's refusal of dimensions for ada-002: its 400, not retryable, its message", async () => {
    const ada = createOpenAIEmbeddingModel({ provider: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-test', http: { dispatcher, timeouts } }, 'text-embedding-ada-002');
    await assert.rejects(
      ada.embed({ input: ['x'], dimensions: 256 }, { signal: signal() }),
      expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /does not support specifying dimensions/ }),
    );
  });

  it('a 429 is retryable, with its wait', async () => {
    fake.enqueue(openAIErrors.rateLimited(7));
    await assert.rejects(model.embed({ input: ['x'] }, { signal: signal() }), (error: unknown) => {
      assert.ok(error instanceof UpstreamError && error.statusCode === 429 && error.isRetryable && error.retryAfterMs === 7_000);
      return true;
    });
  });

  const malformed: [string, string][] = [
    ['a body that is not JSON', '{"object":"list","data":['],
    ['a body of another shape', '{"object":"list","data":[{"index":0,"embedding":"AAAA"}]}'],
    ['fewer vectors than inputs', '{"object":"list","data":[{"index":0,"embedding":[1]}]}'],
    ['an index out of range', '{"object":"list","data":[{"index":0,"embedding":[1]},{"index":2,"embedding":[2]}]}'],
    ['an index given twice', '{"object":"list","data":[{"index":1,"embedding":[1]},{"index":1,"embedding":[2]}]}'],
  ];
  for (const [title, body] of malformed) {
    it(`${title}: a retryable invalid response`, async () => {
      fake.enqueue({ type: 'raw', headers: json, body });
      await assert.rejects(model.embed({ input: ['a', 'b'] }, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
    });
  }
});
