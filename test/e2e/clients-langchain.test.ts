import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type UsageMetadata } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { z } from 'zod';
import { fakeEmbedding } from '../support/fake-embedding-vectors.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { createRecordingFetch, type RecordingFetch } from '../support/recording-fetch.js';
import { CHAT_UPSTREAM_MODELS, startChatFakes, type ChatFakes, type UpstreamName } from '../support/scripted-chat-upstreams.js';

/**
 * LangChain's `ChatOpenAI` with `useResponsesApi: true` (`invoke`, `stream`, a conversation passed back as history, a
 * bound tool's round trip) over routers whose model is an OpenAI, an Anthropic or a Gemini fake, and
 * `OpenAIEmbeddings` (`embedQuery`, `embedDocuments`) over an embedding router, all pointed at the gateway.
 */

const QUESTION = 'What is the weather in São Paulo?';
const PIECES = ['It is ', '21 °C', ' and sunny', ' in São Paulo.'] as const;
const ANSWER = PIECES.join('');
const USAGE = { input: 31, output: 9 } as const;
const ARGS = { city: 'São Paulo', unit: 'celsius' } as const;
const RESULT = { temperature: 21, condition: 'sunny' } as const;
const EMBEDDING_MODEL = 'openai:text-embedding-3-small';

/** The declared type, so that @langchain/core's inferred property type (never under this tsconfig) does not narrow it away. */
const usageOf = (message: { readonly usage_metadata?: UsageMetadata | undefined } | undefined): UsageMetadata | undefined => message?.usage_metadata;

/** float32 rounding: a vector that came as base64 is float32s. */
const asFloat32 = (vector: readonly number[]): number[] => [...new Float32Array(vector)];

