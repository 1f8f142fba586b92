import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import type { FunctionTool, ResponseFunctionToolCall, ResponseInputItem } from 'openai/resources/responses/responses';
import { z } from 'zod';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { openAIErrors, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The official `openai` SDK's Responses API (`responses.create`, whole and streamed, `responses.stream` with its event
 * helpers and `finalResponse()`, `responses.parse` with a zod format) against routers whose model is an OpenAI, an
 * Anthropic or a Gemini fake: each request arrives in the upstream's own format, and a conversation continued with
 * `previous_response_id` moves between providers.
 */

const INSTRUCTIONS = 'You are a terse weather assistant.';
const QUESTION = 'What is the weather in São Paulo?';
const PIECES = ['It is ', '21 °C', ' and sunny', ' in São Paulo.'] as const;
const ANSWER = PIECES.join('');
const ARGS = { city: 'São Paulo', unit: 'celsius' } as const;
const RESULT = { temperature: 21, condition: 'sunny' } as const;
const WEATHER: FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The current weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city', 'unit'], additionalProperties: false },
  strict: true,
};
const Weather = z.object({ city: z.string(), temperature: z.number() });
const functionCall = (output: readonly { type: string }[]) => output.find((item) => item.type === 'function_call') as ResponseFunctionToolCall | undefined;
/** `store` is in the response object, though the SDK does not type it. */
const storeOf = (response: object): unknown => (response as { store?: unknown }).store;

interface Upstream {
  readonly name: 'openai' | 'anthropic' | 'gemini';
  readonly modelId: string;
  routerId: string;
  answerText(pieces: readonly string[]): void;
  /** Scripts a call of get_weather; gives its call id where the upstream makes one. */
  answerToolCall(): string | undefined;
  lastBody(): Record<string, unknown>;
  /** The system prompt as the upstream received it. */
  system(body: Record<string, unknown>): unknown;
  /** The tool result the upstream received, in its own format, reduced to the call it answers and its content. */
  toolResult(body: Record<string, unknown>): { call: string; content: unknown };
}

type Message = { role: string; content: unknown };

function upstreams(fakes: () => { openai: FakeOpenAI; anthropic: FakeAnthropic; gemini: FakeGemini }): Upstream[] {
  return [
    {
      name: 'openai',
      modelId: 'openai:gpt-4o-mini',
      routerId: '',
      answerText: (pieces) => fakes().openai.enqueue({ type: 'answer', content: pieces.join(''), textPieces: pieces, usage: { prompt_tokens: 31, completion_tokens: 9 } }),
      answerToolCall: () => (fakes().openai.enqueue({ type: 'answer', content: null, toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: JSON.stringify(ARGS) }] }), 'call_w1'),
      lastBody: () => fakes().openai.chatRequests().at(-1)?.body as Record<string, unknown>,
      system: (body) => (body.messages as Message[])[0],
      toolResult: (body) => {
        const tool = (body.messages as (Message & { tool_call_id?: string })[]).find((message) => message.role === 'tool') ?? assert.fail('no tool message');
        return { call: tool.tool_call_id ?? '', content: JSON.parse(String(tool.content)) };
      },
    },
    {
      name: 'anthropic',
      modelId: 'anthropic:claude-3-5-haiku-latest',
      routerId: '',
      answerText: (pieces) => fakes().anthropic.enqueue({ type: 'answer', content: [{ type: 'text', text: pieces.join(''), pieces }], usage: { input_tokens: 31, output_tokens: 9 } }),
      answerToolCall: () => (fakes().anthropic.enqueue({ type: 'answer', content: [{ type: 'tool_use', id: 'toolu_w1', name: 'get_weather', input: ARGS, pieceLength: 3 }] }), 'toolu_w1'),
      lastBody: () => fakes().anthropic.messageRequests().at(-1)?.body as Record<string, unknown>,
      system: (body) => body.system,
      toolResult: (body) => {
        const blocks = (body.messages as Message[]).flatMap((message) => (Array.isArray(message.content) ? (message.content as { type: string; tool_use_id?: string; content?: unknown }[]) : []));
        const result = blocks.find((block) => block.type === 'tool_result') ?? assert.fail('no tool_result');
        return { call: result.tool_use_id ?? '', content: JSON.parse(String(result.content)) };
      },
    },
    {
      name: 'gemini',
      modelId: 'gemini:gemini-2.0-flash',
      routerId: '',
      answerText: (pieces) => fakes().gemini.enqueue({ type: 'answer', parts: pieces.map((text) => ({ text })), usage: { promptTokenCount: 31, candidatesTokenCount: 9 } }),
      answerToolCall: () => (fakes().gemini.enqueue({ type: 'answer', parts: [{ functionCall: { name: 'get_weather', args: ARGS } }] }), undefined),
      lastBody: () => fakes().gemini.requests.filter((request) => /generateContent$/i.test(request.path)).at(-1)?.body as Record<string, unknown>,
      system: (body) => body.systemInstruction,
      toolResult: (body) => {
        const parts = (body.contents as { parts: { functionResponse?: { name: string; response: unknown } }[] }[]).flatMap((content) => content.parts);
        const response = parts.find((part) => part.functionResponse !== undefined)?.functionResponse ?? assert.fail('no functionResponse');
        return { call: response.name, content: response.response };
      },
    },
  ];
}

