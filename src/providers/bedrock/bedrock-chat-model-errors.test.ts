import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { unusedPort } from '../../../test/support/fake-openai.js';
import {
  FAKE_AWS_CREDENTIALS,
  bedrockErrors,
  converseStreamMessages,
  encodeEvent,
  startFakeBedrock,
  type FakeBedrock,
  type FakeBedrockError,
} from '../../../test/support/fake-bedrock.js';
import { UpstreamError, type ChatModel, type ChatRequest, type StreamPart, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createBedrockChatModel, type BedrockProviderSettings } from './bedrock-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const signal = (): AbortSignal => new AbortController().signal;

async function collect(stream: AsyncIterable<StreamPart>, seen: StreamPart[] = []): Promise<StreamPart[]> {
  for await (const part of stream) seen.push(part);
  return seen;
}

const textOf = (parts: readonly StreamPart[]): string => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');

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

describe('createBedrockChatModel failures, over real HTTP', () => {
  let fake: FakeBedrock;
  let dispatcher: Dispatcher;
  let model: ChatModel;
  const modelWith = (overrides: Partial<BedrockProviderSettings>): ChatModel =>
    createBedrockChatModel(
      { provider: 'bedrock', region: 'us-east-1', baseUrl: fake.baseUrl, credentials: FAKE_AWS_CREDENTIALS, http: { dispatcher, timeouts }, ...overrides },
      'anthropic.claude-3-5-haiku-20241022-v1:0',
    );

  before(async () => {
    fake = await startFakeBedrock();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = modelWith({});
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  describe('signatures the fake refuses, as AWS does', () => {
    const cases: { name: string; settings: Partial<BedrockProviderSettings>; errorType: string; message: RegExp }[] = [
      {
        name: 'a wrong secret',
        settings: { credentials: { ...FAKE_AWS_CREDENTIALS, secretAccessKey: 'not-the-secret' } },
        errorType: 'InvalidSignatureException',
        message: /^bedrock refused the gateway's credentials \(HTTP 403\)$/,
      },
      { name: 'an unknown key id', settings: { credentials: { ...FAKE_AWS_CREDENTIALS, accessKeyId: 'AKIDUNKNOWN' } }, errorType: 'UnrecognizedClientException', message: /HTTP 403/ },
      { name: 'a session token the key has not', settings: { credentials: { ...FAKE_AWS_CREDENTIALS, sessionToken: 'stale' } }, errorType: 'UnrecognizedClientException', message: /HTTP 403/ },
      { name: 'a clock ten minutes slow', settings: { now: () => new Date(Date.now() - 10 * 60_000) }, errorType: 'InvalidSignatureException', message: /HTTP 403/ },
      { name: 'another region', settings: { region: 'eu-west-1' }, errorType: 'InvalidSignatureException', message: /HTTP 403/ },
    ];
    for (const { name, settings, errorType, message } of cases) {
      it(`${name}: 403 ${errorType}, retryable elsewhere, no secret in the message`, async () => {
        await assert.rejects(modelWith(settings).generate(hello, { signal: signal() }), (error: unknown) => {
          expectUpstreamError({ kind: 'http', statusCode: 403, isRetryable: true, message })(error);
          assert.doesNotMatch((error as Error).message, /secret|AKID/i);
          return true;
        });
        const refused = fake.requests[0] ?? assert.fail('no request');
        assert.equal(refused.accepted, false);
        assert.equal(refused.behaviour.type === 'error' ? refused.behaviour.errorType : undefined, errorType);
      });
    }
  });

  describe('error answers', () => {
    const cases: { error: FakeBedrockError; statusCode: number; isRetryable: boolean; message: RegExp }[] = [
      { error: bedrockErrors.validation('Malformed input request: #/messages: expected minimum item count: 1'), statusCode: 400, isRetryable: false, message: /^ValidationException: Malformed input request/ },
      // An unknown model id is the operator's configuration: another model may serve the request.
      { error: bedrockErrors.validation(), statusCode: 400, isRetryable: true, message: /^ValidationException: The provided model identifier is invalid\.$/ },
      // Only the x-amzn-errortype header says it is a quota (the account's limit, so another model may serve the request).
      { error: bedrockErrors.serviceQuotaExceeded(), statusCode: 400, isRetryable: true, message: /ServiceQuotaExceededException: Your request exceeds the service quota/ },
      { error: bedrockErrors.accessDenied(), statusCode: 403, isRetryable: true, message: /^bedrock refused the gateway's credentials \(HTTP 403\)$/ },
      { error: bedrockErrors.resourceNotFound(), statusCode: 404, isRetryable: true, message: /use case details have not been submitted/ },
      { error: bedrockErrors.modelTimeout(), statusCode: 408, isRetryable: true, message: /timed out/ },
      { error: bedrockErrors.modelError(), statusCode: 424, isRetryable: true, message: /model returned an error/ },
      { error: bedrockErrors.throttling(), statusCode: 429, isRetryable: true, message: /^bedrock rate-limited the gateway's account \(HTTP 429\)$/ },
      { error: bedrockErrors.modelNotReady(), statusCode: 429, isRetryable: true, message: /HTTP 429/ },
      { error: bedrockErrors.internal(), statusCode: 500, isRetryable: true, message: /unexpected error/ },
      { error: bedrockErrors.serviceUnavailable(), statusCode: 503, isRetryable: true, message: /unable to process your request/ },
    ];
    for (const { error, statusCode, isRetryable, message } of cases) {
      it(`${statusCode} ${error.errorType}: ${isRetryable ? 'retryable' : 'not retryable'}, complete and streamed`, async () => {
        fake.enqueue(error, error);
        await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode, isRetryable, message }));
        await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode, isRetryable, message }));
      });
    }

    it('a body Bedrock would refuse is refused by the fake too (temperature above 1 never reaches it)', async () => {
      await model.generate({ ...hello, temperature: 1.8 }, { signal: signal() });
      assert.equal(fake.converseRequests().length, 1);
      assert.deepEqual((fake.converseRequests()[0]?.body as { inferenceConfig?: unknown }).inferenceConfig, { temperature: 1 });
    });

    it('a 200 whose body is not a Converse response is an invalid response', async () => {
      fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"output":' }, { type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"stopReason":"end_turn"}' });
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
    });
  });

  describe('exceptions inside a stream', () => {
    const cases: { exceptionType: string; statusCode: number; isRetryable: boolean; message: RegExp }[] = [
      { exceptionType: 'throttlingException', statusCode: 429, isRetryable: true, message: /^bedrock rate-limited the gateway's account mid-stream \(throttlingException\)$/ },
      { exceptionType: 'modelStreamErrorException', statusCode: 424, isRetryable: true, message: /^bedrock stream failed \(modelStreamErrorException\): The model stream failed\.$/ },
      { exceptionType: 'validationException', statusCode: 400, isRetryable: false, message: /validationException/ },
      { exceptionType: 'serviceUnavailableException', statusCode: 503, isRetryable: true, message: /serviceUnavailableException/ },
      { exceptionType: 'internalServerException', statusCode: 500, isRetryable: true, message: /internalServerException/ },
      { exceptionType: 'somethingNewException', statusCode: 500, isRetryable: true, message: /somethingNewException/ },
    ];
    for (const { exceptionType, statusCode, isRetryable, message } of cases) {
      it(`${exceptionType} after two text deltas: the text so far, then ${statusCode} ${isRetryable ? 'retryable' : 'not retryable'}`, async () => {
        fake.enqueue({ type: 'answer', text: 'alpha beta gamma', exception: { exceptionType, message: 'The model stream failed.', afterEvents: 3, originalStatusCode: 500 } });
        const seen: StreamPart[] = [];
        await assert.rejects(collect(await model.stream(hello, { signal: signal() }), seen), expectUpstreamError({ kind: 'http', statusCode, isRetryable, message }));
        assert.equal(textOf(seen), 'alpha beta');
      });
    }
  });

  describe('broken streams and connections', () => {
    it('a connection reset mid-stream: the parts so far, then a connection error', async () => {
      fake.enqueue({ type: 'answer', text: 'alpha beta gamma delta', transport: { resetAfterEvents: 3 } });
      const seen: StreamPart[] = [];
      await assert.rejects(collect(await model.stream(hello, { signal: signal() }), seen), expectUpstreamError({ kind: 'connection', isRetryable: true }));
      assert.equal(textOf(seen), 'alpha beta');
    });

    it('a reset after messageStop loses only the usage', async () => {
      const messages = converseStreamMessages({ type: 'answer', text: 'Done.' });
      fake.enqueue({ type: 'answer', text: 'Done.', transport: { resetAfterEvents: messages.length - 1 } });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.equal(textOf(parts), 'Done.');
      assert.deepEqual(parts.at(-1), { type: 'finish', finishReason: 'stop' });
    });

    it('a stream that ends cleanly before messageStop is an error, not a short answer', async () => {
      const body = Buffer.concat([encodeEvent('messageStart', { role: 'assistant' }), encodeEvent('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Half an' } })]);
      fake.enqueue({ type: 'raw', body });
      const seen: StreamPart[] = [];
      await assert.rejects(collect(await model.stream(hello, { signal: signal() }), seen), expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /ended before its messageStop/ }));
      assert.equal(textOf(seen), 'Half an');
    });

    it('a corrupt message (CRC mismatch) and a body cut inside a message are invalid responses', async () => {
      const good = Buffer.concat(converseStreamMessages({ type: 'answer', text: 'Hello world' }));
      const corrupt = Buffer.from(good);
      corrupt[30] = (corrupt[30] ?? 0) ^ 0x55;
      fake.enqueue({ type: 'raw', body: corrupt }, { type: 'raw', body: good.subarray(0, 40) });
      await assert.rejects(collect(await model.stream(hello, { signal: signal() })), expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /corrupt/ }));
      await assert.rejects(collect(await model.stream(hello, { signal: signal() })), expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /ended inside a message/ }));
    });

    it('an event whose payload does not match its shape is an invalid response', async () => {
      fake.enqueue({ type: 'raw', body: Buffer.concat([encodeEvent('messageStart', { role: 'assistant' }), encodeEvent('contentBlockDelta', { delta: 'text' })]) });
      await assert.rejects(collect(await model.stream(hello, { signal: signal() })), expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /ConverseStream shape/ }));
    });

    it('connection refused and a connection closed before the headers: retryable connection errors', async () => {
      const nowhere = modelWith({ baseUrl: `http://127.0.0.1:${await unusedPort()}` });
      await assert.rejects(nowhere.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true, message: /ECONNREFUSED/ }));
      fake.enqueue({ type: 'close-before-headers', reset: true });
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true }));
    });

    it('timeouts before the headers and between messages are retryable', async () => {
      const impatient: UpstreamTimeouts = { connectMs: 500, firstByteMs: 150, idleMs: 150, totalMs: 5_000 };
      const shortDispatcher = createUpstreamDispatcher(impatient);
      try {
        const quick = modelWith({ http: { dispatcher: shortDispatcher, timeouts: impatient } });
        fake.enqueue({ type: 'hang' }, { type: 'answer', text: 'one two three', transport: { hangAfterEvents: 2 } });
        await assert.rejects(quick.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'timeout', isRetryable: true }));
        const seen: StreamPart[] = [];
        await assert.rejects(collect(await quick.stream(hello, { signal: signal() }), seen), expectUpstreamError({ kind: 'timeout', isRetryable: true }));
        assert.equal(textOf(seen), 'one');
      } finally {
        await shortDispatcher.close();
      }
    });

    it('a client that goes away aborts the upstream stream', async () => {
      fake.enqueue({ type: 'answer', text: 'one two three', transport: { hangAfterEvents: 2 } });
      const controller = new AbortController();
      const iterator = (await model.stream(hello, { signal: controller.signal }))[Symbol.asyncIterator]();
      assert.deepEqual((await iterator.next()).value, { type: 'text-delta', text: 'one' });
      const next = iterator.next();
      controller.abort();
      await assert.rejects(next, expectUpstreamError({ kind: 'aborted', isRetryable: false }));
      const sent = fake.requests[0];
      await sent?.closed;
      assert.equal(sent?.aborted, true);
    });
  });
});
