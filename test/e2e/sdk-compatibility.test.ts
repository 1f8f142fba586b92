import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage, type UsageMetadata } from '@langchain/core/messages';
import { tool as langchainTool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { startFakeGemini, type FakeGemini } from '../support/fake-gemini.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The three OpenAI clients people point at gateways (the official `openai` SDK,
 * the Vercel AI SDK's openai-compatible provider, LangChain's ChatOpenAI), each
 * talking to a router whose model speaks Anthropic's or Gemini's native format:
 * answers, tool calls (with the tool result sent back and checked as the
 * upstream received it) and streams, end to end through a real gateway and a
 * real fake upstream.
 */

const SYSTEM = 'You are a terse weather assistant.';
const QUESTION = 'What is the weather in São Paulo?';
const WEATHER_TOOL = { name: 'get_weather', description: 'The current weather in a city.' } as const;
/** A tool that takes nothing: OpenAI clients expect `{}` as its arguments, streamed or not. */
const TIME_TOOL = { name: 'get_time', description: 'The current time.' } as const;
const weatherArguments = { city: 'São Paulo', unit: 'celsius', days: 3 } as const;
const weatherResult = { temperature: 21, condition: 'sunny, "clear" skies' } as const;
/** A turn that says something, then calls the tool twice at once. */
const PREAMBLE_PIECES = ['Let me check ', 'both cities.'] as const;
const PREAMBLE = PREAMBLE_PIECES.join('');
const parallelArguments = [weatherArguments, { city: 'Lisbon', unit: 'fahrenheit', days: 1 }] as const;
/** Cut so that words, spaces and a multi-byte character fall across pieces. */
const ANSWER_PIECES = ['It is ', '21 °C', ' and sunny', ' in São Paulo.'] as const;
const ANSWER = ANSWER_PIECES.join('');
const FINAL_PIECES = ['Expect ', 'sun: ', '21 °C.'] as const;
const FINAL = FINAL_PIECES.join('');
const USAGE = { prompt: 31, completion: 9 } as const;

const weatherSchema = z.object({
  city: z.string().describe('City name'),
  unit: z.enum(['celsius', 'fahrenheit']),
  days: z.number().int(),
});

/** What the tool answers: the round trips check that each result reaches the upstream beside its own call. */
function weatherFor(input: unknown): { temperature: number; condition: string } {
  const { city } = weatherSchema.parse(input);
  return city === 'Lisbon' ? { temperature: 64, condition: 'windy' } : weatherResult;
}

/** JSON Schema of the tool's parameters, as an OpenAI client sends them. */
const weatherParameters = {
  type: 'object',
  properties: {
    city: { type: 'string', description: 'City name' },
    unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer' },
  },
  required: ['city', 'unit', 'days'],
  additionalProperties: false,
} as const;

interface ReceivedCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: unknown;
}

interface Meta {
  readonly modelUsed: string;
  readonly provider: string;
  readonly usageEstimated: boolean;
  readonly routerId: string;
}

function metaOf(value: unknown): Meta {
  const meta = (value as { _meta?: Meta } | undefined)?._meta;
  assert.ok(meta !== undefined, 'the object carries _meta');
  return meta;
}

/** One upstream provider behind a router: how to script its answer and read what it received. */
interface Upstream {
  readonly name: 'anthropic' | 'gemini';
  readonly modelId: string;
  routerId: string;
  answerText(pieces: readonly string[]): void;
  /** Scripts one tool call; returns the call id the client must see, when the upstream gives one. */
  answerToolCall(): string | undefined;
  /** Scripts a call of the tool that takes no arguments. */
  answerCallWithoutArguments(): void;
  /** Scripts a turn of text followed by two calls at once; returns their ids when the upstream gives them. */
  answerTextAndToolCalls(): readonly string[] | undefined;
  requestCount(): number;
  lastBody(): unknown;
  /** Asserts the last request carried the system prompt where the native format wants it. */
  assertSystemPrompt(): void;
  /** Asserts the last request replayed the question, the call and the client's tool result in the native format. */
  assertToolRoundTrip(call: ReceivedCall): void;
  /** Asserts the last request replayed the turn (its text when `withText`), both calls and both results, the results in one turn. */
  assertParallelRoundTrip(calls: readonly ReceivedCall[], withText: boolean): void;
  /** Asserts the last request declared the weather tool in the native format. */
  assertToolDeclared(): void;
}

