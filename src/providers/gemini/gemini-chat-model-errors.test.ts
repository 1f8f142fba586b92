import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { unusedPort } from '../../../test/support/fake-openai.js';
import { geminiErrors, sseBytes, startFakeGemini, type FakeGemini } from '../../../test/support/fake-gemini.js';
import { UpstreamError, type ChatModel, type ChatRequest, type StreamPart, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createGeminiChatModel } from './gemini-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const signal = () => new AbortController().signal;

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const textOf = (parts: readonly StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');

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

describe('createGeminiChatModel against a fake generativelanguage.googleapis.com that fails', () => {
  let fake: FakeGemini;
  let dispatcher: Dispatcher;
  let model: ChatModel;

  before(async () => {
    fake = await startFakeGemini();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createGeminiChatModel({ provider: 'gemini', baseUrl: fake.baseUrl, apiKey: 'gemini-test-key', http: { dispatcher, timeouts } }, 'gemini-2.5-flash');
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  describe('upstream errors', () => {
    it('400 INVALID_ARGUMENT: not retryable, Google\u2019s message kept, on generate and on stream', async () => {
      fake.enqueue(geminiErrors.badRequest('Invalid value at \'generation_config.temperature\' (TYPE_FLOAT), "hot"'), geminiErrors.badRequest());
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /^Invalid value at 'generation_config\.temperature' \(TYPE_FLOAT\), "hot"$/ }),
      );
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /contents is not specified/ }));
    });

    it('400 API_KEY_INVALID: the gateway key is wrong, another model may serve', async () => {
      const wrongKey = createGeminiChatModel({ provider: 'gemini', baseUrl: fake.baseUrl, apiKey: 'AIzaWrongKey', http: { dispatcher, timeouts } }, 'gemini-2.5-flash');
      const failure = expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: true, message: /^gemini refused the gateway's credentials \(HTTP 400, INVALID_ARGUMENT, API_KEY_INVALID\)$/ });
      await assert.rejects(wrongKey.generate(hello, { signal: signal() }), failure);
      await assert.rejects(wrongKey.stream(hello, { signal: signal() }), failure);
    });

    it('400 FAILED_PRECONDITION (location not supported): retryable', async () => {
      fake.enqueue(geminiErrors.locationNotSupported());
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: true, message: /User location is not supported/ }));
    });

    it('403 PERMISSION_DENIED: retryable, and the key Google quotes is not repeated', async () => {
      fake.enqueue(geminiErrors.consumerSuspended('gemini-test-key'));
      await assert.rejects(model.generate(hello, { signal: signal() }), (error: unknown) => {
        expectUpstreamError({ kind: 'http', statusCode: 403, isRetryable: true, message: /\(HTTP 403, PERMISSION_DENIED, CONSUMER_SUSPENDED\)$/ })(error);
        assert.doesNotMatch((error as UpstreamError).message, /gemini-test-key/);
        return true;
      });
    });

    it('404 NOT_FOUND: retryable with another model, Google\u2019s message kept', async () => {
      fake.enqueue(geminiErrors.modelNotFound('gemini-9-ultra'));
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 404, isRetryable: true, message: /^models\/gemini-9-ultra is not found for API version v1beta/ }),
      );
    });

    it('429 RESOURCE_EXHAUSTED: retryable, the wait taken from RetryInfo; a Retry-After header wins', async () => {
      fake.enqueue(geminiErrors.rateLimited('34.4s'), { ...geminiErrors.rateLimited('34s'), headers: { 'retry-after': '3' } });
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({
          kind: 'http',
          statusCode: 429,
          isRetryable: true,
          message: /^gemini rate-limited the gateway's account \(HTTP 429, RESOURCE_EXHAUSTED\)$/,
          retryAfterMs: 34_400,
        }),
      );
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true, retryAfterMs: 3_000 }));
    });

    it('500 INTERNAL, 503 UNAVAILABLE, 504 DEADLINE_EXCEEDED: retryable', async () => {
      fake.enqueue(geminiErrors.internal(), geminiErrors.unavailable(), geminiErrors.deadlineExceeded());
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 500, isRetryable: true, message: /internal error/ }));
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 503, isRetryable: true, message: /overloaded/ }));
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 504, isRetryable: true, message: /Deadline expired/ }));
    });

    it('connection reset in the middle of a stream: the parts so far, then a connection error', async () => {
      fake.enqueue({ type: 'answer', parts: [{ text: 'alpha' }, { text: ' beta' }, { text: ' gamma' }], transport: { resetAfterEvents: 2 } });
      const seen: StreamPart[] = [];
      await assert.rejects(
        (async () => {
          for await (const part of await model.stream(hello, { signal: signal() })) seen.push(part);
        })(),
        expectUpstreamError({ kind: 'connection', isRetryable: true }),
      );
      assert.equal(textOf(seen), 'alpha beta');
    });

    it('connection refused: retryable connection error', async () => {
      const port = await unusedPort();
      const nowhere = createGeminiChatModel({ provider: 'gemini', baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', http: { dispatcher, timeouts } }, 'gemini-2.5-flash');
      await assert.rejects(nowhere.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true, message: /ECONNREFUSED/ }));
    });

    it('an error event inside a stream becomes an UpstreamError with its status', async () => {
      const chunk = { candidates: [{ content: { parts: [{ text: 'Hi' }], role: 'model' }, index: 0 }], modelVersion: 'gemini-2.5-flash', responseId: 'r1' };
      fake.enqueue({ type: 'raw', body: sseBytes([chunk, geminiErrors.unavailable().body]) });
      const seen: StreamPart[] = [];
      await assert.rejects(
        (async () => {
          for await (const part of await model.stream(hello, { signal: signal() })) seen.push(part);
        })(),
        expectUpstreamError({ kind: 'http', statusCode: 503, isRetryable: true, message: /overloaded/ }),
      );
      assert.deepEqual(seen, [{ type: 'text-delta', text: 'Hi' }]);
    });

    it('a stream that ends cleanly before any finishReason is an error, not a short answer', async () => {
      const chunk = { candidates: [{ content: { parts: [{ text: 'Half an' }], role: 'model' }, index: 0 }], responseId: 'r1' };
      fake.enqueue({ type: 'raw', body: sseBytes([chunk]) });
      await assert.rejects(collect(await model.stream(hello, { signal: signal() })), expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /ended before a finishReason/ }));
    });

    it('a 200 whose body is not a GenerateContentResponse is an invalid response', async () => {
      const json = { 'content-type': 'application/json; charset=UTF-8' };
      fake.enqueue({ type: 'raw', headers: json, body: '{"candidates": [' }, { type: 'raw', headers: json, body: '{"candidates": "none"}' }, { type: 'raw', headers: json, body: '{}' });
      for (let attempt = 0; attempt < 3; attempt += 1) {
        await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
      }
    });

    it('a client that goes away aborts the upstream request, complete or streamed', async () => {
      fake.enqueue({ type: 'hang' }, { type: 'answer', parts: [{ text: 'one' }, { text: ' two' }], transport: { hangAfterEvents: 1 } });
      const first = new AbortController();
      const pending = model.generate(hello, { signal: first.signal });
      while (fake.requests.length < 1) await new Promise((resolve) => setTimeout(resolve, 2));
      first.abort();
      await assert.rejects(pending, expectUpstreamError({ kind: 'aborted', isRetryable: false }));
      await fake.requests[0]?.closed;
      assert.equal(fake.requests[0]?.aborted, true);

      const second = new AbortController();
      const iterator = (await model.stream(hello, { signal: second.signal }))[Symbol.asyncIterator]();
      assert.deepEqual((await iterator.next()).value, { type: 'text-delta', text: 'one' });
      const next = iterator.next();
      second.abort();
      await assert.rejects(next, expectUpstreamError({ kind: 'aborted', isRetryable: false }));
      await fake.requests[1]?.closed;
      assert.equal(fake.requests[1]?.aborted, true);
    });
  });

});
