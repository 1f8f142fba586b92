import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { openAIErrors, sseBytes, startFakeOpenAI, unusedPort, type FakeOpenAI } from '../../../test/support/fake-openai.js';
import { UpstreamError, type ChatModel, type ChatRequest, type StreamPart, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createOpenAIChatModel } from './openai-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const shortTimeouts: UpstreamTimeouts = { connectMs: 500, firstByteMs: 150, idleMs: 150, totalMs: 5_000 };

const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };

function signal(): AbortSignal {
  return new AbortController().signal;
}

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

function textOf(parts: readonly StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
}

function expectUpstreamError(expected: { kind: UpstreamErrorKind; statusCode?: number; isRetryable: boolean; message?: RegExp; retryAfterMs?: number }) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.provider, 'openai');
    assert.equal(error.kind, expected.kind, error.message);
    assert.equal(error.statusCode, expected.statusCode);
    assert.equal(error.isRetryable, expected.isRetryable);
    if (expected.message !== undefined) assert.match(error.message, expected.message);
    if ('retryAfterMs' in expected) assert.equal(error.retryAfterMs, expected.retryAfterMs);
    return true;
  };
}

describe('createOpenAIChatModel against a fake api.openai.com that fails', () => {
  let fake: FakeOpenAI;
  let dispatcher: Dispatcher;
  let shortDispatcher: Dispatcher;
  let model: ChatModel;
  let impatientModel: ChatModel;

  before(async () => {
    fake = await startFakeOpenAI();
    dispatcher = createUpstreamDispatcher(timeouts);
    shortDispatcher = createUpstreamDispatcher(shortTimeouts);
    model = createOpenAIChatModel({ provider: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-test', http: { dispatcher, timeouts } }, 'gpt-4o-mini');
    impatientModel = createOpenAIChatModel(
      { provider: 'openai', baseUrl: `${fake.baseUrl}/`, apiKey: 'sk-test', http: { dispatcher: shortDispatcher, timeouts: shortTimeouts } },
      'gpt-4o-mini',
    );
  });
  after(async () => {
    await dispatcher.close();
    await shortDispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  describe('upstream errors', () => {
    it('400: not retryable, the provider message kept', async () => {
      fake.enqueue(openAIErrors.badRequest("Invalid value for 'top_p': must be at most 1.", 'top_p', 'invalid_value'));
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /^Invalid value for 'top_p': must be at most 1\.$/ }),
      );
    });

    it('400 on a streamed call fails the call itself, before any part', async () => {
      fake.enqueue(openAIErrors.contextLengthExceeded());
      await assert.rejects(
        model.stream(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /maximum context length is 128000 tokens/ }),
      );
    });

    it('keeps the upstream body for the logs', async () => {
      fake.enqueue(openAIErrors.modelNotFound('gpt-4o-mini'));
      const error = await model.generate(hello, { signal: signal() }).then(
        () => assert.fail('expected a failure'),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof UpstreamError);
      assert.match(error.responseBody ?? '', /"code": "model_not_found"/);
    });

    it('401: the gateway key is wrong, another model may serve; the key is not repeated', async () => {
      const wrongKey = createOpenAIChatModel({ provider: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-wrong', http: { dispatcher, timeouts } }, 'gpt-4o-mini');
      await assert.rejects(wrongKey.generate(hello, { signal: signal() }), (error: unknown) => {
        expectUpstreamError({ kind: 'http', statusCode: 401, isRetryable: true })(error);
        assert.doesNotMatch((error as UpstreamError).message, /sk-wrong/);
        return true;
      });
      assert.equal(fake.chatRequests()[0]?.headers.authorization, 'Bearer sk-wrong');
    });

    it('404 model_not_found: retryable with another model', async () => {
      fake.enqueue(openAIErrors.modelNotFound());
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 404, isRetryable: true, message: /does not exist/ }),
      );
    });

    it('429 with retry-after: retryable, retryAfterMs from the header, no organization id in the message', async () => {
      fake.enqueue(openAIErrors.rateLimited(20));
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true, message: /rate-limited.*rate_limit_exceeded/, retryAfterMs: 20_000 }),
      );
    });

    it('429 on a stream: retry-after-ms wins over retry-after', async () => {
      fake.enqueue(openAIErrors.rateLimited(20, { 'retry-after-ms': '1500' }));
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true, retryAfterMs: 1_500 }));
    });

    it('429 insufficient_quota: the account detail stays out of the message', async () => {
      fake.enqueue(openAIErrors.insufficientQuota());
      await assert.rejects(model.generate(hello, { signal: signal() }), (error: unknown) => {
        expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true, message: /insufficient_quota/ })(error);
        assert.match((error as UpstreamError).responseBody ?? '', /exceeded your current quota/, 'the whole body stays for the logs');
        return true;
      });
    });

    it('500 and 503: retryable', async () => {
      fake.enqueue(openAIErrors.serverError(), openAIErrors.overloaded());
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 500, isRetryable: true, message: /had an error while processing/ }),
      );
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 503, isRetryable: true, message: /overloaded/ }));
    });

    it('an error body that is not JSON keeps its text', async () => {
      fake.enqueue({ type: 'error', status: 502, body: '<html><body>502 Bad Gateway</body></html>', headers: { 'content-type': 'text/html' } });
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 502, isRetryable: true, message: /502 Bad Gateway/ }));
    });

    it('timeout before the headers: retryable, and the upstream request is dropped', async () => {
      fake.enqueue({ type: 'hang' });
      const started = performance.now();
      await assert.rejects(impatientModel.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'timeout', isRetryable: true }));
      // 150 ms asked for; the bound only tells our timeout from undici's default of 300 s (no timing is asserted:
      // undici's own headers timer alone can be up to a second late, more on a loaded CI machine).
      assert.ok(performance.now() - started < 10_000, `timed out after ${Math.round(performance.now() - started)} ms`);
      const sent = fake.chatRequests()[0];
      await sent?.closed;
      assert.equal(sent?.aborted, true);
    });

    it('timeout between two chunks of a stream', async () => {
      fake.enqueue({ type: 'answer', content: 'one two three four', transport: { hangAfterEvents: 2 } });
      const stream = await impatientModel.stream(hello, { signal: signal() });
      const seen: StreamPart[] = [];
      await assert.rejects(
        (async () => {
          for await (const part of stream) seen.push(part);
        })(),
        expectUpstreamError({ kind: 'timeout', isRetryable: true }),
      );
      assert.deepEqual(seen, [{ type: 'text-delta', text: 'one' }]);
    });

    it('headers that come late but in time are fine', async () => {
      fake.enqueue({ type: 'answer', content: 'late', transport: { delayBeforeHeadersMs: 50 } });
      assert.equal((await impatientModel.generate(hello, { signal: signal() })).message.content, 'late');
    });

    it('connection refused: retryable connection error', async () => {
      const port = await unusedPort();
      const nowhere = createOpenAIChatModel({ provider: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, http: { dispatcher, timeouts } }, 'gpt-4o-mini');
      await assert.rejects(nowhere.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true, message: /ECONNREFUSED/ }));
      await assert.rejects(nowhere.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true, message: /ECONNREFUSED/ }));
    });

    for (const reset of [false, true]) {
      it(`connection closed before the headers (${reset ? 'RST' : 'FIN'}): retryable connection error`, async () => {
        fake.enqueue({ type: 'close-before-headers', reset }, { type: 'close-before-headers', reset });
        await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true }));
        await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true }));
      });
    }

    it('connection reset in the middle of a stream: the parts so far, then a connection error', async () => {
      fake.enqueue({ type: 'answer', content: 'alpha beta gamma delta', transport: { resetAfterEvents: 3 } });
      const stream = await model.stream(hello, { signal: signal() });
      const seen: StreamPart[] = [];
      await assert.rejects(
        (async () => {
          for await (const part of stream) seen.push(part);
        })(),
        expectUpstreamError({ kind: 'connection', isRetryable: true }),
      );
      assert.equal(textOf(seen), 'alpha beta');
    });

    it('a stream that ends cleanly but early (no finish, no [DONE]) is an error, not a short answer', async () => {
      const events = [
        '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}',
        '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"Half an"},"logprobs":null,"finish_reason":null}]}',
      ];
      fake.enqueue({ type: 'raw', body: sseBytes(events) });
      const stream = await model.stream(hello, { signal: signal() });
      const seen: StreamPart[] = [];
      await assert.rejects(
        (async () => {
          for await (const part of stream) seen.push(part);
        })(),
        expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /ended before/ }),
      );
      assert.equal(textOf(seen), 'Half an');
    });

    it('an error event inside a stream becomes an UpstreamError', async () => {
      const events = [
        '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]}',
        '{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}',
      ];
      fake.enqueue({ type: 'raw', body: sseBytes(events) });
      const stream = await model.stream(hello, { signal: signal() });
      await assert.rejects(collect(stream), expectUpstreamError({ kind: 'http', isRetryable: true, message: /had an error while processing/ }));
    });

    it('a 200 whose body is not a chat completion is an invalid response', async () => {
      fake.enqueue(
        { type: 'raw', status: 200, headers: { 'content-type': 'application/json' }, body: '{"choices": [' },
        { type: 'raw', status: 200, headers: { 'content-type': 'application/json' }, body: '{"object":"list","data":[]}' },
      );
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
    });

    it('a signal aborted before the call: aborted at once, nothing answered', async () => {
      const gone = new AbortController();
      gone.abort();
      await assert.rejects(model.generate(hello, { signal: gone.signal }), expectUpstreamError({ kind: 'aborted', isRetryable: false }));
      await assert.rejects(model.stream(hello, { signal: gone.signal }), expectUpstreamError({ kind: 'aborted', isRetryable: false }));
    });

    it('a complete answer whose connection drops halfway through the body: retryable connection error', async () => {
      const server = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': '600' });
        response.write('{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hal');
        setTimeout(() => response.socket?.destroy(), 10);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const cut = createOpenAIChatModel({ provider: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, http: { dispatcher, timeouts } }, 'gpt-4o-mini');
      try {
        await assert.rejects(cut.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true }));
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('a client that goes away aborts the upstream request, complete or streamed', async () => {
      fake.enqueue({ type: 'hang' }, { type: 'answer', content: 'one two three', transport: { hangAfterEvents: 2 } });
      const first = new AbortController();
      const pending = model.generate(hello, { signal: first.signal });
      while (fake.chatRequests().length < 1) await new Promise((resolve) => setTimeout(resolve, 2));
      first.abort();
      await assert.rejects(pending, expectUpstreamError({ kind: 'aborted', isRetryable: false }));
      const hung = fake.chatRequests()[0];
      await hung?.closed;
      assert.equal(hung?.aborted, true);

      const second = new AbortController();
      const iterator = (await model.stream(hello, { signal: second.signal }))[Symbol.asyncIterator]();
      assert.deepEqual((await iterator.next()).value, { type: 'text-delta', text: 'one' });
      const next = iterator.next();
      second.abort();
      await assert.rejects(next, expectUpstreamError({ kind: 'aborted', isRetryable: false }));
      const streamed = fake.chatRequests()[1];
      await streamed?.closed;
      assert.equal(streamed?.aborted, true);
    });
  });
});