function anthropicUpstream(fake: () => FakeAnthropic): Upstream {
  const usage = { input_tokens: USAGE.prompt, output_tokens: USAGE.completion };
  return {
    name: 'anthropic',
    modelId: 'anthropic:claude-3-5-haiku-latest',
    routerId: '',
    answerText(pieces) {
      fake().enqueue({ type: 'answer', content: [{ type: 'text', text: pieces.join(''), pieces }], usage });
    },
    answerToolCall() {
      const id = `toolu_01${randomBytes(9).toString('hex')}`;
      // Short pieces, so the streamed arguments are cut inside keys, values and the multi-byte ã.
      fake().enqueue({ type: 'answer', content: [{ type: 'tool_use', id, name: WEATHER_TOOL.name, input: weatherArguments, pieceLength: 3 }], usage });
      return id;
    },
    answerCallWithoutArguments() {
      // Claude streams no input_json_delta with content for a call without input: `json: ''`.
      fake().enqueue({ type: 'answer', content: [{ type: 'tool_use', name: TIME_TOOL.name, input: {}, json: '' }], usage });
    },
    assertSystemPrompt() {
      assert.equal((this.lastBody() as { system?: unknown }).system, SYSTEM);
    },
    answerTextAndToolCalls() {
      const ids = parallelArguments.map(() => `toolu_01${randomBytes(9).toString('hex')}`);
      fake().enqueue({
        type: 'answer',
        content: [
          { type: 'text', text: PREAMBLE, pieces: PREAMBLE_PIECES },
          ...parallelArguments.map((input, index) => ({ type: 'tool_use' as const, id: ids[index] ?? '', name: WEATHER_TOOL.name, input, pieceLength: 4 })),
        ],
        usage,
      });
      return ids;
    },
    requestCount: () => fake().messageRequests().length,
    lastBody: () => (fake().messageRequests().at(-1) ?? assert.fail('no request reached the Anthropic fake')).body,
    assertParallelRoundTrip(calls, withText) {
      const body = this.lastBody() as { messages: readonly { role: string; content: unknown }[] };
      assert.equal(body.messages.length, 3, JSON.stringify(body.messages));
      const [question, assistant, results] = body.messages;
      assert.deepEqual(question, { role: 'user', content: QUESTION });
      assert.deepEqual(assistant, {
        role: 'assistant',
        content: [...(withText ? [{ type: 'text', text: PREAMBLE }] : []), ...calls.map((call, index) => ({ type: 'tool_use', id: call.id, name: WEATHER_TOOL.name, input: parallelArguments[index] }))],
      });
      assert.equal(results?.role, 'user');
      const blocks = results?.content as readonly { type: string; tool_use_id?: string; content?: unknown }[];
      assert.deepEqual(
        blocks.map((block) => ({ type: block.type, tool_use_id: block.tool_use_id, content: JSON.parse(String(block.content)) as unknown })),
        calls.map((call, index) => ({ type: 'tool_result', tool_use_id: call.id, content: weatherFor(parallelArguments[index]) })),
      );
    },
    assertToolRoundTrip(call) {
      const body = this.lastBody() as { messages: readonly { role: string; content: unknown }[] };
      assert.equal(body.messages.length, 3, JSON.stringify(body.messages));
      const [question, assistant, result] = body.messages;
      assert.deepEqual(question, { role: 'user', content: QUESTION });
      assert.deepEqual(assistant, { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: WEATHER_TOOL.name, input: weatherArguments }] });
      assert.equal(result?.role, 'user');
      const blocks = result?.content as readonly { type: string; tool_use_id?: string; content?: unknown }[];
      assert.equal(blocks.length, 1, JSON.stringify(blocks));
      const [block] = blocks;
      assert.equal(block?.type, 'tool_result');
      assert.equal(block.tool_use_id, call.id);
      assert.equal(typeof block.content, 'string', `tool_result content as the client sent it: ${JSON.stringify(block.content)}`);
      assert.deepEqual(JSON.parse(block.content as string), weatherResult);
    },
    assertToolDeclared() {
      const body = this.lastBody() as { tools?: readonly { name: string; description?: string; input_schema: { type: string; properties: Record<string, unknown> } }[] };
      const [declared] = body.tools ?? assert.fail('no tools sent to Anthropic');
      assert.equal(declared?.name, WEATHER_TOOL.name);
      assert.equal(declared.description, WEATHER_TOOL.description);
      assert.equal(declared.input_schema.type, 'object');
      assert.deepEqual(Object.keys(declared.input_schema.properties).sort(), ['city', 'days', 'unit']);
    },
  };
}