describe('LangChain (@langchain/openai) → gateway /responses and /embeddings', () => {
  let fakes: ChatFakes;
  let gateway: Gateway;
  let recorder: RecordingFetch;
  let embeddingRouter: string;
  const routers = new Map<UpstreamName, string>();

  before(async () => {
    fakes = await startChatFakes();
    gateway = await startGateway({ env: { ...fakes.env, MODELPORT_DEFAULT_RPM: '100000' }, models: [EMBEDDING_MODEL] });
    embeddingRouter = gateway.router.id;
    for (const upstream of fakes.upstreams) {
      routers.set(upstream.name, (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: `${upstream.name} chat`, models: [upstream.modelId], strategy: 'cost_optimized' })).id);
    }
    recorder = createRecordingFetch();
  });
  after(async () => {
    await gateway.close();
    await fakes.close();
  });
  beforeEach(() => {
    fakes.reset();
    recorder.reset();
  });

  const configuration = () => ({ baseURL: `${gateway.baseUrl}/v1`, fetch: recorder.fetch });
  const chatFor = (name: UpstreamName) =>
    new ChatOpenAI({ model: routers.get(name) ?? assert.fail(`no router for ${name}`), apiKey: gateway.apiKey, configuration: configuration(), useResponsesApi: true, maxRetries: 0 });
  const responsesOnly = () => assert.deepEqual(recorder.paths(), recorder.sent.map(() => '/api/router/v1/responses'));

  for (const [name, modelId] of Object.entries(CHAT_UPSTREAM_MODELS) as [UpstreamName, string][]) {
    describe(`ChatOpenAI({ useResponsesApi: true }) over ${name} (${modelId})`, () => {
      it('invoke: the text, usage_metadata from the upstream, the response id and the model the router chose', async () => {
        fakes.upstream(name).answerText(PIECES, USAGE);
        const message = await chatFor(name).invoke([new HumanMessage(QUESTION)]);
        assert.equal(message.text, ANSWER);
        assert.deepEqual([usageOf(message)?.input_tokens, usageOf(message)?.output_tokens, usageOf(message)?.total_tokens], [USAGE.input, USAGE.output, USAGE.input + USAGE.output]);
        assert.match(String(message.response_metadata.id), /^resp_/);
        assert.equal(message.response_metadata.model_name, modelId);
        responsesOnly();
        assert.equal(recorder.sent.length, 1);
        assert.match(JSON.stringify(fakes.upstream(name).bodies()[0]), /What is the weather in São Paulo\?/);
      });

      it('stream: the chunks put together are the scripted text, in several chunks, and the usage arrives', async () => {
        fakes.upstream(name).answerText(PIECES, USAGE);
        const texts: string[] = [];
        let whole: AIMessageChunk | undefined;
        for await (const chunk of await chatFor(name).stream([new HumanMessage(QUESTION)])) {
          if (chunk.text !== '') texts.push(chunk.text);
          whole = whole === undefined ? chunk : whole.concat(chunk);
        }
        assert.equal(texts.join(''), ANSWER);
        assert.ok(texts.length > 1, `streamed in several chunks, got ${JSON.stringify(texts)}`);
        assert.equal(whole?.text, ANSWER);
        assert.deepEqual([usageOf(whole)?.input_tokens, usageOf(whole)?.output_tokens], [USAGE.input, USAGE.output]);
        responsesOnly();
        assert.equal(recorder.sent[0]?.body?.stream, true);
      });

      it('a conversation: the first answer passed back as history reaches the upstream as the assistant turn', async () => {
        const chat = chatFor(name);
        fakes.upstream(name).answerText(PIECES, USAGE);
        const first = await chat.invoke([new HumanMessage(QUESTION)]);
        fakes.upstream(name).answerText(['Take ', 'sunglasses.'], USAGE);
        const second = await chat.invoke([new HumanMessage(QUESTION), first, new HumanMessage('What should I take?')]);
        assert.equal(second.text, 'Take sunglasses.');
        responsesOnly();
        const history = JSON.stringify(fakes.upstream(name).bodies()[1]);
        assert.ok(history.indexOf('São Paulo?') < history.indexOf(ANSWER) && history.indexOf(ANSWER) < history.indexOf('What should I take?'), `the whole conversation in order: ${history}`);
      });

      it('bindTools: the call comes back as tool_calls; the ToolMessage with its result reaches the upstream', async () => {
        const callId = fakes.upstream(name).answerToolCall('get_weather', ARGS, USAGE);
        fakes.upstream(name).answerText(PIECES, USAGE);
        const getWeather = tool(async () => JSON.stringify(RESULT), {
          name: 'get_weather',
          description: 'The current weather in a city.',
          schema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
        });
        const chat = chatFor(name).bindTools([getWeather]);
        const question = new HumanMessage(QUESTION);
        const call: AIMessage = await chat.invoke([question]);
        const [toolCall] = call.tool_calls ?? [];
        assert.equal(toolCall?.name, 'get_weather');
        assert.deepEqual(toolCall?.args, ARGS);
        if (callId !== undefined) assert.equal(toolCall?.id, callId);
        const toolMessage: ToolMessage = await getWeather.invoke({ ...toolCall, type: 'tool_call' as const, id: toolCall?.id ?? '' });
        const answer = await chat.invoke([question, call, toolMessage]);
        assert.equal(answer.text, ANSWER);
        responsesOnly();
        const received = fakes.upstream(name).toolResults(fakes.upstream(name).bodies()[1] ?? assert.fail('no second upstream request'));
        assert.deepEqual(received, [{ call: callId ?? 'get_weather', content: RESULT }]);
      });
    });
  }

  describe('OpenAIEmbeddings (model: <embedding router id>)', () => {
    const embeddings = () => new OpenAIEmbeddings({ model: embeddingRouter, apiKey: gateway.apiKey, configuration: configuration(), maxRetries: 0 });

    it("embedQuery: the fake's vector (asked for as base64, so float32s)", async () => {
      const vector = await embeddings().embedQuery('sunny in São Paulo');
      assert.deepEqual(vector, asFloat32(fakeEmbedding('text-embedding-3-small', 'sunny in São Paulo')));
      assert.deepEqual(recorder.paths(), ['/api/router/v1/embeddings']);
      assert.deepEqual([recorder.sent[0]?.body?.model, recorder.sent[0]?.body?.encoding_format], [embeddingRouter, 'base64']);
      assert.deepEqual(fakes.openai.embeddingRequests().map((request) => (request.body as { input: unknown }).input), [['sunny in São Paulo']]);
    });

    it("embedDocuments: one vector per document, in order, equal to the fake's", async () => {
      const documents = ['rain in Lisbon', 'sun in São Paulo', 'snow in Oslo'];
      const vectors = await embeddings().embedDocuments(documents);
      assert.deepEqual(
        vectors,
        documents.map((document) => asFloat32(fakeEmbedding('text-embedding-3-small', document))),
      );
      assert.deepEqual(recorder.paths(), ['/api/router/v1/embeddings']);
      assert.deepEqual((fakes.openai.embeddingRequests()[0]?.body as { input: unknown }).input, documents);
    });
  });
});
