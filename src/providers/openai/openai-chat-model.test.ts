import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { requestedModel, startFakeOpenAI, type FakeAnswer, type FakeFinishReason, type FakeOpenAI } from '../../../test/support/fake-openai.js';
import type { ChatModel, ChatRequest, StreamPart } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createOpenAIChatModel } from './openai-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };

const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
} as const;

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

/** Tool calls put back together from their deltas, by index. */
function toolCallsOf(parts: readonly StreamPart[]): { id: string | undefined; name: string | undefined; arguments: string }[] {
  const calls: { id: string | undefined; name: string | undefined; arguments: string }[] = [];
  for (const part of parts) {
    if (part.type !== 'tool-call-delta') continue;
    const call = (calls[part.index] ??= { id: undefined, name: undefined, arguments: '' });
    if (part.id !== undefined) {
      assert.equal(call.id, undefined, 'a call id is sent once');
      call.id = part.id;
    }
    if (part.name !== undefined) call.name = part.name;
    call.arguments += part.argumentsDelta;
  }
  return calls;
}

describe('createOpenAIChatModel against a fake api.openai.com over real HTTP', () => {
  let fake: FakeOpenAI;
  let dispatcher: Dispatcher;
  let model: ChatModel;

  before(async () => {
    fake = await startFakeOpenAI();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createOpenAIChatModel({ provider: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-test', http: { dispatcher, timeouts } }, 'gpt-4o-mini');
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  describe('answers', () => {
    it('sends the request OpenAI expects and reads a text answer', async () => {
      fake.enqueue({ type: 'answer', content: 'Hi there! 👋', usage: { prompt_tokens: 9, completion_tokens: 4 } });
      const result = await model.generate(
        { ...hello, temperature: 0.2, max_tokens: 50, top_p: 0.9, stop: ['\n\n'], seed: 7, user: 'u-1', response_format: { type: 'json_object' } },
        { signal: signal() },
      );
      assert.deepEqual(result.message, { content: 'Hi there! 👋' });
      assert.equal(result.finishReason, 'stop');
      assert.deepEqual(result.usage, { promptTokens: 9, completionTokens: 4, estimated: false });
      assert.match(result.systemFingerprint ?? '', /^fp_[0-9a-f]{10}$/);

      const [sent] = fake.chatRequests();
      assert.ok(sent !== undefined);
      assert.equal(sent.method, 'POST');
      assert.equal(sent.path, '/v1/chat/completions');
      assert.equal(sent.headers.authorization, 'Bearer sk-test');
      assert.match(sent.headers['content-type'] ?? '', /^application\/json/);
      assert.deepEqual(sent.body, {
        messages: [{ role: 'user', content: 'Hello' }],
        temperature: 0.2,
        max_tokens: 50,
        top_p: 0.9,
        stop: ['\n\n'],
        seed: 7,
        user: 'u-1',
        response_format: { type: 'json_object' },
        model: 'gpt-4o-mini',
        stream: false,
      });
    });

    it('never sends stream_options on a call that does not stream', async () => {
      await model.generate({ ...hello, stream_options: { include_usage: true } }, { signal: signal() });
      const body = fake.chatRequests()[0]?.body as Record<string, unknown>;
      assert.equal('stream_options' in body, false);
    });

    it('streams text, always asking for usage', async () => {
      fake.enqueue({ type: 'answer', content: 'Grüße aus Zürich — 日本語 🎉!', usage: { prompt_tokens: 12, completion_tokens: 11 } });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.equal(textOf(parts), 'Grüße aus Zürich — 日本語 🎉!');
      assert.deepEqual(parts.slice(-2), [
        { type: 'finish', finishReason: 'stop' },
        { type: 'usage', usage: { promptTokens: 12, completionTokens: 11, estimated: false } },
      ]);
      const sent = fake.chatRequests()[0];
      assert.equal(sent?.headers.accept, 'text/event-stream');
      assert.equal(sent?.headers.authorization, 'Bearer sk-test');
      assert.deepEqual(sent?.body, { messages: hello.messages, model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } });
    });

    it('reads tool calls from a complete answer', async () => {
      fake.enqueue({
        type: 'answer',
        toolCalls: [
          { id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_b', name: 'get_weather', arguments: '{"city":"Zürich, \\"CH\\""}' },
        ],
      });
      const result = await model.generate({ ...hello, tools: [weatherTool], tool_choice: 'auto', parallel_tool_calls: true }, { signal: signal() });
      assert.equal(result.finishReason, 'tool_calls');
      assert.deepEqual(result.message, {
        content: null,
        toolCalls: [
          { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich, \\"CH\\""}' } },
        ],
      });
      const body = fake.chatRequests()[0]?.body as Record<string, unknown>;
      assert.deepEqual(body.tools, [weatherTool]);
      assert.equal(body.tool_choice, 'auto');
      assert.equal(body.parallel_tool_calls, true);
    });

    for (const roleChunk of ['merged', 'separate'] as const) {
      it(`streams parallel tool calls with their arguments put back exactly (role chunk ${roleChunk})`, async () => {
        const first = '{"city":"Paris","unit":"celsius","note":"a \\"quoted\\" ünïcödé 🌧"}';
        const second = '{"city":"東京"}';
        fake.enqueue({
          type: 'answer',
          roleChunk,
          argumentsPieceLength: 3,
          toolCalls: [
            { id: 'call_first', name: 'get_weather', arguments: first },
            { id: 'call_second', name: 'get_time', arguments: second },
          ],
        });
        const parts = await collect(await model.stream({ ...hello, tools: [weatherTool] }, { signal: signal() }));
        assert.deepEqual(toolCallsOf(parts), [
          { id: 'call_first', name: 'get_weather', arguments: first },
          { id: 'call_second', name: 'get_time', arguments: second },
        ]);
        assert.equal(textOf(parts), '');
        assert.deepEqual(parts.filter((part) => part.type === 'finish'), [{ type: 'finish', finishReason: 'tool_calls' }]);
      });
    }

    it('streams text followed by a tool call', async () => {
      fake.enqueue({ type: 'answer', content: 'Let me check.', toolCalls: [{ id: 'call_x', name: 'get_weather', arguments: '{"city":"Oslo"}' }] });
      const parts = await collect(await model.stream({ ...hello, tools: [weatherTool] }, { signal: signal() }));
      assert.equal(textOf(parts), 'Let me check.');
      assert.deepEqual(toolCallsOf(parts), [{ id: 'call_x', name: 'get_weather', arguments: '{"city":"Oslo"}' }]);
      const firstTool = parts.findIndex((part) => part.type === 'tool-call-delta');
      const lastText = parts.findLastIndex((part) => part.type === 'text-delta');
      assert.ok(lastText < firstTool);
    });

    for (const finishReason of ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const satisfies readonly FakeFinishReason[]) {
      it(`maps finish_reason "${finishReason}" without and with streaming`, async () => {
        const answer: FakeAnswer = {
          type: 'answer',
          content: 'Partial',
          finishReason,
          ...(finishReason === 'tool_calls' ? { toolCalls: [{ name: 'get_weather', arguments: '{}' }] } : {}),
        };
        fake.enqueue(answer, answer);
        const result = await model.generate(hello, { signal: signal() });
        assert.equal(result.finishReason, finishReason);
        const parts = await collect(await model.stream(hello, { signal: signal() }));
        assert.deepEqual(parts.filter((part) => part.type === 'finish'), [{ type: 'finish', finishReason }]);
      });
    }

    it('passes a refusal through, complete and streamed', async () => {
      const answer: FakeAnswer = { type: 'answer', refusal: "I'm sorry, I can't help with that." };
      fake.enqueue(answer, answer);
      const result = await model.generate(hello, { signal: signal() });
      assert.deepEqual(result.message, { content: null, refusal: "I'm sorry, I can't help with that." });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.equal(parts.map((part) => (part.type === 'refusal-delta' ? part.text : '')).join(''), "I'm sorry, I can't help with that.");
      assert.equal(textOf(parts), '');
    });

    it('reads cached and reasoning tokens, complete and streamed', async () => {
      const usage = { prompt_tokens: 2_048, completion_tokens: 300, cached_tokens: 1_024, reasoning_tokens: 192 };
      fake.enqueue({ type: 'answer', usage }, { type: 'answer', usage });
      const expected = { promptTokens: 2_048, completionTokens: 300, cachedPromptTokens: 1_024, reasoningTokens: 192, estimated: false };
      assert.deepEqual((await model.generate(hello, { signal: signal() })).usage, expected);
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.deepEqual(parts.filter((part) => part.type === 'usage'), [{ type: 'usage', usage: expected }]);
    });

    it('streamed calls give their keep-alive connection back to the pool', async () => {
      const pool = createUpstreamDispatcher(timeouts);
      const pooled = createOpenAIChatModel({ provider: 'openai', baseUrl: fake.baseUrl, apiKey: 'sk-test', http: { dispatcher: pool, timeouts } }, 'gpt-4o-mini');
      try {
        for (let call = 0; call < 4; call += 1) {
          await collect(await pooled.stream(hello, { signal: signal() }));
          // The rest of the body (the end of the chunked encoding) is read after [DONE], off the caller's path: wait
          // until the pool counts no request running (not a fixed delay, which a loaded machine outlasts).
          for (let waited = 0; waited < 5_000 && Object.values((pool as unknown as { stats: Record<string, { running: number }> }).stats).some((stats) => stats.running > 0); waited += 5) {
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
      } finally {
        await pool.close();
      }
      const connections = new Set(fake.chatRequests().map((request) => request.connection));
      assert.equal(connections.size, 1, `connections used: ${[...connections].join(', ')}`);
      for (const request of fake.chatRequests()) assert.equal(request.aborted, false);
    });

    it('a caller that stops reading early ends the upstream request', async () => {
      fake.enqueue({ type: 'answer', content: 'one two three four', transport: { hangAfterEvents: 3 } });
      for await (const part of await model.stream(hello, { signal: signal() })) {
        assert.deepEqual(part, { type: 'text-delta', text: 'one' });
        break;
      }
      const sent = fake.chatRequests()[0];
      await sent?.closed;
      assert.equal(sent?.aborted, true);
    });

    it('reads a body that arrives one byte at a time', async () => {
      fake.enqueue({ type: 'answer', content: 'Ça va? ✓', transport: { writeSizes: [1] } });
      assert.equal((await model.generate(hello, { signal: signal() })).message.content, 'Ça va? ✓');
    });
  });


  it('one captured stream, re-delivered cut at every byte boundary, always gives the same parts', async () => {
    // Capture: text with multi-byte characters, two tool calls, usage.
    fake.setHandler(() => ({
      type: 'answer',
      content: 'Née à Zürich — 東京 🎉',
      textPieces: ['Né', 'e à Zü', 'rich — 東', '京 🎉'],
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: '{"city":"Zürich 🇨🇭"}' },
        { id: 'call_2', name: 'get_time', arguments: '{"tz":"Asia/東京"}' },
      ],
      argumentsPieceLength: 6,
      usage: { prompt_tokens: 30, completion_tokens: 20, cached_tokens: 10 },
    }));
    const captured = await undiciRequest(`${fake.baseUrl}/chat/completions`, {
      method: 'POST',
      dispatcher,
      headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true, include_obfuscation: false }, messages: hello.messages }),
    });
    const bytes = Buffer.from(await captured.body.arrayBuffer());
    fake.setHandler(undefined);
    assert.ok(bytes.toString('utf8').endsWith('data: [DONE]\n\n'));

    fake.enqueue({ type: 'raw', body: bytes });
    const expected = await collect(await model.stream(hello, { signal: signal() }));
    assert.equal(textOf(expected), 'Née à Zürich — 東京 🎉');
    assert.deepEqual(toolCallsOf(expected), [
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Zürich 🇨🇭"}' },
      { id: 'call_2', name: 'get_time', arguments: '{"tz":"Asia/東京"}' },
    ]);
    assert.deepEqual(expected.slice(-2), [
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'usage', usage: { promptTokens: 30, completionTokens: 20, cachedPromptTokens: 10, estimated: false } },
    ]);

    // Delivery k cuts the bytes at k, k + STRIDE, k + 2·STRIDE…, every cut its own
    // write and its own read; k = 1…STRIDE puts a cut at every byte boundary once.
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
    assert.equal(fake.chatRequests().length, 2 + STRIDE);
    assert.equal(requestedModel(fake.chatRequests()[0] ?? assert.fail('no request')), 'gpt-4o-mini');
  });

  it('one-byte writes and random piece sizes give the same parts as whole events', async () => {
    const answer: FakeAnswer = {
      type: 'answer',
      content: 'ÆØÅ — ünïcödé 😀 text',
      toolCalls: [{ id: 'call_r', name: 'lookup', arguments: '{"q":"ß∂ƒ©"}' }],
      usage: { prompt_tokens: 5, completion_tokens: 6 },
    };
    fake.enqueue(answer);
    const whole = await collect(await model.stream(hello, { signal: signal() }));
    const sizes = [[1], [2], [3], [7, 1, 2], Array.from({ length: 64 }, (_, index) => 1 + ((index * 7919) % 13))];
    for (const writeSizes of sizes) {
      fake.enqueue({ ...answer, transport: { writeSizes } });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.deepEqual(
        parts.map((part) => (part.type === 'tool-call-delta' ? { ...part, id: part.id === undefined ? undefined : 'id' } : part)),
        whole.map((part) => (part.type === 'tool-call-delta' ? { ...part, id: part.id === undefined ? undefined : 'id' } : part)),
        `write sizes ${JSON.stringify(writeSizes)}`,
      );
    }
  });
});