function geminiUpstream(fake: () => FakeGemini): Upstream {
  const usage = { promptTokenCount: USAGE.prompt, candidatesTokenCount: USAGE.completion };
  const generateRequests = () => fake().requests.filter((request) => /:(generateContent|streamGenerateContent)$/.test(request.path));
  return {
    name: 'gemini',
    modelId: 'gemini:gemini-2.0-flash',
    routerId: '',
    answerText(pieces) {
      // Each part is its own chunk in a stream; a complete answer merges them.
      fake().enqueue({ type: 'answer', parts: pieces.map((text) => ({ text })), usage });
    },
    answerToolCall() {
      // Gemini 2.0 gives calls no id: the gateway makes one.
      fake().enqueue({ type: 'answer', parts: [{ functionCall: { name: WEATHER_TOOL.name, args: weatherArguments } }], usage });
      return undefined;
    },
    answerCallWithoutArguments() {
      fake().enqueue({ type: 'answer', parts: [{ functionCall: { name: TIME_TOOL.name } }], usage });
    },
    assertSystemPrompt() {
      assert.deepEqual((this.lastBody() as { systemInstruction?: unknown }).systemInstruction, { parts: [{ text: SYSTEM }] });
    },
    answerTextAndToolCalls() {
      fake().enqueue({
        type: 'answer',
        parts: [...PREAMBLE_PIECES.map((text) => ({ text })), ...parallelArguments.map((args) => ({ functionCall: { name: WEATHER_TOOL.name, args } }))],
        usage,
      });
      return undefined;
    },
    requestCount: () => generateRequests().length,
    lastBody: () => (generateRequests().at(-1) ?? assert.fail('no request reached the Gemini fake')).body,
    assertParallelRoundTrip(_calls, withText) {
      const body = this.lastBody() as { contents: readonly unknown[] };
      // Gemini pairs responses with calls by name and order: the order of the calls must survive.
      assert.deepEqual(body.contents, [
        { role: 'user', parts: [{ text: QUESTION }] },
        { role: 'model', parts: [...(withText ? [{ text: PREAMBLE }] : []), ...parallelArguments.map((args) => ({ functionCall: { name: WEATHER_TOOL.name, args } }))] },
        { role: 'user', parts: parallelArguments.map((args) => ({ functionResponse: { name: WEATHER_TOOL.name, response: weatherFor(args) } })) },
      ]);
    },
    assertToolRoundTrip() {
      const body = this.lastBody() as { contents: readonly unknown[] };
      assert.deepEqual(body.contents, [
        { role: 'user', parts: [{ text: QUESTION }] },
        { role: 'model', parts: [{ functionCall: { name: WEATHER_TOOL.name, args: weatherArguments } }] },
        { role: 'user', parts: [{ functionResponse: { name: WEATHER_TOOL.name, response: weatherResult } }] },
      ]);
    },
    assertToolDeclared() {
      const body = this.lastBody() as {
        tools?: readonly { functionDeclarations: readonly { name: string; description?: string; parametersJsonSchema?: { type: string; properties: Record<string, unknown> } }[] }[];
      };
      const declared = body.tools?.[0]?.functionDeclarations[0] ?? assert.fail('no function declared to Gemini');
      assert.equal(declared.name, WEATHER_TOOL.name);
      assert.equal(declared.description, WEATHER_TOOL.description);
      assert.equal(declared.parametersJsonSchema?.type, 'object');
      assert.deepEqual(Object.keys(declared.parametersJsonSchema.properties).sort(), ['city', 'days', 'unit']);
    },
  };
}

