import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai';
import { embed, embedMany, generateObject, generateText, stepCountIs, streamText, tool, type Output, type StreamTextResult, type ToolSet } from 'ai';
import { z } from 'zod';
import { fakeEmbedding } from '../support/fake-embedding-vectors.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { createRecordingFetch, type RecordingFetch } from '../support/recording-fetch.js';
import { CHAT_UPSTREAM_MODELS, startChatFakes, type ChatFakes, type ScriptedUpstream, type UpstreamName } from '../support/scripted-chat-upstreams.js';

/**
 * The Vercel AI SDK's default OpenAI provider (`createOpenAI({ baseURL, apiKey })(<router id>)`, which speaks the
 * Responses API) pointed at the gateway, over routers whose model is an OpenAI, an Anthropic or a Gemini fake:
 * `generateText`, `streamText`, a tool the SDK runs between two steps (whole and streamed), `generateObject` through
 * `text.format` json_schema; and `embed` / `embedMany` with `openai.embedding(<embedding router id>)`.
 */

const SYSTEM = 'You are a terse weather assistant.';
const QUESTION = 'What is the weather in São Paulo?';
const PIECES = ['It is ', '21 °C', ' and sunny', ' in São Paulo.'] as const;
const ANSWER = PIECES.join('');
const USAGE = { input: 31, output: 9 } as const;
const CALL_USAGE = { input: 24, output: 6 } as const;
const ARGS = { city: 'São Paulo', unit: 'celsius' } as const;
const RESULT = { temperature: 21, condition: 'sunny' } as const;
const EMBEDDING_MODEL = 'openai:text-embedding-3-small';

const responsesPath = '/api/router/v1/responses';

