import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { fakeEmbedding } from '../../../test/support/fake-embedding-vectors.js';
import { geminiErrors, startFakeGemini, type FakeGemini } from '../../../test/support/fake-gemini.js';
import { UpstreamError, type EmbeddingModel, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createGeminiEmbeddingModel } from './gemini-embedding-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const MODEL = 'gemini-embedding-001';
const signal = (): AbortSignal => new AbortController().signal;
const json = { 'content-type': 'application/json; charset=UTF-8' };

function expectUpstreamError(expected: { kind: UpstreamErrorKind; statusCode?: number; isRetryable: boolean; message?: RegExp; retryAfterMs?: number }) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.provider, 'gemini');
    assert.equal(error.kind, expected.kind, error.message);
    assert.equal(error.statusCode, expected.statusCode);
    assert.equal(error.isRetryable, expected.isRetryable);
    if (expected.message !== undefined) assert.match(error.message, expected.message);
    if ('retryAfterMs' in expected) assert.equal(error.retryAfterMs, expected.retryAfterMs);
    return true;
  };
}

describe('createGeminiEmbeddingModel against a fake generativelanguage.googleapis.com over real HTTP', () => {
  let fake: FakeGemini;
  let dispatcher: Dispatcher;
  let model: EmbeddingModel;

  before(async () => {
    fake = await startFakeGemini();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createGeminiEmbeddingModel({ provider: 'gemini', baseUrl: `${fake.baseUrl}/`, apiKey: 'gemini-test-key', http: { dispatcher, timeouts } }, MODEL);
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('one input: :embedContent with the content and outputDimensionality, the key in x-goog-api-key; no usage', async () => {
    const result = await model.embed({ input: ['Grüße aus Zürich'], dimensions: 768, user: 'not-sent' }, { signal: signal() });
    const [sent] = fake.requests;
    assert.equal(sent?.path, `/v1beta/models/${MODEL}:embedContent`);
    assert.equal(sent?.headers['x-goog-api-key'], 'gemini-test-key');
    assert.deepEqual(sent?.body, { model: `models/${MODEL}`, content: { parts: [{ text: 'Grüße aus Zürich' }] }, outputDimensionality: 768 });
    assert.deepEqual(result, { embeddings: [fakeEmbedding(MODEL, 'Grüße aus Zürich', 768)], usage: undefined });
  });

  it('several inputs: one :batchEmbedContents call, one request per input naming the model, vectors in input order', async () => {
    const inputs = ['alpha', 'beta', '東京 🎉'];
    const result = await model.embed({ input: inputs }, { signal: signal() });
    assert.equal(fake.requests.length, 1);
    const [sent] = fake.requests;
    assert.equal(sent?.path, `/v1beta/models/${MODEL}:batchEmbedContents`);
    assert.deepEqual(sent?.body, { requests: inputs.map((text) => ({ model: `models/${MODEL}`, content: { parts: [{ text }] } })) });
    assert.deepEqual(result, { embeddings: inputs.map((input) => fakeEmbedding(MODEL, input)), usage: undefined });
    assert.equal(result.embeddings[0]?.length, 3072);
  });

  it('scripted vectors come back as sent', async () => {
    fake.enqueue({ type: 'embeddings', vectors: [[0.25, -0.5], [1, 0]] });
    assert.deepEqual((await model.embed({ input: ['a', 'b'] }, { signal: signal() })).embeddings, [[0.25, -0.5], [1, 0]]);
  });

  it('token arrays: refused before calling, retryable (another provider may take them)', async () => {
    await assert.rejects(model.embed({ input: ['text', [1, 2, 3]] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: true, message: /token arrays/ }));
    await assert.rejects(model.embed({ input: [] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false }));
    assert.equal(fake.requests.length, 0);
  });

  it("Google's errors are read as the chat calls read them: a wrong key, a quota with its RetryInfo", async () => {
    const wrongKey = createGeminiEmbeddingModel({ provider: 'gemini', baseUrl: fake.baseUrl, apiKey: 'AIzaWrong', http: { dispatcher, timeouts } }, MODEL);
    await assert.rejects(wrongKey.embed({ input: ['x'] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: true, message: /refused the gateway's credentials/ }));
    fake.enqueue(geminiErrors.rateLimited('9s', MODEL));
    await assert.rejects(model.embed({ input: ['x', 'y'] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true, retryAfterMs: 9_000 }));
    fake.enqueue(geminiErrors.badRequest('* BatchEmbedContentsRequest.requests[0].content.parts[0].text: text too long\n'));
    await assert.rejects(model.embed({ input: ['x', 'y'] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false }));
  });

  const malformed: [string, string, number][] = [
    ['a body that is not JSON', '{"embedding": {', 1],
    ['a single answer of another shape', '{"embeddings": [{"values": [1]}]}', 1],
    ['a batch answer of another shape', '{"embedding": {"values": [1]}}', 2],
    ['fewer vectors than inputs', '{"embeddings": [{"values": [1]}]}', 2],
  ];
  for (const [title, body, inputs] of malformed) {
    it(`${title}: a retryable invalid response`, async () => {
      fake.enqueue({ type: 'raw', headers: json, body });
      await assert.rejects(model.embed({ input: ['a', 'b'].slice(0, inputs) }, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
    });
  }
});