/** What each client library does, in its own idiom, reduced to comparable values. */
interface Client {
  readonly name: string;
  /** Whether an assistant turn that called tools is sent back with its text. */
  readonly replaysTextBesideToolCalls: boolean;
  /** A plain answer to the question under the system prompt. */
  answer(routerId: string): Promise<string>;
  /** Calls the tool that takes no arguments, streamed or not. */
  callWithoutArguments(routerId: string, stream: boolean): Promise<ReceivedCall>;
  toolCall(routerId: string): Promise<ReceivedCall>;
  /** Calls, sends the tool result back, and returns the call and the final answer. */
  toolRoundTrip(routerId: string): Promise<{ call: ReceivedCall; text: string }>;
  /** A turn of text and two calls, streamed or not; both results go back; returns that turn and the final answer. */
  parallelRoundTrip(routerId: string, stream: boolean): Promise<{ text: string; calls: readonly ReceivedCall[]; final: string }>;
  streamAnswer(routerId: string): Promise<{ text: string; deltas: number }>;
  streamToolCall(routerId: string): Promise<ReceivedCall>;
}

interface Turn {
  readonly text: string;
  readonly calls: readonly ReceivedCall[];
  readonly finishReason: string | null | undefined;
}

function openAIClient(gateway: () => Gateway): Client {
  const sdk = () => new OpenAI({ apiKey: gateway().apiKey, baseURL: gateway().baseUrl, maxRetries: 0 });
  const tools: ChatCompletionFunctionTool[] = [{ type: 'function', function: { ...WEATHER_TOOL, parameters: weatherParameters } }];
  const timeTools: ChatCompletionFunctionTool[] = [{ type: 'function', function: { ...TIME_TOOL } }];
  const question: ChatCompletionMessageParam = { role: 'user', content: QUESTION };

  const completeTurn = async (routerId: string, messages: ChatCompletionMessageParam[], withTools: ChatCompletionFunctionTool[] | undefined): Promise<Turn> => {
    const completion = await sdk().chat.completions.create({ model: routerId, messages, ...(withTools === undefined ? {} : { tools: withTools }) });
    const choice = completion.choices[0] ?? assert.fail('no choice');
    const calls = (choice.message.tool_calls ?? []).map((call): ReceivedCall => {
      assert.ok(call.type === 'function', 'a function tool call');
      return { id: call.id, name: call.function.name, arguments: JSON.parse(call.function.arguments) as unknown };
    });
    return { text: choice.message.content ?? '', calls, finishReason: choice.finish_reason };
  };

  const streamedTurn = async (routerId: string, messages: ChatCompletionMessageParam[], withTools: ChatCompletionFunctionTool[] | undefined): Promise<Turn & { deltas: number }> => {
    const stream = await sdk().chat.completions.create({ model: routerId, messages, stream: true, ...(withTools === undefined ? {} : { tools: withTools }) });
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let text = '';
    let deltas = 0;
    let finishReason: string | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      finishReason = choice?.finish_reason ?? finishReason;
      if (choice?.delta.content) {
        text += choice.delta.content;
        deltas += 1;
      }
      for (const delta of choice?.delta.tool_calls ?? []) {
        const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
        calls.set(delta.index, { id: call.id + (delta.id ?? ''), name: call.name + (delta.function?.name ?? ''), arguments: call.arguments + (delta.function?.arguments ?? '') });
      }
    }
    assert.deepEqual([...calls.keys()], [...calls.keys()].map((_, index) => index), 'tool call indexes 0, 1, … in order');
    const received = [...calls.values()].map((call): ReceivedCall => ({ id: call.id, name: call.name, arguments: JSON.parse(call.arguments) as unknown }));
    return { text, deltas, calls: received, finishReason };
  };

  const onlyCall = (turn: Turn): ReceivedCall => {
    assert.equal(turn.finishReason, 'tool_calls');
    assert.equal(turn.calls.length, 1, JSON.stringify(turn.calls));
    return turn.calls[0] ?? assert.fail('no call');
  };

  /** The assistant turn and the tool results, as an application sends them back. */
  const replay = (turn: Turn): ChatCompletionMessageParam[] => [
    question,
    {
      role: 'assistant',
      content: turn.text === '' ? null : turn.text,
      tool_calls: turn.calls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })),
    },
    ...turn.calls.map((call): ChatCompletionMessageParam => ({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(weatherFor(call.arguments)) })),
  ];

  return {
    name: 'openai SDK',
    replaysTextBesideToolCalls: true,
    async answer(routerId) {
      const turn = await completeTurn(routerId, [{ role: 'system', content: SYSTEM }, question], undefined);
      assert.equal(turn.finishReason, 'stop');
      return turn.text;
    },
    callWithoutArguments: async (routerId, stream) => onlyCall(await (stream ? streamedTurn : completeTurn)(routerId, [question], timeTools)),
    toolCall: async (routerId) => onlyCall(await completeTurn(routerId, [question], tools)),
    async toolRoundTrip(routerId) {
      const first = await completeTurn(routerId, [question], tools);
      const call = onlyCall(first);
      const final = await completeTurn(routerId, replay(first), tools);
      return { call, text: final.text };
    },
    async parallelRoundTrip(routerId, stream) {
      const turn = stream ? streamedTurn : completeTurn;
      const first = await turn(routerId, [question], tools);
      assert.equal(first.finishReason, 'tool_calls');
      const final = await turn(routerId, replay(first), tools);
      return { text: first.text, calls: first.calls, final: final.text };
    },
    async streamAnswer(routerId) {
      const { text, deltas, finishReason } = await streamedTurn(routerId, [question], undefined);
      assert.equal(finishReason, 'stop');
      return { text, deltas };
    },
    streamToolCall: async (routerId) => onlyCall(await streamedTurn(routerId, [question], tools)),
  };
}