describe('Vercel AI SDK (@ai-sdk/openai, default provider) → gateway /responses and /embeddings', () => {
  let fakes: ChatFakes;
  let gateway: Gateway;
  let recorder: RecordingFetch;
  let openai: OpenAIProvider;
  let embeddingRouter: string;
  const routers = new Map<string, string>();

  before(async () => {
    fakes = await startChatFakes();
    gateway = await startGateway({ env: { ...fakes.env, MODELPORT_DEFAULT_RPM: '100000' }, models: [EMBEDDING_MODEL] });
    embeddingRouter = gateway.router.id;
    for (const upstream of fakes.upstreams) {
      routers.set(upstream.name, (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: `${upstream.name} chat`, models: [upstream.modelId], strategy: 'cost_optimized' })).id);
    }
    recorder = createRecordingFetch();
    openai = createOpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: gateway.apiKey, fetch: recorder.fetch });
  });
  after(async () => {
    await gateway.close();
    await fakes.close();
  });
  beforeEach(() => {
    fakes.reset();
    recorder.reset();
  });

  const routerOf = (upstream: ScriptedUpstream) => routers.get(upstream.name) ?? assert.fail(`no router for ${upstream.name}`);
  /** Every request the SDK sent went to the Responses endpoint; gives their bodies. */
  const responsesBodies = () => {
    assert.deepEqual(recorder.paths(), recorder.sent.map(() => responsesPath), 'the default provider speaks the Responses API');
    return recorder.sent.map((request) => request.body ?? assert.fail('a request without a JSON body'));
  };

  for (const [name, modelId] of Object.entries(CHAT_UPSTREAM_MODELS) as [UpstreamName, string][]) {
    describe(`over ${name} (${modelId})`, () => {
      const scripted = () => fakes.upstream(name);

      it('generateText: the text, the finish reason, the upstream’s usage, and the model the router chose', async () => {
        scripted().answerText(PIECES, USAGE);
        const result = await generateText({ model: openai(routerOf(scripted())), system: SYSTEM, prompt: QUESTION, maxRetries: 0 });
        assert.equal(result.text, ANSWER);
        assert.equal(result.finishReason, 'stop');
        assert.deepEqual([result.usage.inputTokens, result.usage.outputTokens, result.usage.totalTokens], [USAGE.input, USAGE.output, USAGE.input + USAGE.output]);
        assert.equal(result.response.modelId, modelId);
        assert.match(String(result.providerMetadata?.openai?.responseId), /^resp_/);
        const [body] = responsesBodies();
        assert.equal(body?.model, routerOf(scripted()));
        assert.notEqual(body?.stream, true);
        // The question reached the upstream, in its own format.
        assert.equal(scripted().bodies().length, 1);
        assert.match(JSON.stringify(scripted().bodies()[0]), /What is the weather in São Paulo\?/);
        assert.match(JSON.stringify(scripted().bodies()[0]), /terse weather assistant/);
      });

      it('streamText: the streamed text is the scripted text, in several deltas; the finish reason and usage arrive', async () => {
        scripted().answerText(PIECES, USAGE);
        const result = streamText({ model: openai(routerOf(scripted())), prompt: QUESTION, maxRetries: 0, onError: () => undefined });
        const deltas: string[] = [];
        for await (const delta of result.textStream) deltas.push(delta);
        assert.equal(deltas.join(''), ANSWER);
        assert.ok(deltas.length > 1, `streamed in several deltas, got ${JSON.stringify(deltas)}`);
        assert.equal(await result.finishReason, 'stop');
        const usage = await result.usage;
        assert.deepEqual([usage.inputTokens, usage.outputTokens], [USAGE.input, USAGE.output]);
        assert.equal((await result.response).modelId, modelId);
        const [body] = responsesBodies();
        assert.equal(body?.stream, true);
      });

      for (const streamed of [false, true]) {
        it(`a tool with a zod schema (${streamed ? 'streamText' : 'generateText'}): the fake calls it, the SDK runs it, the second step answers with its result`, async () => {
          const callId = scripted().answerToolCall('get_weather', ARGS, CALL_USAGE);
          scripted().answerText(PIECES, USAGE);
          const ran: unknown[] = [];
          const getWeather = tool({
            description: 'The current weather in a city.',
            inputSchema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
            execute: async (input) => {
              ran.push(input);
              return RESULT;
            },
          });
          const options = { model: openai(routerOf(scripted())), prompt: QUESTION, tools: { get_weather: getWeather }, stopWhen: stepCountIs(3), maxRetries: 0 };
          const { text, steps, totalUsage } = streamed ? await collect(streamText({ ...options, onError: () => undefined })) : await generateText(options);
          assert.equal(text, ANSWER);
          assert.deepEqual(ran, [ARGS]);
          assert.equal(steps.length, 2);
          assert.deepEqual(
            steps.map((step) => step.finishReason),
            ['tool-calls', 'stop'],
          );
          assert.deepEqual([totalUsage.inputTokens, totalUsage.outputTokens], [CALL_USAGE.input + USAGE.input, CALL_USAGE.output + USAGE.output]);
          const [, second] = responsesBodies();
          const output = (second?.input as { type?: string; call_id?: string; output?: unknown }[]).find((item) => item.type === 'function_call_output') ?? assert.fail('no function_call_output');
          if (callId !== undefined) assert.equal(output.call_id, callId);
          assert.deepEqual(JSON.parse(String(output.output)), RESULT);
          // The tool's result reached the upstream beside its call, in the upstream's own format.
          const received = scripted().toolResults(scripted().bodies()[1] ?? assert.fail('no second upstream request'));
          assert.deepEqual(received, [{ call: callId ?? 'get_weather', content: RESULT }]);
        });
      }

      it('generateObject: the schema goes out as text.format json_schema; the fake’s JSON comes back as the object', async () => {
        scripted().answerText(['{"city":"São Paulo",', '"temperature":21,', '"sunny":true}'], USAGE);
        const { object, usage } = await generateObject({
          model: openai(routerOf(scripted())),
          schema: z.object({ city: z.string(), temperature: z.number(), sunny: z.boolean() }),
          schemaName: 'weather',
          prompt: QUESTION,
          maxRetries: 0,
        });
        assert.deepEqual(object, { city: 'São Paulo', temperature: 21, sunny: true });
        assert.equal(usage.outputTokens, USAGE.output);
        const [body] = responsesBodies();
        const format = (body?.text as { format?: { type: string; name: string; schema: { properties: object } } } | undefined)?.format;
        assert.equal(format?.type, 'json_schema');
        assert.equal(format?.name, 'weather');
        assert.deepEqual(Object.keys(format?.schema.properties ?? {}), ['city', 'temperature', 'sunny']);
        assert.match(JSON.stringify(scripted().bodies()[0]), /sunny/, 'the schema reached the upstream');
      });
    });
  }

  // With `store` at its default (true), the provider sends an assistant text it got from a stored response as
  // `{ type: 'item_reference', id: <its msg_ id> }` instead of the text (@ai-sdk/openai, convert-to-openai-responses-input).
  describe('assistant text sent back by reference (store: true, the default)', () => {
    it('a step that says something before calling the tool: the next step refers to that text, which reaches the upstream', async () => {
      const upstream = fakes.upstream('anthropic');
      const preamble = 'Let me look that up.';
      const callId = upstream.answerToolCall('get_weather', ARGS, CALL_USAGE, preamble);
      upstream.answerText(PIECES, USAGE);
      const getWeather = tool({ inputSchema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }), execute: async () => RESULT });
      const result = await generateText({ model: openai(routerOf(upstream)), prompt: QUESTION, tools: { get_weather: getWeather }, stopWhen: stepCountIs(3), maxRetries: 0 });
      assert.equal(result.text, ANSWER);
      const [, second] = responsesBodies();
      assert.deepEqual((second?.input as { type?: string }[]).map((item) => item.type), [undefined, 'item_reference', 'function_call', 'function_call_output']);
      const messages = (upstream.bodies()[1] as { messages: { role: string; content: unknown }[] }).messages;
      assert.deepEqual(messages[1], { role: 'assistant', content: [{ type: 'text', text: preamble }, { type: 'tool_use', id: callId, name: 'get_weather', input: ARGS }] });
    });

    it("a second turn with the first result's response.messages: the stored answer it refers to reaches the upstream", async () => {
      const upstream = fakes.upstream('openai');
      upstream.answerText(PIECES, USAGE);
      upstream.answerText(['Take ', 'sunglasses.'], USAGE);
      const first = await generateText({ model: openai(routerOf(upstream)), prompt: QUESTION, maxRetries: 0 });
      const second = await generateText({
        model: openai(routerOf(upstream)),
        messages: [{ role: 'user', content: QUESTION }, ...first.response.messages, { role: 'user', content: 'What should I take?' }],
        maxRetries: 0,
      });
      assert.equal(second.text, 'Take sunglasses.');
      assert.deepEqual((responsesBodies()[1]?.input as { type?: string }[]).map((item) => item.type), [undefined, 'item_reference', undefined]);
      const messages = (upstream.bodies()[1] as { messages: { role: string; content: string | { text?: string }[] }[] }).messages;
      assert.deepEqual(
        messages.map((message) => [message.role, typeof message.content === 'string' ? message.content : message.content.map((part) => part.text).join('')]),
        [
          ['user', QUESTION],
          ['assistant', ANSWER],
          ['user', 'What should I take?'],
        ],
      );
    });
  });

  describe('embeddings (openai.embedding(<embedding router id>))', () => {
    it("embed: the fake's vector, its token count, through /embeddings", async () => {
      fakes.openai.enqueue({ type: 'embeddings', promptTokens: 5 });
      const { embedding, usage } = await embed({ model: openai.embedding(embeddingRouter), value: 'sunny in São Paulo', maxRetries: 0 });
      assert.deepEqual(embedding, fakeEmbedding('text-embedding-3-small', 'sunny in São Paulo'));
      assert.equal(usage.tokens, 5);
      assert.deepEqual(recorder.paths(), ['/api/router/v1/embeddings']);
      assert.equal(recorder.sent[0]?.body?.model, embeddingRouter);
      assert.deepEqual(fakes.openai.embeddingRequests().map((request) => (request.body as { input: unknown }).input), [['sunny in São Paulo']]);
    });

    it("embedMany: one vector per value, in order, equal to the fake's", async () => {
      const values = ['rain in Lisbon', 'sun in São Paulo', 'snow in Oslo'];
      fakes.openai.enqueue({ type: 'embeddings', promptTokens: 12 });
      const { embeddings, usage } = await embedMany({ model: openai.embedding(embeddingRouter), values, maxRetries: 0 });
      assert.deepEqual(
        embeddings,
        values.map((value) => fakeEmbedding('text-embedding-3-small', value)),
      );
      assert.equal(usage.tokens, 12);
      assert.deepEqual(recorder.paths(), ['/api/router/v1/embeddings']);
      assert.deepEqual((fakes.openai.embeddingRequests()[0]?.body as { input: unknown }).input, values);
    });
  });
});

/** A `streamText` result read to its end, as `generateText` gives it. */
async function collect<TOOLS extends ToolSet, OUTPUT extends Output.Output>(result: StreamTextResult<TOOLS, OUTPUT>) {
  let text = '';
  for await (const delta of result.textStream) text += delta;
  return { text, steps: await result.steps, totalUsage: await result.totalUsage };
}
