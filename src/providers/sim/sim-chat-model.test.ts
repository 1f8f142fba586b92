import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import type { ChatRequest, ChatResult, StreamPart, ToolDefinition } from '../contract.js';
import { countTextTokens } from '../token-counter.js';
import { createSimChatModel } from './sim-chat-model.js';

const model = createSimChatModel({ timeScale: 0, timing: () => ({ ttftMs: 100, tokensPerSecond: 50 }) }, 'small');
const options = { signal: new AbortController().signal };

const WEATHER: ToolDefinition = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city', 'unit'], additionalProperties: false },
  },
};
const TIME: ToolDefinition = { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } } };
const WeatherArgs = z.strictObject({ city: z.string(), unit: z.enum(['c', 'f']) });

const ask = (content: string, extra: Partial<ChatRequest> = {}): ChatRequest => ({ messages: [{ role: 'user', content }], ...extra });

/** The stream, put back together: text, each call's arguments, the finish reason and the usage. */
async function collect(request: ChatRequest) {
  const parts: StreamPart[] = [];
  for await (const part of await model.stream(request, options)) parts.push(part);
  const text = parts.flatMap((part) => (part.type === 'text-delta' ? [part.text] : [])).join('');
  const calls = new Map<number, { id?: string; name?: string; arguments: string }>();
  for (const part of parts) {
    if (part.type !== 'tool-call-delta') continue;
    const call = calls.get(part.index) ?? { arguments: '' };
    calls.set(part.index, { ...call, ...(part.id ? { id: part.id } : {}), ...(part.name ? { name: part.name } : {}), arguments: call.arguments + part.argumentsDelta });
  }
  const finish = parts.find((part) => part.type === 'finish');
  const usage = parts.find((part) => part.type === 'usage');
  return { parts, text, calls: [...calls.values()], finishReason: finish?.type === 'finish' ? finish.finishReason : undefined, usage: usage?.type === 'usage' ? usage.usage : undefined };
}

/** generate() and stream() must tell the same answer. */
async function both(request: ChatRequest): Promise<ChatResult> {
  const result = await model.generate(request, options);
  const streamed = await collect(request);
  assert.equal(streamed.finishReason, result.finishReason);
  assert.deepEqual(streamed.usage, result.usage);
  if (result.message.toolCalls) {
    assert.deepEqual(
      streamed.calls,
      result.message.toolCalls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
    );
  } else assert.equal(streamed.text, result.message.content);
  return result;
}

describe('sim chat model', () => {
  it('plain text by default, the same for the same prompt', async () => {
    const first = await both(ask('Hello there'));
    assert.equal(first.finishReason, 'stop');
    assert.match(first.message.content ?? '', /^Simulated answer from sim:small/);
    assert.deepEqual(await model.generate(ask('Hello there'), options), first);
  });

  it('json_object: a JSON object, streamed in several pieces', async () => {
    const request = ask('Give me JSON', { response_format: { type: 'json_object' } });
    const result = await both(request);
    const parsed = JSON.parse(result.message.content ?? '') as unknown;
    assert.equal(typeof (parsed as { answer?: unknown }).answer, 'string');
    assert.equal(result.usage?.completionTokens, countTextTokens(result.message.content ?? ''));
    assert.ok((await collect(request)).parts.filter((part) => part.type === 'text-delta').length > 3);
  });

  it('json_schema: JSON that the schema accepts, for many prompts', async () => {
    const Recipe = z.strictObject({
      title: z.string(),
      servings: z.number().int().min(1).max(12),
      steps: z.array(z.strictObject({ order: z.number().int(), text: z.string() })).min(2),
      vegan: z.boolean(),
      difficulty: z.enum(['easy', 'hard']),
      notes: z.string().nullable(),
    });
    const response_format = { type: 'json_schema', json_schema: { name: 'recipe', strict: true, schema: z.toJSONSchema(Recipe) } };
    for (let index = 0; index < 20; index += 1) {
      const result = await both(ask(`Recipe number ${index}`, { response_format }));
      assert.equal(result.finishReason, 'stop');
      const parsed = Recipe.safeParse(JSON.parse(result.message.content ?? ''));
      assert.ok(parsed.success, result.message.content ?? '');
    }
  });

  it('tool_choice auto: a call only when the last user message names the tool', async () => {
    const tools = [TIME, WEATHER];
    const plain = await both(ask('How are you?', { tools, tool_choice: 'auto' }));
    assert.equal(plain.finishReason, 'stop');
    assert.equal(plain.message.toolCalls, undefined);
    for (const wording of ['Please call get_weather for Paris', 'What does get weather say?', 'use getWeather']) {
      const called = await both(ask(wording, { tools }));
      assert.equal(called.finishReason, 'tool_calls', wording);
      assert.equal(called.message.content, null);
      const [call] = called.message.toolCalls ?? [];
      assert.equal(call?.function.name, 'get_weather');
      assert.ok(WeatherArgs.safeParse(JSON.parse(call?.function.arguments ?? '')).success, call?.function.arguments);
    }
  });

  it('tool_choice required, named and none; text after a tool result', async () => {
    const tools = [TIME, WEATHER];
    const required = await both(ask('Anything', { tools, tool_choice: 'required' }));
    assert.equal(required.message.toolCalls?.[0]?.function.name, 'get_time');
    const named = await both(ask('Anything', { tools, tool_choice: { type: 'function', function: { name: 'get_weather' } } }));
    assert.equal(named.message.toolCalls?.[0]?.function.name, 'get_weather');
    const none = await both(ask('call get_weather', { tools, tool_choice: 'none' }));
    assert.equal(none.message.toolCalls, undefined);
    const call = named.message.toolCalls?.[0] ?? assert.fail('no call');
    const after = await both({
      messages: [{ role: 'user', content: 'call get_weather' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call.id, content: '21 degrees' }],
      tools,
      tool_choice: 'required',
    });
    assert.equal(after.finishReason, 'stop');
    assert.equal(typeof after.message.content, 'string');
  });

  it('max_tokens and max_completion_tokens stop the answer with finish_reason length', async () => {
    const free = await model.generate(ask('A long answer please'), options);
    const full = free.usage?.completionTokens ?? 0;
    assert.ok(full > 10);
    for (const limit of [1, 5, 10]) {
      const cut = await both(ask('A long answer please', { max_tokens: limit }));
      assert.equal(cut.finishReason, 'length');
      assert.ok((cut.usage?.completionTokens ?? Infinity) <= limit, String(cut.usage?.completionTokens));
      assert.equal(cut.usage?.completionTokens, countTextTokens(cut.message.content ?? ''));
      assert.ok(free.message.content?.startsWith(cut.message.content ?? '?'));
    }
    const roomy = await both(ask('A long answer please', { max_tokens: full }));
    assert.equal(roomy.finishReason, 'stop');
    const preferred = await both(ask('A long answer please', { max_tokens: 1000, max_completion_tokens: 4 }));
    assert.equal(preferred.finishReason, 'length');

    const json = await both(ask('JSON', { response_format: { type: 'json_object' }, max_tokens: 6 }));
    assert.equal(json.finishReason, 'length');
    assert.ok((json.usage?.completionTokens ?? Infinity) <= 6);
    assert.throws(() => JSON.parse(json.message.content ?? ''));

    const call = await both(ask('call get_weather', { tools: [WEATHER], max_tokens: 8 }));
    assert.equal(call.finishReason, 'length');
    assert.ok((call.usage?.completionTokens ?? Infinity) <= 8);
  });
});
