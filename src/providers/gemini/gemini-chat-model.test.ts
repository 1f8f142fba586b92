import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { startFakeGemini, type FakeGemini, type FakeGeminiAnswer } from '../../../test/support/fake-gemini.js';
import { UpstreamError, type ChatModel, type ChatRequest, type FinishReason, type StreamPart, type UpstreamErrorKind } from '../contract.js';
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
const only = <T extends StreamPart['type']>(parts: readonly StreamPart[], type: T) => parts.filter((part) => part.type === type);

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

describe('createGeminiChatModel against a fake generativelanguage.googleapis.com over real HTTP', () => {
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

  describe('answers', () => {
    it('reads a text answer, complete and streamed; usage is the last cumulative count', async () => {
      const answer: FakeGeminiAnswer = {
        type: 'answer',
        parts: [{ text: 'Grüße aus ' }, { text: 'Zürich — 日本語 ' }, { text: '🎉!' }],
        usage: { promptTokenCount: 12, candidatesTokenCount: 11 },
      };
      fake.enqueue(answer, answer);
      const result = await model.generate(hello, { signal: signal() });
      assert.deepEqual(result, { message: { content: 'Grüße aus Zürich — 日本語 🎉!' }, finishReason: 'stop', usage: { promptTokens: 12, completionTokens: 11, estimated: false } });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.deepEqual(parts, [
        { type: 'text-delta', text: 'Grüße aus ' },
        { type: 'text-delta', text: 'Zürich — 日本語 ' },
        { type: 'text-delta', text: '🎉!' },
        { type: 'finish', finishReason: 'stop' },
        { type: 'usage', usage: { promptTokens: 12, completionTokens: 11, estimated: false } },
      ]);
    });

    it('a multi-turn conversation gets its answer', async () => {
      fake.enqueue({ type: 'answer', parts: [{ text: 'Your name is Ada.' }] });
      const result = await model.generate(
        {
          messages: [
            { role: 'system', content: 'Remember names.' },
            { role: 'user', content: 'I am Ada.' },
            { role: 'assistant', content: 'Hello Ada!' },
            { role: 'user', content: 'What is my name?' },
          ],
        },
        { signal: signal() },
      );
      assert.equal(result.message.content, 'Your name is Ada.');
      assert.deepEqual((fake.requests[0]?.body as { contents: unknown }).contents, [
        { role: 'user', parts: [{ text: 'I am Ada.' }] },
        { role: 'model', parts: [{ text: 'Hello Ada!' }] },
        { role: 'user', parts: [{ text: 'What is my name?' }] },
      ]);
    });

    it('reads function calls from a complete answer, with ids of their own', async () => {
      const parts = [
        { text: 'Let me check.' },
        { functionCall: { name: 'get_weather', args: { city: 'Zürich, "CH"' } } },
        { functionCall: { name: 'get_time', args: {} } },
      ];
      fake.enqueue({ type: 'answer', parts }, { type: 'answer', parts: parts.slice(1) });
      const first = await model.generate(hello, { signal: signal() });
      assert.equal(first.finishReason, 'tool_calls');
      assert.equal(first.message.content, 'Let me check.');
      const calls = first.message.toolCalls ?? [];
      assert.deepEqual(
        calls.map((call) => ({ ...call, id: 'id' })),
        [
          { id: 'id', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich, \\"CH\\""}' } },
          { id: 'id', type: 'function', function: { name: 'get_time', arguments: '{}' } },
        ],
      );
      for (const call of calls) assert.match(call.id, /^call_[\w-]{24}$/);
      assert.notEqual(calls[0]?.id, calls[1]?.id);
      const second = await model.generate(hello, { signal: signal() });
      assert.equal(second.message.content, null);
      assert.notEqual(second.message.toolCalls?.[0]?.id, calls[0]?.id, 'two responses never share an id');
    });

    it('streams each function call whole, as one tool-call-delta; Gemini ids are kept', async () => {
      fake.enqueue({
        type: 'answer',
        parts: [
          { text: 'Checking.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris', note: 'ünïcödé 🌧' } } },
          { functionCall: { id: 'fc-42', name: 'get_time', args: { tz: 'Asia/東京' } } },
        ],
      });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      const calls = only(parts, 'tool-call-delta');
      assert.equal(textOf(parts), 'Checking.');
      assert.deepEqual(
        calls.map((call) => (call.type === 'tool-call-delta' ? { ...call, id: call.index === 0 ? 'generated' : call.id } : call)),
        [
          { type: 'tool-call-delta', index: 0, id: 'generated', name: 'get_weather', argumentsDelta: '{"city":"Paris","note":"ünïcödé 🌧"}' },
          { type: 'tool-call-delta', index: 1, id: 'fc-42', name: 'get_time', argumentsDelta: '{"tz":"Asia/東京"}' },
        ],
      );
      assert.deepEqual(only(parts, 'finish'), [{ type: 'finish', finishReason: 'tool_calls' }]);
    });

    it('thought parts are not content; their tokens are billed as output', async () => {
      const answer: FakeGeminiAnswer = {
        type: 'answer',
        parts: [{ text: '**Counting** the r letters…', thought: true }, { text: 'There are 3.', thoughtSignature: 'EqsFCqgFAb4+9vvt' }],
        usage: { promptTokenCount: 9, candidatesTokenCount: 23, thoughtsTokenCount: 185 },
        separateFinishChunk: true,
      };
      fake.enqueue(answer, answer);
      const usage = { promptTokens: 9, completionTokens: 208, reasoningTokens: 185, estimated: false };
      assert.deepEqual(await model.generate(hello, { signal: signal() }), { message: { content: 'There are 3.' }, finishReason: 'stop', usage });
      assert.deepEqual(await collect(await model.stream(hello, { signal: signal() })), [
        { type: 'text-delta', text: 'There are 3.' },
        { type: 'finish', finishReason: 'stop' },
        { type: 'usage', usage },
      ]);
    });

    it('reads cached, thought and tool-use prompt tokens', async () => {
      const usage = { promptTokenCount: 2_048, candidatesTokenCount: 300, cachedContentTokenCount: 1_024, thoughtsTokenCount: 192, toolUsePromptTokenCount: 50 };
      fake.enqueue({ type: 'answer', usage }, { type: 'answer', usage });
      const expected = { promptTokens: 2_098, completionTokens: 492, cachedPromptTokens: 1_024, reasoningTokens: 192, estimated: false };
      assert.deepEqual((await model.generate(hello, { signal: signal() })).usage, expected);
      assert.deepEqual(only(await collect(await model.stream(hello, { signal: signal() })), 'usage'), [{ type: 'usage', usage: expected }]);
    });

    const finishReasons: [string, FinishReason][] = [
      ['STOP', 'stop'],
      ['MAX_TOKENS', 'length'],
      ['SAFETY', 'content_filter'],
      ['RECITATION', 'content_filter'],
      ['BLOCKLIST', 'content_filter'],
      ['PROHIBITED_CONTENT', 'content_filter'],
      ['SPII', 'content_filter'],
      ['IMAGE_SAFETY', 'content_filter'],
      ['LANGUAGE', 'stop'],
      ['OTHER', 'stop'],
      ['FINISH_REASON_UNSPECIFIED', 'stop'],
    ];
    for (const [reason, expected] of finishReasons) {
      it(`maps finishReason ${reason} to "${expected}", complete and streamed`, async () => {
        const answer: FakeGeminiAnswer = { type: 'answer', parts: [{ text: 'Partial' }, { text: ' answer' }], finishReason: reason };
        fake.enqueue(answer, answer);
        const result = await model.generate(hello, { signal: signal() });
        assert.equal(result.finishReason, expected);
        // A filtered candidate comes without its content; a stream has sent what came before.
        assert.equal(result.message.content, expected === 'content_filter' ? null : 'Partial answer');
        const parts = await collect(await model.stream(hello, { signal: signal() }));
        assert.equal(textOf(parts), 'Partial answer');
        assert.deepEqual(only(parts, 'finish'), [{ type: 'finish', finishReason: expected }]);
        assert.equal(parts.at(-1)?.type, 'usage');
      });
    }

    it('MALFORMED_FUNCTION_CALL is a retryable failure, not an empty answer', async () => {
      const answer: FakeGeminiAnswer = { type: 'answer', parts: [], finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call: print(default_api.get_weather(city=Paris))' };
      fake.enqueue(answer, answer);
      const failure = expectUpstreamError({ kind: 'invalid_response', isRetryable: true, message: /MALFORMED_FUNCTION_CALL.*Malformed function call/ });
      await assert.rejects(model.generate(hello, { signal: signal() }), failure);
      await assert.rejects(collect(await model.stream(hello, { signal: signal() })), failure);
    });

    for (const blockReason of ['SAFETY', 'PROHIBITED_CONTENT', 'OTHER']) {
      it(`a prompt blocked for ${blockReason} is a finished answer with content_filter and no content`, async () => {
        const answer: FakeGeminiAnswer = { type: 'answer', blockReason, usage: { promptTokenCount: 9, candidatesTokenCount: 0 } };
        fake.enqueue(answer, answer);
        const usage = { promptTokens: 9, completionTokens: 0, estimated: false };
        assert.deepEqual(await model.generate(hello, { signal: signal() }), { message: { content: null }, finishReason: 'content_filter', usage });
        assert.deepEqual(await collect(await model.stream(hello, { signal: signal() })), [
          { type: 'finish', finishReason: 'content_filter' },
          { type: 'usage', usage },
        ]);
      });
    }

    it('streamed calls read their body to the end and give the connection back to the pool', async () => {
      for (let call = 0; call < 4; call += 1) {
        assert.equal(only(await collect(await model.stream(hello, { signal: signal() })), 'usage').length, 1);
        // undici frees the connection a tick after the body's end; the next call then finds it free.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(new Set(fake.requests.map((request) => request.connection)).size, 1);
      for (const request of fake.requests) assert.equal(request.aborted, false);
    });

    it('a caller that stops reading early ends the upstream request', async () => {
      fake.enqueue({ type: 'answer', parts: [{ text: 'one' }, { text: ' two' }, { text: ' three' }], transport: { hangAfterEvents: 2 } });
      for await (const part of await model.stream(hello, { signal: signal() })) {
        assert.deepEqual(part, { type: 'text-delta', text: 'one' });
        break;
      }
      await fake.requests[0]?.closed;
      assert.equal(fake.requests[0]?.aborted, true);
    });

    it('streamGenerateContent without alt=sse is not what the gateway asks for', async () => {
      const response = await undiciRequest(`${fake.baseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
        method: 'POST',
        dispatcher,
        headers: { 'x-goog-api-key': 'gemini-test-key', 'content-type': 'application/json' },
        body: JSON.stringify(hello),
      });
      assert.match(await response.body.text(), /^\[\{\n {2}"candidates"/);
    });
  });


  it('one captured stream, re-delivered cut at every byte boundary, always gives the same parts', async () => {
    fake.setHandler(() => ({
      type: 'answer',
      parts: [
        { text: 'Thinking about Zürich…', thought: true },
        { text: 'Né' },
        { text: 'e à Zü' },
        { text: 'rich — 東' },
        { text: '京 🎉' },
        { functionCall: { name: 'get_weather', args: { city: 'Zürich 🇨🇭' } }, thoughtSignature: 'CiQBjz1rX0vG' },
        { functionCall: { name: 'get_time', args: { tz: 'Asia/東京' } } },
      ],
      usage: { promptTokenCount: 30, candidatesTokenCount: 20, cachedContentTokenCount: 10, thoughtsTokenCount: 5 },
      separateFinishChunk: true,
    }));
    const captured = await undiciRequest(`${fake.baseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: 'POST',
      dispatcher,
      headers: { 'x-goog-api-key': 'gemini-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] }),
    });
    assert.equal(captured.headers['content-type'], 'text/event-stream');
    const bytes = Buffer.from(await captured.body.arrayBuffer());
    fake.setHandler(undefined);
    assert.ok(bytes.toString('utf8').startsWith('data: {"candidates": [{"content": {"parts": [{"text": "Thinking'));
    assert.ok(bytes.toString('utf8').endsWith('}\r\n\r\n'));

    fake.enqueue({ type: 'raw', body: bytes });
    const expected = await collect(await model.stream(hello, { signal: signal() }));
    assert.equal(textOf(expected), 'Née à Zürich — 東京 🎉');
    const calls = only(expected, 'tool-call-delta').map((part) => (part.type === 'tool-call-delta' ? [part.index, part.name, part.argumentsDelta] : []));
    assert.deepEqual(calls, [
      [0, 'get_weather', '{"city":"Zürich 🇨🇭"}'],
      [1, 'get_time', '{"tz":"Asia/東京"}'],
    ]);
    assert.deepEqual(expected.slice(-2), [
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'usage', usage: { promptTokens: 30, completionTokens: 25, cachedPromptTokens: 10, reasoningTokens: 5, estimated: false } },
    ]);

    // Delivery k cuts the bytes at k, k + STRIDE, k + 2·STRIDE…, each cut its own
    // write and its own read; k = 1…STRIDE puts a cut at every byte boundary once,
    // inside `\r\n` pairs and multi-byte characters included.
    const STRIDE = 48;
    const covered = new Set<number>();
    const failures: string[] = [];
    for (let first = 1; first <= STRIDE; first += 1) {
      const writeSizes = [first, ...Array.from({ length: Math.ceil(bytes.length / STRIDE) }, () => STRIDE)];
      for (let cut = first; cut < bytes.length; cut += STRIDE) covered.add(cut);
      fake.enqueue({ type: 'raw', body: bytes, transport: { writeSizes } });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      try {
        assert.deepEqual(parts, expected);
      } catch (error) {
        failures.push(`cuts at ${first} + n·${STRIDE}: ${(error as Error).message.slice(0, 300)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(covered.size, bytes.length - 1, 'every byte boundary was a cut');
    assert.equal(fake.requests.length, 2 + STRIDE);
  });

  it('one-byte writes give the same parts as whole events, complete and streamed', async () => {
    const answer: FakeGeminiAnswer = { type: 'answer', parts: [{ text: 'ÆØÅ — ' }, { text: 'ünïcödé 😀' }] };
    fake.enqueue({ ...answer, transport: { writeSizes: [1] } }, { ...answer, transport: { writeSizes: [1] } });
    assert.equal((await model.generate(hello, { signal: signal() })).message.content, 'ÆØÅ — ünïcödé 😀');
    assert.equal(textOf(await collect(await model.stream(hello, { signal: signal() }))), 'ÆØÅ — ünïcödé 😀');
  });
});
