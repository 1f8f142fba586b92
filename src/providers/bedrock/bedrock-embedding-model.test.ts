import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { FAKE_AWS_CREDENTIALS, bedrockErrors, startFakeBedrock, type FakeBedrock, type RecordedBedrockRequest } from '../../../test/support/fake-bedrock.js';
import { fakeEmbedding, fakeTokenCount } from '../../../test/support/fake-embedding-vectors.js';
import { UpstreamError, type EmbeddingModel, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createBedrockEmbeddingModel } from './bedrock-embedding-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const TITAN = 'amazon.titan-embed-text-v2:0';
const signal = (): AbortSignal => new AbortController().signal;

const inputTextOf = (request: RecordedBedrockRequest): string => String((request.body as { inputText?: unknown } | undefined)?.inputText);

function expectUpstreamError(expected: { kind: UpstreamErrorKind; statusCode?: number; isRetryable: boolean; message?: RegExp }) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.provider, 'bedrock');
    assert.equal(error.kind, expected.kind, error.message);
    assert.equal(error.statusCode, expected.statusCode);
    assert.equal(error.isRetryable, expected.isRetryable);
    if (expected.message !== undefined) assert.match(error.message, expected.message);
    return true;
  };
}

describe('createBedrockEmbeddingModel against a fake bedrock-runtime over real HTTP', () => {
  let fake: FakeBedrock;
  let dispatcher: Dispatcher;
  let model: EmbeddingModel;
  const build = (secretAccessKey = FAKE_AWS_CREDENTIALS.secretAccessKey): EmbeddingModel =>
    createBedrockEmbeddingModel(
      { provider: 'bedrock', region: 'us-east-1', baseUrl: fake.baseUrl, credentials: { accessKeyId: FAKE_AWS_CREDENTIALS.accessKeyId, secretAccessKey }, http: { dispatcher, timeouts } },
      TITAN,
    );

  before(async () => {
    fake = await startFakeBedrock();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = build();
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('one signed InvokeModel call per input with the Titan v2 body; vectors in input order, token counts summed', async () => {
    const inputs = ['Grüße aus Zürich', 'beta', '東京 🎉'];
    const result = await model.embed({ input: inputs, dimensions: 256, user: 'not-sent' }, { signal: signal() });
    const calls = fake.invokeRequests();
    assert.equal(calls.length, 3, 'every call passed the signature check and validation');
    assert.ok(calls.every((call) => call.path === '/model/amazon.titan-embed-text-v2%3A0/invoke' && String(call.headers.authorization).startsWith('AWS4-HMAC-SHA256')));
    const bodyFor = new Map(calls.map((call) => [inputTextOf(call), call.body]));
    assert.deepEqual(inputs.map((input) => bodyFor.get(input)), inputs.map((inputText) => ({ inputText, dimensions: 256, normalize: true })));
    assert.deepEqual(result.embeddings, inputs.map((input) => fakeEmbedding(TITAN, input, 256)));
    assert.deepEqual(result.usage, { promptTokens: inputs.reduce((sum, input) => sum + fakeTokenCount(input), 0) });
  });

  it('dimensions left out when not asked for: the model default (1024)', async () => {
    const result = await model.embed({ input: ['x'] }, { signal: signal() });
    assert.deepEqual(fake.invokeRequests()[0]?.body, { inputText: 'x', normalize: true });
    assert.equal(result.embeddings[0]?.length, 1024);
  });

  it('calls run concurrently, at most 8 at once, and answers finishing out of order keep input order', async () => {
    let inFlight = 0;
    let most = 0;
    fake.setHandler((request) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      void request.closed.then(() => (inFlight -= 1));
      const text = inputTextOf(request);
      // Earlier inputs answer later.
      return { type: 'embeddings', vector: [Number(text.slice(1))], inputTextTokenCount: 2, transport: { delayBeforeHeadersMs: 60 - Number(text.slice(1)) * 2 } };
    });
    const inputs = Array.from({ length: 20 }, (_, index) => `t${index}`);
    const result = await model.embed({ input: inputs }, { signal: signal() });
    assert.deepEqual(result, { embeddings: inputs.map((_, index) => [index]), usage: { promptTokens: 40 } });
    assert.ok(most > 1 && most <= 8, `${most} calls at once`);
  });

  it("the first failure is the batch's, and aborts the calls still running", async () => {
    fake.setHandler((request) => (inputTextOf(request) === 'bad' ? bedrockErrors.throttling() : { type: 'hang' }));
    await assert.rejects(model.embed({ input: ['slow', 'bad', 'slower'] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true }));
    const hung = fake.requests.filter((request) => inputTextOf(request) !== 'bad');
    await Promise.all(hung.map((request) => request.closed));
    assert.deepEqual(hung.map((request) => request.aborted), [true, true]);
  });

  it('a caller that leaves mid-batch: aborted, not retryable', async () => {
    fake.setHandler(() => ({ type: 'hang' }));
    const controller = new AbortController();
    const pending = model.embed({ input: ['a', 'b'] }, { signal: controller.signal });
    while (fake.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    await assert.rejects(pending, expectUpstreamError({ kind: 'aborted', isRetryable: false }));
  });

  it("Bedrock's validation error is the request's fault; the wrong secret is refused with 403, retryable elsewhere", async () => {
    await assert.rejects(model.embed({ input: ['x'], dimensions: 300 }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /dimensions: 300 is not a valid enum value/ }));
    await assert.rejects(build('wrongSecretKey0000000000000000000000000000').embed({ input: ['x'] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 403, isRetryable: true }));
  });

  it('token arrays and no input are refused before calling', async () => {
    await assert.rejects(model.embed({ input: [[1, 2]] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: true, message: /token arrays/ }));
    await assert.rejects(model.embed({ input: [] }, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false }));
    assert.equal(fake.requests.length, 0);
  });

  it('a body that is not a Titan response: a retryable invalid response', async () => {
    fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"embedding":"nope","inputTextTokenCount":1}' });
    await assert.rejects(model.embed({ input: ['x'] }, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
  });
});