describe('openai SDK responses.* → gateway → OpenAI, Anthropic and Gemini fakes', () => {
  let fakes: { openai: FakeOpenAI; anthropic: FakeAnthropic; gemini: FakeGemini };
  let gateway: Gateway;
  let client: OpenAI;
  const all = upstreams(() => fakes);

  before(async () => {
    fakes = { openai: await startFakeOpenAI({ apiKey: 'sk-test' }), anthropic: await startFakeAnthropic({ apiKey: 'sk-ant-test' }), gemini: await startFakeGemini({ apiKey: 'gemini-test-key' }) };
    gateway = await startGateway({
      env: {
        OPENAI_BASE_URL: fakes.openai.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: fakes.anthropic.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        GEMINI_BASE_URL: fakes.gemini.baseUrl,
        GEMINI_API_KEY: 'gemini-test-key',
        MODELPORT_DEFAULT_RPM: '100000',
      },
    });
    for (const upstream of all) {
      upstream.routerId = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: `${upstream.name} only`, models: [upstream.modelId], strategy: 'cost_optimized' })).id;
    }
    client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl, maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await Promise.all([fakes.openai.close(), fakes.anthropic.close(), fakes.gemini.close()]);
  });
  beforeEach(() => {
    fakes.openai.reset();
    fakes.anthropic.reset();
    fakes.gemini.reset();
  });

  for (const upstream of all) {
    describe(`${upstream.name} (${upstream.modelId})`, () => {
      it('responses.create: the response object, usage from the upstream, _meta, stored', async () => {
        upstream.answerText(PIECES);
        const { data, response } = await client.responses.create({ model: upstream.routerId, instructions: INSTRUCTIONS, input: QUESTION, metadata: { case: 'create' } }).withResponse();
        assert.match(data.id, /^resp_/);
        assert.equal(data.object, 'response');
        assert.equal(data.status, 'completed');
        assert.equal(data.model, upstream.modelId);
        assert.equal(data.output_text, ANSWER);
        const [message] = data.output;
        assert.ok(message?.type === 'message' && message.content[0]?.type === 'output_text');
        assert.deepEqual(message.content[0].annotations, []);
        assert.deepEqual([data.usage?.input_tokens, data.usage?.output_tokens, data.usage?.total_tokens], [31, 9, 40]);
        assert.deepEqual([data.instructions, data.metadata, storeOf(data), data.tool_choice, data.parallel_tool_calls], [INSTRUCTIONS, { case: 'create' }, true, 'auto', true]);
        assert.equal((data as unknown as { _meta: { modelUsed: string } })._meta.modelUsed, upstream.modelId);
        assert.equal(response.headers.get('x-modelport-response-stored'), 'stored');
        assert.equal(response.headers.get('x-modelport-model'), upstream.modelId);
        assert.match(JSON.stringify(upstream.system(upstream.lastBody())), /terse weather assistant/);
      });

      it('responses.create({ stream: true }): the events in order; the deltas put together are the final text', async () => {
        upstream.answerText(PIECES);
        const stream = await client.responses.create({ model: upstream.routerId, input: QUESTION, stream: true });
        const types: string[] = [];
        let text = '';
        let final: { output_text?: string; usage?: { output_tokens: number } | null } | undefined;
        for await (const event of stream) {
          types.push(event.type);
          if (event.type === 'response.output_text.delta') text += event.delta;
          if (event.type === 'response.completed') final = event.response;
        }
        assert.deepEqual(types.slice(0, 4), ['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
        assert.deepEqual(types.slice(-4), ['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
        assert.equal(text, ANSWER);
        assert.equal(final?.output_text, ANSWER);
        assert.equal(final?.usage?.output_tokens, 9);
      });

      it('responses.stream(): the event helpers and finalResponse()', async () => {
        upstream.answerText(PIECES);
        const stream = client.responses.stream({ model: upstream.routerId, input: QUESTION });
        const snapshots: string[] = [];
        let completed = 0;
        stream.on('response.output_text.delta', (event) => snapshots.push(event.snapshot));
        stream.on('response.completed', () => (completed += 1));
        const final = await stream.finalResponse();
        assert.equal(final.output_text, ANSWER);
        assert.equal(snapshots.at(-1), ANSWER);
        assert.ok(snapshots.length > 1, 'streamed in several deltas');
        assert.equal(completed, 1);
      });

      for (const streamed of [false, true]) {
        it(`a function-tool round trip (${streamed ? 'streamed' : 'whole'} call, function_call_output back, store: false)`, async () => {
          const id = upstream.answerToolCall();
          upstream.answerText(PIECES);
          const first = streamed
            ? await client.responses.stream({ model: upstream.routerId, input: QUESTION, tools: [WEATHER], store: false }).finalResponse()
            : await client.responses.create({ model: upstream.routerId, input: QUESTION, tools: [WEATHER], store: false });
          const call = functionCall(first.output) ?? assert.fail(`no function_call in ${JSON.stringify(first.output)}`);
          assert.equal(call.name, 'get_weather');
          assert.deepEqual(JSON.parse(call.arguments), ARGS);
          if (id !== undefined) assert.equal(call.call_id, id);
          assert.match(call.id ?? '', /^fc_/);
          assert.equal(storeOf(first), false);
          const input: ResponseInputItem[] = [{ role: 'user', content: QUESTION }, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(RESULT) }];
          const second = await client.responses.create({ model: upstream.routerId, input, tools: [WEATHER], store: false });
          assert.equal(second.output_text, ANSWER);
          const received = upstream.toolResult(upstream.lastBody());
          assert.equal(received.call, upstream.name === 'gemini' ? 'get_weather' : call.call_id);
          assert.deepEqual(received.content, RESULT);
        });
      }

      it('structured output: text.format json_schema (responses.parse with a zod format)', async () => {
        upstream.answerText(['{"city":"São Paulo",', '"temperature":21}']);
        const parsed = await client.responses.parse({ model: upstream.routerId, input: QUESTION, text: { format: zodTextFormat(Weather, 'weather') } });
        assert.deepEqual(parsed.output_parsed, { city: 'São Paulo', temperature: 21 });
        assert.equal(parsed.text?.format?.type, 'json_schema');
        // The schema reached the upstream in its own terms (a response format, a schema, or an instruction).
        assert.match(JSON.stringify(upstream.lastBody()), /temperature/);
      });
    });
  }

  describe('previous_response_id across providers', () => {
    it('a call on OpenAI, its output on Anthropic (the first model fails), then a third turn on Gemini: each gets the whole conversation', async () => {
      const mixed = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'mixed', models: ['openai:gpt-4o-mini', 'anthropic:claude-3-5-haiku-latest'], strategy: 'cost_optimized' })).id;
      const openai = all[0] as Upstream;
      const anthropic = all[1] as Upstream;
      const gemini = all[2] as Upstream;
      openai.answerToolCall();
      const first = await client.responses.create({ model: mixed, instructions: INSTRUCTIONS, input: QUESTION, tools: [WEATHER] });
      assert.equal(first.model, 'openai:gpt-4o-mini');
      const call = functionCall(first.output) ?? assert.fail('no call');

      fakes.openai.enqueue(openAIErrors.serverError());
      anthropic.answerText(PIECES);
      const second = await client.responses.create({
        model: mixed,
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call.call_id, output: JSON.stringify(RESULT) }],
        tools: [WEATHER],
      });
      assert.equal(second.model, 'anthropic:claude-3-5-haiku-latest');
      assert.equal(second.previous_response_id, first.id);
      assert.equal(second.output_text, ANSWER);
      assert.deepEqual((second as unknown as { _meta: { attempts: { model: string; outcome: string }[] } })._meta.attempts.map((attempt) => attempt.outcome), ['failed', 'ok']);
      const anthropicBody = anthropic.lastBody() as { system?: unknown; messages: Message[] };
      assert.equal(anthropicBody.system, undefined, 'instructions are not carried over to the next turn');
      assert.deepEqual(anthropicBody.messages, [
        { role: 'user', content: QUESTION },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_w1', name: 'get_weather', input: ARGS }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_w1', content: JSON.stringify(RESULT) }] },
      ]);

      gemini.answerText(['Take ', 'sunglasses.']);
      const third = await client.responses.create({ model: gemini.routerId, previous_response_id: second.id, input: 'What should I take?' });
      assert.equal(third.model, 'gemini:gemini-2.0-flash');
      assert.equal(third.output_text, 'Take sunglasses.');
      const contents = (gemini.lastBody() as { contents: { role: string; parts: Record<string, unknown>[] }[] }).contents;
      assert.deepEqual(contents.map((content) => [content.role, Object.keys(content.parts[0] ?? {})[0]]), [
        ['user', 'text'],
        ['model', 'functionCall'],
        ['user', 'functionResponse'],
        ['model', 'text'],
        ['user', 'text'],
      ]);
      const items = await client.responses.inputItems.list(third.id, { order: 'asc' });
      assert.deepEqual(items.data.map((item) => item.type), ['message', 'function_call', 'function_call_output', 'message', 'message']);
    });
  });
});
