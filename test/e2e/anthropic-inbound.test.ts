import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Anthropic, {
  APIError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  ServiceUnavailableError,
} from '@anthropic-ai/sdk';
import type { MessageParam, MessageStreamEvent, Tool } from '@anthropic-ai/sdk/resources/messages';
import { startFakeAnthropic, type FakeAnthropic } from '../support/fake-anthropic.js';
import { openAIErrors, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { usageRecordOf } from '../support/usage-records.js';

interface Meta {
  readonly modelUsed: string;
  readonly cost: number;
  readonly routerId: string;
  readonly requestId: string;
  readonly provider: string;
  readonly timeToFirstTokenMs?: number;
}

const metaOf = (value: unknown): Meta => (value as { _meta?: Meta })._meta ?? assert.fail('the object carries _meta');

const WEATHER: Tool = {
  name: 'get_weather',
  description: 'Current weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** gpt-4o-mini list prices, USD per million tokens (src/catalog/data/models.json). */
const miniCost = (prompt: number, cached: number, completion: number) => ((prompt - cached) * 0.15 + cached * 0.075 + completion * 0.6) / 1_000_000;

describe('Anthropic Messages format: @anthropic-ai/sdk → gateway → routed model', () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let gateway: Gateway;
  /** Routers of the seeded owner: sim models (the seeded one), an OpenAI model, an Anthropic model. */
  let routers: { sim: string; openai: string; anthropic: string; foreign: string };
  let client: Anthropic;
  const sdk = (baseURL = gateway.baseUrl, apiKey = gateway.apiKey) => new Anthropic({ apiKey, baseURL, maxRetries: 0 });

  const usageRecord = (id: string) => usageRecordOf(gateway, id);

  before(async () => {
    openai = await startFakeOpenAI({ apiKey: 'sk-test' });
    anthropic = await startFakeAnthropic({ apiKey: 'sk-ant-test' });
    gateway = await startGateway({
      env: {
        OPENAI_BASE_URL: openai.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        ANTHROPIC_BASE_URL: anthropic.baseUrl,
        ANTHROPIC_API_KEY: 'sk-ant-test',
        MODELPORT_DEFAULT_RPM: '100000',
      },
    });
    const create = async (name: string, models: string[], ownerEmail = gateway.ownerEmail) =>
      (await gateway.admin.createRouter({ ownerEmail, name, models, strategy: 'cost_optimized' })).id;
    await gateway.admin.createUser('someone-else@example.com', 'another horse battery');
    routers = {
      sim: gateway.router.id,
      openai: await create('openai router', ['openai:gpt-4o-mini']),
      anthropic: await create('anthropic router', ['anthropic:claude-3-5-haiku-latest']),
      foreign: await create('not yours', ['sim:small'], 'someone-else@example.com'),
    };
    client = sdk();
  });
  after(async () => {
    await gateway.close();
    await openai.close();
    await anthropic.close();
  });
  beforeEach(() => {
    openai.reset();
    anthropic.reset();
  });

  describe('non-stream', () => {
    it('sim: a text answer in Anthropic shape, _meta, request-id, usage record', async () => {
      const { data: message, response } = await client.messages
        .create({ model: routers.sim, max_tokens: 200, messages: [{ role: 'user', content: 'Hello there' }] })
        .withResponse();
      assert.match(message.id, /^msg_/);
      assert.equal(message.type, 'message');
      assert.equal(message.role, 'assistant');
      assert.equal(message.model, 'sim:small');
      assert.equal(message.content.length, 1);
      const block = message.content[0];
      assert.ok(block?.type === 'text');
      assert.match(block.text, /You said: "Hello there"/);
      assert.equal(message.stop_reason, 'end_turn');
      assert.equal(message.stop_sequence, null);
      assert.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 0);
      const meta = metaOf(message);
      assert.equal(meta.modelUsed, 'sim:small');
      assert.equal(meta.routerId, routers.sim);
      assert.equal(response.headers.get('x-modelport-model'), 'sim:small');
      assert.equal(response.headers.get('request-id'), meta.requestId, "Anthropic's request id header, which the SDK reads");

      const record = await usageRecord(meta.requestId);
      assert.equal(record.status, 200);
      assert.equal(record.model, 'sim:small');
      assert.equal(record.router_id, routers.sim);
      assert.equal(record.streamed, 0);
      assert.equal(record.prompt_tokens, message.usage.input_tokens);
      assert.equal(record.completion_tokens, message.usage.output_tokens);
      assert.equal(record.cost_usd, meta.cost);
    });

    it('OpenAI upstream: system, multi-turn and parameters arrive in OpenAI shape; cached tokens as cache_read_input_tokens', async () => {
      openai.enqueue({ type: 'answer', content: 'Paris.', usage: { prompt_tokens: 1_000, completion_tokens: 20, cached_tokens: 400 } });
      const message = await client.messages.create({
        model: routers.openai,
        max_tokens: 64,
        system: [{ type: 'text', text: 'Answer in one word.', cache_control: { type: 'ephemeral' } }],
        // Sampling parameters the API takes but this SDK version no longer types.
        ...{ temperature: 0.2, top_p: 0.9, top_k: 40 },
        stop_sequences: ['END'],
        metadata: { user_id: 'user-42' },
        messages: [
          { role: 'user', content: 'Capital of Italy?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Rome.' }] },
          { role: 'user', content: [{ type: 'text', text: 'And of France?' }] },
        ],
      });
      assert.equal(message.model, 'openai:gpt-4o-mini');
      assert.deepEqual(message.content, [{ type: 'text', text: 'Paris.' }]);
      assert.deepEqual(message.usage, { input_tokens: 600, output_tokens: 20, cache_read_input_tokens: 400, cache_creation_input_tokens: 0 });
      const meta = metaOf(message);
      assert.ok(Math.abs(meta.cost - miniCost(1_000, 400, 20)) < 1e-12);

      const upstream = openai.chatRequests()[0]?.body as Record<string, unknown>;
      assert.deepEqual(upstream.messages, [
        { role: 'system', content: 'Answer in one word.' },
        { role: 'user', content: 'Capital of Italy?' },
        { role: 'assistant', content: 'Rome.' },
        { role: 'user', content: [{ type: 'text', text: 'And of France?' }] },
      ]);
      assert.equal(upstream.model, 'gpt-4o-mini');
      assert.equal(upstream.max_tokens, 64);
      assert.equal(upstream.temperature, 0.2);
      assert.equal(upstream.top_p, 0.9);
      assert.deepEqual(upstream.stop, ['END']);
      assert.equal(upstream.user, 'user-42');
      assert.equal('top_k' in upstream, false, 'OpenAI has no top_k');
      assert.equal(JSON.stringify(upstream).includes('cache_control'), false);
    });

    it('OpenAI upstream: a tool round trip (tool_use, then tool_result), images as data: URLs', async () => {
      openai.enqueue({ type: 'answer', toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' }] });
      const ask: MessageParam = {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather where this photo was taken?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      };
      const first = await client.messages.create({
        model: routers.openai,
        max_tokens: 100,
        tools: [WEATHER],
        tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
        messages: [ask],
      });
      assert.equal(first.stop_reason, 'tool_use');
      assert.deepEqual(first.content, [{ type: 'tool_use', id: 'call_abc', name: 'get_weather', input: { city: 'Paris' } }]);
      const firstUpstream = openai.chatRequests()[0]?.body as Record<string, unknown>;
      assert.deepEqual(firstUpstream.tools, [
        { type: 'function', function: { name: 'get_weather', description: 'Current weather of a city', parameters: WEATHER.input_schema } },
      ]);
      assert.deepEqual(firstUpstream.tool_choice, { type: 'function', function: { name: 'get_weather' } });
      assert.equal(firstUpstream.parallel_tool_calls, false);
      assert.deepEqual((firstUpstream.messages as unknown[])[0], {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather where this photo was taken?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      });

      openai.enqueue({ type: 'answer', content: 'Sunny, 24 °C in Paris.' });
      const second = await client.messages.create({
        model: routers.openai,
        max_tokens: 100,
        tools: [WEATHER],
        messages: [
          ask,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_abc', content: [{ type: 'text', text: '{"temp_c":24,"sky":"sunny"}' }] }] },
        ],
      });
      assert.equal(second.stop_reason, 'end_turn');
      assert.deepEqual(second.content, [{ type: 'text', text: 'Sunny, 24 °C in Paris.' }]);
      const messages = (openai.chatRequests()[1]?.body as { messages: unknown[] }).messages;
      assert.deepEqual(messages.slice(1), [
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_abc', content: '{"temp_c":24,"sky":"sunny"}' },
      ]);
    });

    it('stop reasons: length → max_tokens, content_filter → refusal', async () => {
      openai.enqueue({ type: 'answer', content: 'Cut sho', finishReason: 'length' });
      const cut = await client.messages.create({ model: routers.openai, max_tokens: 3, messages: [{ role: 'user', content: 'Long story' }] });
      assert.equal(cut.stop_reason, 'max_tokens');
      openai.enqueue({ type: 'answer', content: null, refusal: "I can't help with that.", finishReason: 'content_filter' });
      const refused = await client.messages.create({ model: routers.openai, max_tokens: 50, messages: [{ role: 'user', content: 'Something bad' }] });
      assert.equal(refused.stop_reason, 'refusal');
      assert.deepEqual(refused.content, [{ type: 'text', text: "I can't help with that." }]);
    });

    it('Anthropic upstream: the round trip through both formats keeps system, tool ids and cache reads', async () => {
      anthropic.enqueue({
        type: 'answer',
        content: [{ type: 'tool_use', id: 'toolu_01XYZ', name: 'get_weather', input: { city: 'Oslo' } }],
        usage: { input_tokens: 300, output_tokens: 25, cache_read_input_tokens: 700 },
      });
      const first = await client.messages.create({
        model: routers.anthropic,
        max_tokens: 256,
        system: 'You are a weather bot.',
        tools: [WEATHER],
        messages: [{ role: 'user', content: 'Weather in Oslo?' }],
      });
      assert.equal(first.model, 'anthropic:claude-3-5-haiku-latest');
      assert.equal(first.stop_reason, 'tool_use');
      assert.deepEqual(first.content, [{ type: 'tool_use', id: 'toolu_01XYZ', name: 'get_weather', input: { city: 'Oslo' } }]);
      assert.deepEqual(first.usage, { input_tokens: 300, output_tokens: 25, cache_read_input_tokens: 700, cache_creation_input_tokens: 0 });
      const upstream = anthropic.messageRequests()[0]?.body as Record<string, unknown>;
      assert.equal(upstream.model, 'claude-3-5-haiku-latest');
      assert.equal(upstream.system, 'You are a weather bot.');
      assert.equal(upstream.max_tokens, 256);
      assert.deepEqual(upstream.tools, [{ name: 'get_weather', description: 'Current weather of a city', input_schema: WEATHER.input_schema }]);

      anthropic.enqueue({ type: 'answer', content: [{ type: 'text', text: 'Cold and clear.' }] });
      const second = await client.messages.create({
        model: routers.anthropic,
        max_tokens: 256,
        tools: [WEATHER],
        messages: [
          { role: 'user', content: 'Weather in Oslo?' },
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01XYZ', content: '-3 °C, clear', is_error: false }] },
        ],
      });
      assert.deepEqual(second.content, [{ type: 'text', text: 'Cold and clear.' }]);
      const turns = (anthropic.messageRequests()[1]?.body as { messages: unknown[] }).messages;
      assert.deepEqual(turns.slice(1), [
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01XYZ', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01XYZ', content: '-3 °C, clear' }] },
      ]);
    });

    it('router in the path wins over model; base URL with /v1 works too; Authorization: Bearer is accepted', async () => {
      const inPath = await sdk(`${gateway.baseUrl}/${routers.sim}`).messages.create({ model: 'ignored-when-the-path-names-a-router', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] });
      assert.equal(inPath.model, 'sim:small');
      assert.equal(metaOf(inPath).routerId, routers.sim);
      const v1 = await sdk(`${gateway.baseUrl}/v1`).messages.create({ model: routers.sim, max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] });
      assert.equal(v1.model, 'sim:small');
      const bearer = new Anthropic({ authToken: gateway.apiKey, apiKey: null, baseURL: gateway.baseUrl, maxRetries: 0 });
      const viaBearer = await bearer.messages.create({ model: routers.sim, max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] });
      assert.equal(viaBearer.type, 'message');
    });
  });

  describe('stream', () => {
    it('sim: client.messages.stream() text deltas, finalMessage(), _meta on message_delta, usage record', async () => {
      const stream = client.messages.stream({ model: routers.sim, max_tokens: 200, messages: [{ role: 'user', content: 'Stream please' }] });
      const events: MessageStreamEvent[] = [];
      let text = '';
      stream.on('text', (delta) => (text += delta));
      for await (const event of stream) events.push(event);
      const final = await stream.finalMessage();

      assert.deepEqual(
        [...new Set(events.map((event) => event.type))],
        ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'],
      );
      assert.equal(final.model, 'sim:small');
      assert.equal(final.content.length, 1);
      assert.ok(final.content[0]?.type === 'text');
      assert.equal(final.content[0].text, text);
      assert.match(text, /You said: "Stream please"/);
      assert.equal(final.stop_reason, 'end_turn');
      assert.ok(final.usage.output_tokens > 0);
      const delta = events.find((event) => event.type === 'message_delta');
      const meta = metaOf(delta);
      assert.equal(meta.modelUsed, 'sim:small');
      assert.equal(typeof meta.timeToFirstTokenMs, 'number');
      assert.equal(events.filter((event) => '_meta' in event).length, 1, '_meta only on message_delta');

      const record = await usageRecord(meta.requestId);
      assert.equal(record.status, 200);
      assert.equal(record.streamed, 1);
      assert.equal(record.router_id, routers.sim);
      assert.equal(record.completion_tokens, final.usage.output_tokens);
      assert.equal(record.prompt_tokens, final.usage.input_tokens, 'message_delta carries the real prompt count');
    });

    it('OpenAI upstream: text then tool input as input_json_delta, block indexes in order, stop_reason tool_use', async () => {
      openai.enqueue({
        type: 'answer',
        content: 'Let me check.',
        toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Lima"}' }],
        argumentsPieceLength: 4,
        usage: { prompt_tokens: 50, completion_tokens: 15 },
      });
      const stream = client.messages.stream({ model: routers.openai, max_tokens: 100, tools: [WEATHER], messages: [{ role: 'user', content: 'Weather in Lima?' }] });
      const jsonPieces: string[] = [];
      stream.on('inputJson', (piece) => void jsonPieces.push(piece));
      const events: MessageStreamEvent[] = [];
      for await (const event of stream) events.push(event);
      const final = await stream.finalMessage();

      assert.deepEqual(final.content, [
        { type: 'text', text: 'Let me check.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Lima' } },
      ]);
      assert.equal(final.stop_reason, 'tool_use');
      assert.deepEqual(final.usage, { input_tokens: 50, output_tokens: 15, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      assert.ok(jsonPieces.length > 1, 'the input arrives in pieces');
      assert.equal(jsonPieces.join(''), '{"city":"Lima"}');
      const starts = events.filter((event) => event.type === 'content_block_start').map((event) => event.index);
      const stops = events.filter((event) => event.type === 'content_block_stop').map((event) => event.index);
      assert.deepEqual(starts, [0, 1]);
      assert.deepEqual(stops, [0, 1]);
    });

    it('Anthropic upstream: streamed text reaches the SDK unchanged', async () => {
      anthropic.enqueue({ type: 'answer', content: [{ type: 'text', text: 'Streaming — ünïcödé 🎉 works.' }], usage: { input_tokens: 12, output_tokens: 9 } });
      const final = await client.messages
        .stream({ model: routers.anthropic, max_tokens: 100, messages: [{ role: 'user', content: 'Go' }] })
        .finalMessage();
      assert.deepEqual(final.content, [{ type: 'text', text: 'Streaming — ünïcödé 🎉 works.' }]);
      assert.equal(final.model, 'anthropic:claude-3-5-haiku-latest');
      assert.equal(final.stop_reason, 'end_turn');
      assert.deepEqual(final.usage, { input_tokens: 12, output_tokens: 9, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 });
      assert.equal((anthropic.messageRequests()[0]?.body as { stream?: unknown }).stream, true);
    });

    it('a stream that breaks after it started ends with an Anthropic error event', async () => {
      openai.enqueue({ type: 'answer', content: 'one two three four five six', transport: { resetAfterEvents: 3 } });
      const stream = client.messages.stream({ model: routers.openai, max_tokens: 100, messages: [{ role: 'user', content: 'Go' }] });
      const error = await stream.finalMessage().then(
        () => assert.fail('the stream should fail'),
        (caught: unknown) => caught,
      );
      assert.ok(error instanceof APIError, String(error));
      assert.equal(error.type, 'api_error');
      assert.equal(error.errorCode, 'upstream_stream_error');
    });
  });

  describe('errors in Anthropic shape, as the SDK types them', () => {
    const rejection = async (promise: Promise<unknown>): Promise<unknown> =>
      promise.then(
        () => assert.fail('the request should fail'),
        (error: unknown) => error,
      );
    const hello: MessageParam[] = [{ role: 'user', content: 'Hi' }];

    it('401 AuthenticationError for a bad key', async () => {
      const error = await rejection(sdk(gateway.baseUrl, `mp_${'x'.repeat(40)}`).messages.create({ model: routers.sim, max_tokens: 10, messages: hello }));
      assert.ok(error instanceof AuthenticationError, String(error));
      assert.equal(error.type, 'authentication_error');
      assert.equal(error.errorCode, 'invalid_api_key');
      assert.deepEqual(Object.keys(error.error as object), ['type', 'error', 'request_id']);
      assert.match(error.requestID ?? '', /^req_/);
    });

    it('404 NotFoundError for an unknown router, and a usage record of the failure', async () => {
      const error = await rejection(client.messages.create({ model: 'rt_doesNotExist0000000000', max_tokens: 10, messages: hello }));
      assert.ok(error instanceof NotFoundError, String(error));
      assert.equal(error.type, 'not_found_error');
      assert.equal(error.errorCode, 'router_not_found');
      const record = await usageRecord(error.requestID ?? '');
      assert.equal(record.status, 404);
      assert.equal(record.error_code, 'router_not_found');
    });

    it('400 BadRequestError for a missing max_tokens or a bad block', async () => {
      const missing = await rejection(client.messages.create({ model: routers.sim, messages: hello } as unknown as Anthropic.MessageCreateParamsNonStreaming));
      assert.ok(missing instanceof BadRequestError, String(missing));
      assert.equal(missing.type, 'invalid_request_error');
      assert.equal(missing.errorCode, 'missing_required_parameter');
      assert.match(missing.apiMessage ?? '', /max_tokens/);
      const badBlock = await rejection(
        client.messages.create({ model: routers.sim, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text' } as unknown as Anthropic.TextBlockParam] }] }),
      );
      assert.ok(badBlock instanceof BadRequestError);
      assert.match(badBlock.apiMessage ?? '', /messages\[0\]\.content\[0\]\.text/);
    });

    it("403 PermissionDeniedError for another owner's router", async () => {
      const error = await rejection(client.messages.create({ model: routers.foreign, max_tokens: 10, messages: hello }));
      assert.ok(error instanceof PermissionDeniedError, String(error));
      assert.equal(error.type, 'permission_error');
      assert.equal(error.errorCode, 'router_access_denied');
    });

    it('429 RateLimitError with Retry-After once the key used its requests', async () => {
      const { value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'one a minute', rpmLimit: 1 });
      const limited = sdk(gateway.baseUrl, value);
      await limited.messages.create({ model: routers.sim, max_tokens: 10, messages: hello });
      const error = await rejection(limited.messages.create({ model: routers.sim, max_tokens: 10, messages: hello }));
      assert.ok(error instanceof RateLimitError, String(error));
      assert.equal(error.type, 'rate_limit_error');
      assert.equal(error.errorCode, 'rate_limit_exceeded');
      assert.ok(Number(error.headers.get('retry-after')) >= 1);
    });

    it('503 ServiceUnavailableError (overloaded_error) when every model failed', async () => {
      openai.setHandler(() => openAIErrors.serverError());
      const error = await rejection(client.messages.create({ model: routers.openai, max_tokens: 10, messages: hello }));
      assert.ok(error instanceof ServiceUnavailableError, String(error));
      assert.equal(error.type, 'overloaded_error');
      assert.equal(error.errorCode, 'all_models_unavailable');
      assert.equal(error.headers.get('retry-after'), '1');
    });

    it('the chat-completions API keeps OpenAI-shaped errors and the Bearer header only', async () => {
      const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'x-api-key': gateway.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ model: routers.sim, messages: hello }),
      });
      assert.equal(response.status, 401);
      const body = (await response.json()) as { error: { type: string; code: string } };
      assert.equal(body.error.type, 'authentication_error');
      assert.equal(body.error.code, 'invalid_api_key');
    });
  });
});
