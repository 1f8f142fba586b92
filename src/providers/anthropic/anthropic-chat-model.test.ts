import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { sseBytes, startFakeAnthropic, streamEvents, type FakeAnswer, type FakeAnthropic, type FakeStopReason } from '../../../test/support/fake-anthropic.js';
import type { ChatModel, ChatRequest, FinishReason, StreamPart } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createAnthropicChatModel } from './anthropic-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
} as const;

const signal = () => new AbortController().signal;

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const textOf = (parts: readonly StreamPart[]) => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
const finishesOf = (parts: readonly StreamPart[]) => parts.filter((part) => part.type === 'finish');

/** Tool calls put back together from their deltas, by index; an id and a name are sent once, first. */
function toolCallsOf(parts: readonly StreamPart[]): { id: string | undefined; name: string | undefined; arguments: string }[] {
  const calls: { id: string | undefined; name: string | undefined; arguments: string }[] = [];
  for (const part of parts) {
    if (part.type !== 'tool-call-delta') continue;
    const call = calls[part.index];
    if (call === undefined) {
      assert.equal(part.index, calls.length, 'tool call indexes count up from 0');
      assert.ok(part.id !== undefined && part.name !== undefined, 'the first delta of a call names it');
      calls.push({ id: part.id, name: part.name, arguments: part.argumentsDelta });
    } else {
      assert.equal(part.id, undefined, 'a call id is sent once');
      call.arguments += part.argumentsDelta;
    }
  }
  return calls;
}

