import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { anthropicErrors, sseBytes, startFakeAnthropic, type FakeAnthropic, type FakeHttpError } from '../../../test/support/fake-anthropic.js';
import { UpstreamError, type ChatModel, type ChatRequest, type StreamPart, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createAnthropicChatModel } from './anthropic-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const signal = () => new AbortController().signal;

async function collect(stream: AsyncIterable<StreamPart>, seen: StreamPart[] = []): Promise<StreamPart[]> {
  for await (const part of stream) seen.push(part);
  return seen;
}

const textOf = (parts: readonly StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');

function expectUpstreamError(expected: { kind: UpstreamErrorKind; statusCode?: number; isRetryable: boolean; message?: RegExp; retryAfterMs?: number }) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.provider, 'anthropic');
    assert.equal(error.kind, expected.kind, error.message);
    assert.equal(error.statusCode, expected.statusCode);
    assert.equal(error.isRetryable, expected.isRetryable);
    if (expected.message !== undefined) assert.match(error.message, expected.message);
    if ('retryAfterMs' in expected) assert.equal(error.retryAfterMs, expected.retryAfterMs);
    return true;
  };
}

describe('createAnthropicChatModel failures, over real HTTP', () => {
  let fake: FakeAnthropic;
  let dispatcher: Dispatcher;
  let model: ChatModel;

  before(async () => {
    fake = await startFakeAnthropic();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createAnthropicChatModel({ provider: 'anthropic', baseUrl: fake.baseUrl, apiKey: 'sk-ant-test', http: { dispatcher, timeouts } }, 'claude-sonnet-4-5');
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const cases: { name: string; error: FakeHttpError; expected: Parameters<typeof expectUpstreamError>[0] }[] = [
    {
      name: '400 invalid_request_error: not retryable, Anthropic’s message kept',
      error: anthropicErrors.invalidRequest(),
      expected: { kind: 'http', statusCode: 400, isRetryable: false, message: /^max_tokens: 200000 > 64000, which is the maximum allowed/ },
    },
    { name: '401 authentication_error: retryable, the upstream message kept out', error: anthropicErrors.authentication(), expected: { kind: 'http', statusCode: 401, isRetryable: true, message: /^anthropic refused the gateway's credentials \(HTTP 401/ } },
    { name: '403 permission_error', error: anthropicErrors.permission(), expected: { kind: 'http', statusCode: 403, isRetryable: true, message: /HTTP 403/ } },
    { name: '404 not_found_error', error: anthropicErrors.notFound('claude-sonnet-4-5'), expected: { kind: 'http', statusCode: 404, isRetryable: true, message: /^model: claude-sonnet-4-5$/ } },
    { name: '413 request_too_large: not retryable', error: anthropicErrors.requestTooLarge(), expected: { kind: 'http', statusCode: 413, isRetryable: false, message: /maximum allowed number of bytes/ } },
    { name: '429 rate_limit_error with retry-after', error: anthropicErrors.rateLimited(17), expected: { kind: 'http', statusCode: 429, isRetryable: true, message: /HTTP 429/, retryAfterMs: 17_000 } },
    { name: '500 api_error', error: anthropicErrors.apiError(), expected: { kind: 'http', statusCode: 500, isRetryable: true, message: /^Internal server error$/ } },
    { name: '529 overloaded_error', error: anthropicErrors.overloaded(), expected: { kind: 'http', statusCode: 529, isRetryable: true, message: /^Overloaded$/ } },
  ];
  for (const { name, error, expected } of cases) {
    it(`${name}, complete and streamed`, async () => {
      fake.enqueue(error, error);
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError(expected));
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError(expected));
      const [failed] = fake.messageRequests();
      assert.match(failed?.rawBody ?? '', /^\{"model":"claude-sonnet-4-5"/);
    });
  }

  it('a wrong key gets the fake’s own 401, as api.anthropic.com answers it', async () => {
    const wrongKey = createAnthropicChatModel({ provider: 'anthropic', baseUrl: fake.baseUrl, apiKey: 'sk-ant-wrong', http: { dispatcher, timeouts } }, 'claude-sonnet-4-5');
    await assert.rejects(wrongKey.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 401, isRetryable: true }));
  });

  for (const [type, message, status, isRetryable] of [
    ['overloaded_error', 'Overloaded', 529, true],
    ['api_error', 'Internal server error', 500, true],
    ['invalid_request_error', 'Output blocked by content filtering policy', 400, false],
  ] as const) {
    it(`an \`event: error\` (${type}) mid-stream: the parts so far, then an UpstreamError`, async () => {
      fake.enqueue({ type: 'answer', content: [{ type: 'text', text: 'alpha beta gamma delta' }], streamError: { afterEvents: 5, type, message } });
      const seen: StreamPart[] = [];
      await assert.rejects(
        collect(await model.stream(hello, { signal: signal() }), seen),
        expectUpstreamError({ kind: 'http', statusCode: status, isRetryable, message: new RegExp(`^${message}$`) }),
      );
      // message_start, content_block_start, ping, then two text deltas.
      assert.equal(textOf(seen), 'alpha beta');
      assert.equal(seen.some((part) => part.type === 'finish' || part.type === 'usage'), false);
    });
  }

  it('connection reset in the middle of a stream: the parts so far, then a retryable connection error', async () => {
    fake.enqueue({ type: 'answer', content: [{ type: 'text', text: 'alpha beta gamma delta' }], transport: { resetAfterEvents: 5 } });
    const seen: StreamPart[] = [];
    await assert.rejects(collect(await model.stream(hello, { signal: signal() }), seen), expectUpstreamError({ kind: 'connection', isRetryable: true }));
    assert.equal(textOf(seen), 'alpha beta');
  });

  it('connection closed before the headers: a retryable connection error', async () => {
    fake.enqueue({ type: 'close-before-headers', reset: true }, { type: 'close-before-headers' });
    await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true }));
    await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'connection', isRetryable: true }));
  });

  it('a stream that ends before its stop_reason is an error, not a short answer; one cut after it is whole', async () => {
    const start = '{"type":"message_start","message":{"model":"claude-sonnet-4-5","id":"msg_01","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":1}}}';
    const events = [
      { event: 'message_start', data: start },
      { event: 'content_block_start', data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}' },
      { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Half an"}}' },
    ];
    const end = [
      { event: 'content_block_stop', data: '{"type":"content_block_stop","index":0}' },
      { event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}' },
    ];
    fake.enqueue({ type: 'raw', body: sseBytes(events) }, { type: 'raw', body: sseBytes([...events, ...end]) });
    const seen: StreamPart[] = [];
    await assert.rejects(collect(await model.stream(hello, { signal: signal() }), seen), expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /ended before/ }));
    assert.equal(textOf(seen), 'Half an');
    assert.deepEqual((await collect(await model.stream(hello, { signal: signal() }))).slice(-2), [
      { type: 'finish', finishReason: 'stop' },
      { type: 'usage', usage: { promptTokens: 9, completionTokens: 3, estimated: false } },
    ]);
  });

  it('a 200 whose body is not an Anthropic message is an invalid response', async () => {
    const json = { 'content-type': 'application/json' };
    fake.enqueue({ type: 'raw', headers: json, body: '{"type":"message","content": [' }, { type: 'raw', headers: json, body: '{"choices":[]}' }, { type: 'raw', body: 'data: [DONE]\n\n' });
    await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
    await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
    await assert.rejects(collect(await model.stream(hello, { signal: signal() })), expectUpstreamError({ kind: 'invalid_response', isRetryable: true }));
  });

  it('a client that goes away aborts the upstream stream', async () => {
    fake.enqueue({ type: 'answer', content: [{ type: 'text', text: 'one two three' }], transport: { hangAfterEvents: 4 } });
    const controller = new AbortController();
    const iterator = (await model.stream(hello, { signal: controller.signal }))[Symbol.asyncIterator]();
    assert.deepEqual((await iterator.next()).value, { type: 'text-delta', text: 'one' });
    const next = iterator.next();
    controller.abort();
    await assert.rejects(next, expectUpstreamError({ kind: 'aborted', isRetryable: false }));
    const streamed = fake.messageRequests()[0];
    await streamed?.closed;
    assert.equal(streamed?.aborted, true);
  });

  it('one captured stream (text + tool_use), re-delivered cut at every byte boundary, always gives the same parts', async () => {
    const argumentsJson = '{"city": "Zürich 🇨🇭", "days": [1, 2]}';
    fake.enqueue({
      type: 'answer',
      content: [
        { type: 'text', text: 'Née à Zürich — 東京 🎉', pieces: ['Né', 'e à Zü', 'rich — 東', '京 🎉'] },
        { type: 'tool_use', id: 'toolu_01Capture', name: 'get_weather', input: JSON.parse(argumentsJson) as Record<string, unknown>, json: argumentsJson, pieceLength: 4 },
      ],
      usage: { input_tokens: 30, cache_read_input_tokens: 10, output_tokens: 20 },
    });
    const captured = await undiciRequest(`${fake.baseUrl}/v1/messages`, {
      method: 'POST',
      dispatcher,
      headers: { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, stream: true, messages: hello.messages }),
    });
    const bytes = Buffer.from(await captured.body.arrayBuffer());
    const text = bytes.toString('utf8');
    assert.ok(text.startsWith('event: message_start\ndata: {"type":"message_start"'));
    assert.ok(text.includes('event: ping\ndata: {"type":"ping"}\n\n'));
    assert.ok(text.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'));

    // The fake streams the arguments 4 code points at a time (after Anthropic's usual empty first piece).
    const characters = [...argumentsJson];
    const argumentPieces = Array.from({ length: Math.ceil(characters.length / 4) }, (_, n) => characters.slice(n * 4, n * 4 + 4).join(''));
    fake.enqueue({ type: 'raw', body: bytes });
    const expected = await collect(await model.stream(hello, { signal: signal() }));
    assert.deepEqual(expected, [
      { type: 'text-delta', text: 'Né' },
      { type: 'text-delta', text: 'e à Zü' },
      { type: 'text-delta', text: 'rich — 東' },
      { type: 'text-delta', text: '京 🎉' },
      { type: 'tool-call-delta', index: 0, id: 'toolu_01Capture', name: 'get_weather', argumentsDelta: '' },
      ...argumentPieces.map((argumentsDelta) => ({ type: 'tool-call-delta' as const, index: 0, argumentsDelta })),
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'usage', usage: { promptTokens: 40, completionTokens: 20, cachedPromptTokens: 10, estimated: false } },
    ]);

    // Delivery k cuts the bytes at k, k + STRIDE, k + 2·STRIDE…, each cut its own
    // write; k = 1…STRIDE puts a cut at every byte boundary once.
    const STRIDE = 48;
    const covered = new Set<number>();
    const failures: string[] = [];
    for (let first = 1; first <= STRIDE; first += 1) {
      for (let cut = first; cut < bytes.length; cut += STRIDE) covered.add(cut);
      fake.enqueue({ type: 'raw', body: bytes, transport: { writeSizes: [first, ...Array.from({ length: Math.ceil(bytes.length / STRIDE) }, () => STRIDE)] } });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      try {
        assert.deepEqual(parts, expected);
      } catch (error) {
        failures.push(`cuts at ${first} + n·${STRIDE}: ${(error as Error).message.slice(0, 300)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(covered.size, bytes.length - 1, 'every byte boundary was a cut');

    for (const writeSizes of [[1], [2], [3], [7, 1, 2]]) {
      fake.enqueue({ type: 'raw', body: bytes, transport: { writeSizes } });
      assert.deepEqual(await collect(await model.stream(hello, { signal: signal() })), expected, `write sizes ${JSON.stringify(writeSizes)}`);
    }
  });
});