interface VercelStep {
  readonly text: string;
  readonly toolCalls: readonly { readonly toolCallId: string; readonly toolName: string; readonly input: unknown }[];
}

function vercelClient(gateway: () => Gateway): Client {
  const model = (routerId: string) => createOpenAICompatible({ name: 'modelport', baseURL: gateway().baseUrl, apiKey: gateway().apiKey }).chatModel(routerId);
  // With `execute` the SDK runs the tool itself; it sends the result back only when `stopWhen` allows a second step.
  const weatherTools = { [WEATHER_TOOL.name]: tool({ description: WEATHER_TOOL.description, inputSchema: weatherSchema, execute: async (input) => weatherFor(input) }) };
  const timeTools = { [TIME_TOOL.name]: tool({ description: TIME_TOOL.description, inputSchema: z.object({}), execute: async () => '12:00' }) };
  const callsOf = (step: VercelStep): ReceivedCall[] => step.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, arguments: call.input }));
  const onlyCall = (step: VercelStep): ReceivedCall => {
    assert.equal(step.toolCalls.length, 1, JSON.stringify(step.toolCalls));
    return callsOf(step)[0] ?? assert.fail('no call');
  };
  /** The SDK runs the tool and sends its results back itself: a two-step loop. */
  const twoSteps = ([first, second, ...rest]: readonly VercelStep[]) => {
    assert.equal(rest.length, 0, 'two steps');
    return { first: first ?? assert.fail('no first step'), second: second ?? assert.fail('no second step') };
  };
  const streamed = (routerId: string, tools: typeof weatherTools | typeof timeTools | undefined, errors: unknown[], steps = 1) =>
    streamText({
      model: model(routerId),
      prompt: QUESTION,
      ...(tools === undefined ? {} : { tools }),
      stopWhen: stepCountIs(steps),
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
  return {
    name: 'Vercel AI SDK',
    replaysTextBesideToolCalls: true,
    async answer(routerId) {
      const result = await generateText({ model: model(routerId), system: SYSTEM, prompt: QUESTION, maxRetries: 0 });
      assert.equal(result.finishReason, 'stop');
      assert.equal(result.usage.inputTokens, USAGE.prompt);
      assert.equal(result.usage.outputTokens, USAGE.completion);
      return result.text;
    },
    async callWithoutArguments(routerId, stream) {
      if (!stream) return onlyCall(await generateText({ model: model(routerId), prompt: QUESTION, tools: timeTools, maxRetries: 0 }));
      const errors: unknown[] = [];
      const result = streamed(routerId, timeTools, errors);
      await result.consumeStream();
      assert.deepEqual(errors, []);
      assert.equal(await result.finishReason, 'tool-calls');
      return onlyCall({ text: await result.text, toolCalls: await result.toolCalls });
    },
    async toolCall(routerId) {
      const result = await generateText({ model: model(routerId), prompt: QUESTION, tools: weatherTools, maxRetries: 0 });
      assert.equal(result.finishReason, 'tool-calls');
      return onlyCall(result);
    },
    async toolRoundTrip(routerId) {
      const result = await generateText({ model: model(routerId), prompt: QUESTION, tools: weatherTools, stopWhen: stepCountIs(2), maxRetries: 0 });
      const { first, second } = twoSteps(result.steps);
      return { call: onlyCall(first), text: second.text };
    },
    async parallelRoundTrip(routerId, stream) {
      let steps: readonly VercelStep[];
      if (stream) {
        const errors: unknown[] = [];
        const result = streamed(routerId, weatherTools, errors, 2);
        await result.consumeStream();
        assert.deepEqual(errors, []);
        steps = await result.steps;
      } else {
        steps = (await generateText({ model: model(routerId), prompt: QUESTION, tools: weatherTools, stopWhen: stepCountIs(2), maxRetries: 0 })).steps;
      }
      const { first, second } = twoSteps(steps);
      return { text: first.text, calls: callsOf(first), final: second.text };
    },
    async streamAnswer(routerId) {
      const errors: unknown[] = [];
      const result = streamed(routerId, undefined, errors);
      let text = '';
      let deltas = 0;
      for await (const delta of result.textStream) {
        text += delta;
        deltas += 1;
      }
      assert.deepEqual(errors, []);
      assert.equal(await result.finishReason, 'stop');
      return { text, deltas };
    },
    async streamToolCall(routerId) {
      const errors: unknown[] = [];
      const result = streamed(routerId, weatherTools, errors);
      let streamedInput = '';
      for await (const part of result.fullStream) if (part.type === 'tool-input-delta') streamedInput += part.delta;
      assert.deepEqual(errors, []);
      assert.equal(await result.finishReason, 'tool-calls');
      assert.deepEqual(JSON.parse(streamedInput), weatherArguments, 'the input deltas put together');
      return onlyCall({ text: await result.text, toolCalls: await result.toolCalls });
    },
  };
}

function langChainClient(gateway: () => Gateway): Client {
  const chat = (routerId: string) => new ChatOpenAI({ model: routerId, apiKey: gateway().apiKey, configuration: { baseURL: gateway().baseUrl }, maxRetries: 0 });
  const weather = langchainTool(async (input) => JSON.stringify(weatherFor(input)), { ...WEATHER_TOOL, schema: weatherSchema });
  const time = langchainTool(async () => '12:00', { ...TIME_TOOL, schema: z.object({}) });
  const callsOf = (message: AIMessage | AIMessageChunk): ReceivedCall[] =>
    (message.tool_calls ?? []).map((call) => ({ id: call.id ?? assert.fail('a tool call without id'), name: call.name, arguments: call.args }));
  const onlyCall = (message: AIMessage | AIMessageChunk): ReceivedCall => {
    assert.equal(message.tool_calls?.length, 1, JSON.stringify(message.tool_calls));
    return callsOf(message)[0] ?? assert.fail('no call');
  };
  const textOf = (message: AIMessage | AIMessageChunk): string => {
    assert.equal(typeof message.content, 'string', JSON.stringify(message.content));
    return message.content as string;
  };
  // The declared type so that @langchain/core's inferred property type (never, under this tsconfig) does not narrow it away.
  const usageOf = (message: { readonly usage_metadata?: UsageMetadata | undefined }): UsageMetadata | undefined => message.usage_metadata;
  /** The chunks of a stream put together, as LangChain applications do. */
  const gather = async (stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk> => {
    let whole: AIMessageChunk | undefined;
    for await (const chunk of stream) whole = whole === undefined ? chunk : whole.concat(chunk);
    return whole ?? assert.fail('an empty stream');
  };
  /** Runs every call of the turn and sends the results back, as an agent loop does. */
  const answerCalls = async (calling: AIMessage | AIMessageChunk): Promise<ToolMessage[]> =>
    Promise.all(
      (calling.tool_calls ?? []).map(async (call) => {
        const result: unknown = await weather.invoke({ ...call, type: 'tool_call' });
        assert.ok(result instanceof ToolMessage);
        return result;
      }),
    );
  return {
    name: 'LangChain ChatOpenAI',
    // ChatOpenAI sends a turn with tool_calls with `content: ""` (@langchain/openai utils/message_inputs.js): its text is not replayed.
    replaysTextBesideToolCalls: false,
    async answer(routerId) {
      const message = await chat(routerId).invoke([new SystemMessage(SYSTEM), new HumanMessage(QUESTION)]);
      const usage = usageOf(message);
      assert.equal(usage?.input_tokens, USAGE.prompt);
      assert.equal(usage?.output_tokens, USAGE.completion);
      return textOf(message);
    },
    async callWithoutArguments(routerId, stream) {
      const model = chat(routerId).bindTools([time]);
      return onlyCall(stream ? await gather(await model.stream([new HumanMessage(QUESTION)])) : await model.invoke([new HumanMessage(QUESTION)]));
    },
    toolCall: async (routerId) => onlyCall(await chat(routerId).bindTools([weather]).invoke([new HumanMessage(QUESTION)])),
    async toolRoundTrip(routerId) {
      const model = chat(routerId).bindTools([weather]);
      const question = new HumanMessage(QUESTION);
      const calling = await model.invoke([question]);
      const call = onlyCall(calling);
      const final = await model.invoke([question, calling, ...(await answerCalls(calling))]);
      return { call, text: textOf(final) };
    },
    async parallelRoundTrip(routerId, stream) {
      const model = chat(routerId).bindTools([weather]);
      const turn = async (messages: (HumanMessage | AIMessage | AIMessageChunk | ToolMessage)[]) => (stream ? gather(await model.stream(messages)) : model.invoke(messages));
      const question = new HumanMessage(QUESTION);
      const calling = await turn([question]);
      const final = await turn([question, calling, ...(await answerCalls(calling))]);
      return { text: textOf(calling), calls: callsOf(calling), final: textOf(final) };
    },
    async streamAnswer(routerId) {
      let text = '';
      let deltas = 0;
      let usage: UsageMetadata | undefined;
      for await (const chunk of await chat(routerId).stream([new HumanMessage(QUESTION)])) {
        usage = usageOf(chunk) ?? usage;
        if (typeof chunk.content === 'string' && chunk.content !== '') {
          text += chunk.content;
          deltas += 1;
        }
      }
      assert.equal(usage?.input_tokens, USAGE.prompt, 'LangChain asks for usage in streams: it reaches it');
      return { text, deltas };
    },
    streamToolCall: async (routerId) => onlyCall(await gather(await chat(routerId).bindTools([weather]).stream([new HumanMessage(QUESTION)]))),
  };
}

describe('OpenAI clients against Anthropic and Gemini routers', () => {
  let anthropic: FakeAnthropic;
  let gemini: FakeGemini;
  let gateway: Gateway;
  const upstreams = [anthropicUpstream(() => anthropic), geminiUpstream(() => gemini)];
  const clients = [openAIClient(() => gateway), vercelClient(() => gateway), langChainClient(() => gateway)];

  before(async () => {
    [anthropic, gemini] = await Promise.all([startFakeAnthropic(), startFakeGemini()]);
    gateway = await startGateway({
      env: {
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        GEMINI_BASE_URL: gemini.baseUrl,
        GEMINI_API_KEY: 'gemini-test-key',
        MODELPORT_DEFAULT_RPM: '100000',
      },
    });
    for (const upstream of upstreams) {
      const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: `${upstream.name} only`, models: [upstream.modelId], strategy: 'cost_optimized' });
      upstream.routerId = router.id;
    }
  });
  after(async () => {
    await gateway?.close();
    await Promise.all([anthropic?.close(), gemini?.close()]);
  });
  beforeEach(() => {
    anthropic.reset();
    gemini.reset();
  });

  for (const upstream of upstreams) {
    describe(`${upstream.name} (${upstream.modelId})`, () => {
      for (const client of clients) {
        describe(client.name, () => {
          it('gets the plain answer the upstream produced', async () => {
            upstream.answerText(ANSWER_PIECES);
            assert.equal(await client.answer(upstream.routerId), ANSWER);
            assert.equal(upstream.requestCount(), 1);
            upstream.assertSystemPrompt();
          });

          for (const stream of [false, true]) {
            it(`${stream ? 'streams' : 'gets'} a call of a tool without parameters, with {} as its arguments`, async () => {
              upstream.answerCallWithoutArguments();
              const call = await client.callWithoutArguments(upstream.routerId, stream);
              assert.equal(call.name, TIME_TOOL.name);
              assert.deepEqual(call.arguments, {});
            });
          }

          it('gets the tool call with its name and arguments exactly', async () => {
            const id = upstream.answerToolCall();
            const call = await client.toolCall(upstream.routerId);
            assert.equal(call.name, WEATHER_TOOL.name);
            assert.deepEqual(call.arguments, weatherArguments);
            if (id !== undefined) assert.equal(call.id, id);
            else assert.match(call.id, /^call_[A-Za-z0-9_-]+$/);
            upstream.assertToolDeclared();
          });

          it('sends the tool result back and the upstream receives it in its own format', async () => {
            const id = upstream.answerToolCall();
            upstream.answerText(FINAL_PIECES);
            const { call, text } = await client.toolRoundTrip(upstream.routerId);
            assert.equal(call.name, WEATHER_TOOL.name);
            assert.deepEqual(call.arguments, weatherArguments);
            if (id !== undefined) assert.equal(call.id, id);
            assert.equal(text, FINAL);
            assert.equal(upstream.requestCount(), 2);
            upstream.assertToolRoundTrip(call);
          });

          for (const stream of [false, true]) {
            it(`${stream ? 'streams' : 'gets'} text and two calls in one turn; both results go back, each beside its call`, async () => {
              const ids = upstream.answerTextAndToolCalls();
              upstream.answerText(FINAL_PIECES);
              const { text, calls, final } = await client.parallelRoundTrip(upstream.routerId, stream);
              assert.equal(text, PREAMBLE);
              assert.deepEqual(
                calls.map((call) => ({ name: call.name, arguments: call.arguments })),
                parallelArguments.map((args) => ({ name: WEATHER_TOOL.name, arguments: args })),
              );
              if (ids !== undefined) assert.deepEqual(calls.map((call) => call.id), ids);
              else assert.equal(new Set(calls.map((call) => call.id)).size, calls.length, 'distinct call ids');
              assert.equal(final, FINAL);
              assert.equal(upstream.requestCount(), 2);
              upstream.assertParallelRoundTrip(calls, client.replaysTextBesideToolCalls);
            });
          }

          it('streams the answer: the deltas put together are the upstream text', async () => {
            upstream.answerText(ANSWER_PIECES);
            const { text, deltas } = await client.streamAnswer(upstream.routerId);
            assert.equal(text, ANSWER);
            assert.ok(deltas > 1, `streamed in ${deltas} delta(s)`);
          });

          it('streams the tool call: name and arguments put together equal the upstream call', async () => {
            const id = upstream.answerToolCall();
            const call = await client.streamToolCall(upstream.routerId);
            assert.equal(call.name, WEATHER_TOOL.name);
            assert.deepEqual(call.arguments, weatherArguments);
            if (id !== undefined) assert.equal(call.id, id);
          });
        });
      }

      describe('_meta through the openai SDK', () => {
        const sdk = () => new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl, maxRetries: 0 });

        it('a complete answer carries _meta, the upstream usage and the model header', async () => {
          upstream.answerText(ANSWER_PIECES);
          const { data, response } = await sdk().chat.completions.create({ model: upstream.routerId, messages: [{ role: 'user', content: QUESTION }] }).withResponse();
          assert.equal(response.headers.get('x-modelport-model'), upstream.modelId);
          assert.equal(data.model, upstream.modelId);
          const meta = metaOf(data);
          assert.equal(meta.modelUsed, upstream.modelId);
          assert.equal(meta.provider, upstream.name);
          assert.equal(meta.routerId, upstream.routerId);
          assert.equal(meta.usageEstimated, false);
          assert.equal(data.usage?.prompt_tokens, USAGE.prompt);
          assert.equal(data.usage?.completion_tokens, USAGE.completion);
        });

        it('a stream carries _meta and the upstream usage on its last chunk', async () => {
          upstream.answerText(ANSWER_PIECES);
          const stream = await sdk().chat.completions.create({
            model: upstream.routerId,
            messages: [{ role: 'user', content: QUESTION }],
            stream: true,
            stream_options: { include_usage: true },
          });
          const chunks = [];
          for await (const chunk of stream) chunks.push(chunk);
          const last = chunks.at(-1) ?? assert.fail('no chunks');
          assert.equal(last.model, upstream.modelId);
          assert.equal(last.usage?.prompt_tokens, USAGE.prompt);
          assert.equal(last.usage?.completion_tokens, USAGE.completion);
          const meta = metaOf(last);
          assert.equal(meta.modelUsed, upstream.modelId);
          assert.equal(meta.usageEstimated, false);
        });
      });
    });
  }
});