describe('createAnthropicChatModel against a fake api.anthropic.com over real HTTP', () => {
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

  it('sends POST /v1/messages with Anthropic headers and the mapped body, and reads a text answer', async () => {
    fake.enqueue({ type: 'answer', content: [{ type: 'text', text: 'Bonjour ! 👋' }], usage: { input_tokens: 21, output_tokens: 6 } });
    const request: ChatRequest = {
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hello' },
      ],
      temperature: 1.5,
      stop: 'END',
      user: 'user-42',
    };
    const result = await model.generate(request, { signal: signal() });
    assert.deepEqual(result, { message: { content: 'Bonjour ! 👋' }, finishReason: 'stop', usage: { promptTokens: 21, completionTokens: 6, estimated: false } });

    const [sent] = fake.messageRequests();
    assert.ok(sent !== undefined);
    assert.equal(sent.method, 'POST');
    assert.equal(sent.path, '/v1/messages');
    assert.equal(sent.headers['x-api-key'], 'sk-ant-test');
    assert.equal(sent.headers['anthropic-version'], '2023-06-01');
    assert.match(sent.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(sent.headers.authorization, undefined);
    assert.deepEqual(sent.body, {
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'You are terse.',
      messages: [{ role: 'user', content: 'Hello' }],
      temperature: 1,
      stop_sequences: ['END'],
      metadata: { user_id: 'user-42' },
      stream: false,
    });
  });

  it('takes a base URL with a trailing slash or /v1, another anthropic-version and a default max_tokens; no key, no x-api-key', async () => {
    const keyless = await startFakeAnthropic({ apiKey: null });
    try {
      for (const baseUrl of [`${keyless.baseUrl}/`, `${keyless.baseUrl}/v1`]) {
        const other = createAnthropicChatModel(
          { provider: 'claude-proxy', baseUrl, http: { dispatcher, timeouts }, anthropicVersion: '2024-01-01', defaultMaxTokens: 64_000 },
          'claude-opus-4-1',
        );
        assert.equal((await other.generate(hello, { signal: signal() })).finishReason, 'stop');
      }
      for (const sent of keyless.messageRequests()) {
        assert.equal(sent.path, '/v1/messages');
        assert.equal(sent.headers['anthropic-version'], '2024-01-01');
        assert.equal(sent.headers['x-api-key'], undefined);
        assert.equal((sent.body as { max_tokens: number }).max_tokens, 64_000);
      }
      assert.equal(keyless.messageRequests().length, 2);
    } finally {
      await keyless.close();
    }
  });

  it('sends a multi-turn tool conversation with images as Anthropic turns', async () => {
    const request: ChatRequest = {
      messages: [
        { role: 'developer', content: 'Use tools.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather where this photo was taken?' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01A', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_01A', content: '{"celsius":3}' },
        { role: 'user', content: 'And tomorrow?' },
      ],
      tools: [weatherTool],
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_tokens: 300,
    };
    await model.generate(request, { signal: signal() });
    assert.deepEqual(fake.messageRequests()[0]?.body, {
      model: 'claude-sonnet-4-5',
      max_tokens: 300,
      system: 'Use tools.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather where this photo was taken?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Zürich' } }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_01A', content: '{"celsius":3}' },
            { type: 'text', text: 'And tomorrow?' },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Weather in a city', input_schema: weatherTool.function.parameters }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      stream: false,
    });
  });

  it('sends nothing when tool arguments are not JSON: a 400 for the client', async () => {
    const request: ChatRequest = {
      messages: [hello.messages[0] ?? assert.fail(), { role: 'assistant', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }],
    };
    for (const call of [() => model.generate(request, { signal: signal() }), () => model.stream(request, { signal: signal() })]) {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof Error && 'statusCode' in error);
        assert.deepEqual({ statusCode: error.statusCode, isRetryable: (error as { isRetryable?: unknown }).isRetryable }, { statusCode: 400, isRetryable: false });
        assert.match(error.message, /arguments is not valid JSON/);
        return true;
      });
    }
    assert.equal(fake.messageRequests().length, 0);
  });

  it('reads tool_use blocks of a complete answer as tool calls, skipping thinking and server tools', async () => {
    fake.enqueue({
      type: 'answer',
      content: [
        { type: 'thinking', thinking: 'The user wants weather in two cities.' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
        { type: 'text', text: 'Let me check both.' },
        { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'weather' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: [] },
        { type: 'tool_use', id: 'toolu_01P', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool_use', id: 'toolu_01T', name: 'get_weather', input: { city: '東京', units: { temp: 'C' } } },
      ],
      usage: { input_tokens: 400, output_tokens: 90 },
    });
    const result = await model.generate({ ...hello, tools: [weatherTool] }, { signal: signal() });
    assert.deepEqual(result, {
      message: {
        content: 'Let me check both.',
        toolCalls: [
          { id: 'toolu_01P', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_01T', type: 'function', function: { name: 'get_weather', arguments: '{"city":"東京","units":{"temp":"C"}}' } },
        ],
      },
      finishReason: 'tool_calls',
      usage: { promptTokens: 400, completionTokens: 90, estimated: false },
    });
  });

  it('streams text: deltas, then finish, then usage', async () => {
    fake.enqueue({ type: 'answer', content: [{ type: 'text', text: 'Grüße aus Zürich — 日本語 🎉!' }], usage: { input_tokens: 12, output_tokens: 11 } });
    const parts = await collect(await model.stream(hello, { signal: signal() }));
    assert.deepEqual(parts, [
      { type: 'text-delta', text: 'Grüße' },
      { type: 'text-delta', text: ' aus' },
      { type: 'text-delta', text: ' Zürich' },
      { type: 'text-delta', text: ' —' },
      { type: 'text-delta', text: ' 日本語' },
      { type: 'text-delta', text: ' 🎉!' },
      { type: 'finish', finishReason: 'stop' },
      { type: 'usage', usage: { promptTokens: 12, completionTokens: 11, estimated: false } },
    ]);
    const sent = fake.messageRequests()[0];
    assert.equal(sent?.headers.accept, 'text/event-stream');
    assert.deepEqual(sent?.body, { model: 'claude-sonnet-4-5', max_tokens: 4096, messages: [{ role: 'user', content: 'Hello' }], stream: true });
  });

  it('streams tool calls indexed among tool calls, arguments put back exactly from input_json_delta pieces', async () => {
    const first = '{"city": "Paris", "note": "a \\"quoted\\" ünïcödé 🌧"}';
    const second = '{"tz":"Asia/東京"}';
    fake.enqueue({
      type: 'answer',
      content: [
        { type: 'thinking', thinking: 'Two lookups are needed here.' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_01F', name: 'get_weather', input: JSON.parse(first) as Record<string, unknown>, json: first, pieceLength: 3 },
        { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'time in Tokyo' } },
        { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: [] },
        { type: 'tool_use', id: 'toolu_01S', name: 'get_time', input: JSON.parse(second) as Record<string, unknown>, json: second, pieceLength: 1 },
      ],
    });
    const parts = await collect(await model.stream({ ...hello, tools: [weatherTool] }, { signal: signal() }));
    assert.equal(textOf(parts), 'Checking.');
    assert.deepEqual(toolCallsOf(parts), [
      { id: 'toolu_01F', name: 'get_weather', arguments: first },
      { id: 'toolu_01S', name: 'get_time', arguments: second },
    ]);
    assert.ok(parts.every((part) => part.type !== 'tool-call-delta' || part.index === 0 || part.index === 1));
    assert.deepEqual(finishesOf(parts), [{ type: 'finish', finishReason: 'tool_calls' }]);
  });

  it('a tool call without arguments streams `{}`, as the complete answer has it', async () => {
    const answer: FakeAnswer = { type: 'answer', content: [{ type: 'tool_use', id: 'toolu_01N', name: 'now', input: {}, json: '' }] };
    fake.enqueue(answer, answer);
    const parts = await collect(await model.stream({ ...hello, tools: [weatherTool] }, { signal: signal() }));
    assert.deepEqual(toolCallsOf(parts), [{ id: 'toolu_01N', name: 'now', arguments: '{}' }]);
    const result = await model.generate({ ...hello, tools: [weatherTool] }, { signal: signal() });
    assert.equal(result.message.toolCalls?.[0]?.function.arguments, '{}');
  });

  const stopReasons: Record<FakeStopReason, FinishReason> = {
    end_turn: 'stop',
    stop_sequence: 'stop',
    pause_turn: 'stop',
    max_tokens: 'length',
    model_context_window_exceeded: 'length',
    tool_use: 'tool_calls',
    refusal: 'content_filter',
  };
  for (const [stopReason, finishReason] of Object.entries(stopReasons) as [FakeStopReason, FinishReason][]) {
    it(`maps stop_reason "${stopReason}" to "${finishReason}", complete and streamed`, async () => {
      const content = stopReason === 'tool_use' ? [{ type: 'tool_use', name: 'get_weather', input: { city: 'Oslo' } } as const] : [{ type: 'text', text: 'Partial answer' } as const];
      const answer: FakeAnswer = { type: 'answer', content: stopReason === 'refusal' ? [] : content, stopReason };
      fake.enqueue(answer, answer);
      const request = { ...hello, stop: ['END'] };
      assert.equal((await model.generate(request, { signal: signal() })).finishReason, finishReason);
      assert.deepEqual(finishesOf(await collect(await model.stream(request, { signal: signal() }))), [{ type: 'finish', finishReason }]);
    });
  }

  it('reads a stream to its end after message_stop, so the connection is reused, and ignores what follows message_stop', async () => {
    const ownPool = createUpstreamDispatcher(timeouts);
    try {
      const pooled = createAnthropicChatModel({ provider: 'anthropic', baseUrl: fake.baseUrl, apiKey: 'sk-ant-test', http: { dispatcher: ownPool, timeouts } }, 'claude-sonnet-4-5');
      for (let round = 0; round < 3; round += 1) {
        await collect(await pooled.stream(hello, { signal: signal() }));
        // The stream ends at message_stop; the rest of the body (the end of the chunked encoding) is read after
        // it, off the caller's path, and undici puts the connection back in its pool on a later tick.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await ownPool.close();
    }
    const ports = new Set(fake.messageRequests().map((request) => request.remotePort));
    assert.equal(ports.size, 1, 'one connection served the three streams');
    fake.reset();

    const stream = sseBytes(streamEvents({ type: 'answer', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 3, output_tokens: 2 } }, {}));
    fake.enqueue({ type: 'raw', body: Buffer.concat([stream, Buffer.from('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"late"}}\n\n')]) });
    assert.deepEqual(await collect(await model.stream(hello, { signal: signal() })), [
      { type: 'text-delta', text: 'Done.' },
      { type: 'finish', finishReason: 'stop' },
      { type: 'usage', usage: { promptTokens: 3, completionTokens: 2, estimated: false } },
    ]);
  });

  it('counts cache writes and reads into the prompt, complete and streamed, with either message_delta usage shape', async () => {
    const usage = { input_tokens: 12, cache_creation_input_tokens: 1_800, cache_read_input_tokens: 30_000, output_tokens: 250 };
    const expected = { promptTokens: 31_812, completionTokens: 250, cachedPromptTokens: 30_000, cacheWritePromptTokens: 1_800, estimated: false };
    fake.enqueue({ type: 'answer', usage }, { type: 'answer', usage }, { type: 'answer', usage, legacyDeltaUsage: true });
    assert.deepEqual((await model.generate(hello, { signal: signal() })).usage, expected);
    for (let round = 0; round < 2; round += 1) {
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.deepEqual(parts.at(-1), { type: 'usage', usage: expected });
      assert.equal(parts.filter((part) => part.type === 'usage').length, 1);
    }
  });
});
