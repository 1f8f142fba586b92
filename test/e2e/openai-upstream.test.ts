import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI, { APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import {
  openAIErrors,
  requestedModel,
  startFakeOpenAI,
  unusedPort,
  type FakeBehaviour,
  type FakeOpenAI,
  type FakeUsage,
  type RecordedRequest,
} from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const FIRST_BYTE_TIMEOUT_MS = 250;

interface Meta {
  readonly modelUsed: string;
  readonly cost: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  readonly routerDecision: string;
  readonly routerId: string;
  readonly requestId: string;
  readonly provider: string;
  readonly usageEstimated: boolean;
  readonly attempts: readonly { model: string; outcome: string; reason?: string; status?: number; latencyMs: number }[];
}

function metaOf(value: unknown): Meta {
  const meta = (value as { _meta?: Meta })._meta;
  assert.ok(meta !== undefined, 'the object carries _meta');
  return meta;
}

/** gpt-4o-mini list prices, USD per million tokens (src/catalog/data/models.json). */
const MINI = { input: 0.15, cachedInput: 0.075, output: 0.6 };

function miniCost(usage: FakeUsage): number {
  const cached = usage.cached_tokens ?? 0;
  return ((usage.prompt_tokens - cached) * MINI.input + cached * MINI.cachedInput + usage.completion_tokens * MINI.output) / 1_000_000;
}

function assertCost(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `cost ${actual} != ${expected}`);
}

interface SseEvent {
  readonly data: string;
  readonly json: Record<string, unknown> | undefined;
}

/** Splits a raw SSE body into its `data:` events, checking OpenAI's framing on the way. */
function parseSse(text: string): SseEvent[] {
  assert.ok(text.endsWith('\n\n'), 'the body ends with a blank line');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      assert.match(block, /^data: /, `event framed as "data: …": ${block.slice(0, 80)}`);
      assert.equal(block.includes('\n'), false, 'one line per event');
      const data = block.slice('data: '.length);
      return { data, json: data === '[DONE]' ? undefined : (JSON.parse(data) as Record<string, unknown>) };
    });
}

function choicesOf(event: SseEvent): { delta?: Record<string, unknown>; finish_reason?: string | null }[] {
  return (event.json?.choices ?? []) as { delta?: Record<string, unknown>; finish_reason?: string | null }[];
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 2_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function failingFor(model: string, behaviour: () => FakeBehaviour) {
  return (request: RecordedRequest): FakeBehaviour | undefined => (requestedModel(request) === model ? behaviour() : undefined);
}

describe('OpenAI wire path end to end: openai SDK → gateway → fake api.openai.com', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  let client: OpenAI;

  const usageRecord = (id: string) =>
    waitFor(`the usage record of ${id}`, async () => {
      await gateway.app.usage.flush();
      return (await gateway.app.repositories.usage.list()).find((record) => record.id === id);
    });

  const postChat = (path: string, body: unknown, init: { signal?: AbortSignal } = {}) =>
    fetch(`${gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      ...init,
    });

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test' });
    gateway = await startGateway({
      env: {
        OPENAI_BASE_URL: fake.baseUrl,
        OPENAI_API_KEY: 'sk-test',
        MODELPORT_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS),
        MODELPORT_DEFAULT_RPM: '100000',
      },
      models: ['openai:gpt-4o-mini', 'openai:gpt-4o'],
      strategy: 'cost_optimized',
    });
    client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl, maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  describe('answers', () => {
    for (const suffix of ['', '/v1']) {
      it(`non-stream at base${suffix}: the real model upstream, the server's key, _meta and cost`, async () => {
        const usage = { prompt_tokens: 1_200, completion_tokens: 300, cached_tokens: 200 };
        fake.enqueue({ type: 'answer', content: 'Hello from gpt-4o-mini.', usage });
        const sdk = new OpenAI({ apiKey: gateway.apiKey, baseURL: `${gateway.baseUrl}${suffix}`, maxRetries: 0 });
        const { data: completion, response } = await sdk.chat.completions
          .create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }] })
          .withResponse();

        assert.equal(completion.object, 'chat.completion');
        assert.equal(completion.model, 'openai:gpt-4o-mini');
        assert.equal(completion.choices[0]?.message.content, 'Hello from gpt-4o-mini.');
        assert.equal(completion.choices[0]?.finish_reason, 'stop');
        assert.deepEqual(completion.usage, {
          prompt_tokens: 1_200,
          completion_tokens: 300,
          total_tokens: 1_500,
          prompt_tokens_details: { cached_tokens: 200 },
        });
        const meta = metaOf(completion);
        assert.equal(meta.modelUsed, 'openai:gpt-4o-mini');
        assert.equal(meta.provider, 'openai');
        assert.equal(meta.routerDecision, 'cost_optimized');
        assert.equal(meta.routerId, gateway.router.id);
        assert.equal(meta.usageEstimated, false);
        assertCost(meta.cost, miniCost(usage));
        assertCost(meta.cost, 0.000345);
        assert.deepEqual(meta.attempts.map(({ model, outcome }) => ({ model, outcome })), [{ model: 'openai:gpt-4o-mini', outcome: 'ok' }]);
        assert.equal(response.headers.get('x-modelport-model'), 'openai:gpt-4o-mini');

        const upstream = fake.chatRequests()[0] ?? assert.fail('no upstream call');
        assert.equal(fake.chatRequests().length, 1);
        assert.equal(requestedModel(upstream), 'gpt-4o-mini');
        assert.equal(upstream.headers.authorization, 'Bearer sk-test');
        assert.equal(JSON.stringify(upstream.headers).includes(gateway.apiKey), false, "the client's key never goes upstream");
        assert.equal(upstream.rawBody.includes(gateway.router.id), false, 'the router id never goes upstream');
        assert.equal((upstream.body as { stream?: unknown }).stream, false);

        const record = await usageRecord(meta.requestId);
        assert.equal(record.status, 200);
        assert.equal(record.model, 'openai:gpt-4o-mini');
        assert.equal(record.router_id, gateway.router.id);
        assert.equal(record.streamed, 0);
        assert.equal(record.prompt_tokens, 1_200);
        assert.equal(record.completion_tokens, 300);
        assert.equal(record.total_tokens, 1_500);
        assertCost(record.cost_usd, miniCost(usage));
        assert.equal(record.attempts, 1);
      });

      it(`stream at base${suffix}: chunks through the SDK, _meta on the last chunk, usage recorded`, async () => {
        const usage = { prompt_tokens: 40, completion_tokens: 12, cached_tokens: 0, reasoning_tokens: 0 };
        fake.enqueue({ type: 'answer', content: 'Streaming — ünïcödé 🎉 works.', usage });
        const sdk = new OpenAI({ apiKey: gateway.apiKey, baseURL: `${gateway.baseUrl}${suffix}`, maxRetries: 0 });
        const stream = await sdk.chat.completions.create({
          model: gateway.router.id,
          messages: [{ role: 'user', content: 'Stream please' }],
          stream: true,
        });
        const chunks: ChatCompletionChunk[] = [];
        for await (const chunk of stream) chunks.push(chunk);
        assert.equal(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''), 'Streaming — ünïcödé 🎉 works.');
        for (const chunk of chunks) {
          assert.equal(chunk.object, 'chat.completion.chunk');
          assert.equal(chunk.model, 'openai:gpt-4o-mini');
        }
        const last = chunks.at(-1);
        assert.equal(last?.choices[0]?.finish_reason, 'stop');
        const meta = metaOf(last);
        assert.equal(meta.modelUsed, 'openai:gpt-4o-mini');
        assertCost(meta.cost, miniCost(usage));
        assert.equal(chunks.slice(0, -1).some((chunk) => '_meta' in chunk), false, '_meta only on the last chunk');

        const upstream = fake.chatRequests()[0] ?? assert.fail('no upstream call');
        assert.equal(requestedModel(upstream), 'gpt-4o-mini');
        assert.deepEqual((upstream.body as { stream_options?: unknown }).stream_options, { include_usage: true }, 'usage is asked for even when the client did not');
        assert.equal(upstream.headers.authorization, 'Bearer sk-test');

        const record = await usageRecord(meta.requestId);
        assert.equal(record.status, 200);
        assert.equal(record.streamed, 1);
        assert.equal(record.prompt_tokens, 40);
        assert.equal(record.completion_tokens, 12);
        assertCost(record.cost_usd, miniCost(usage));
      });
    }

    for (const prefix of ['', '/v1']) {
      it(`router id in the path${prefix ? ' after /v1' : ''}: the path wins over the body's model`, async () => {
        fake.enqueue({ type: 'answer', content: 'path form' }, { type: 'answer', content: 'path form, no model' });
        const response = await postChat(`${prefix}/${gateway.router.id}/chat/completions`, {
          model: 'rt_this_router_does_not_exist',
          messages: [{ role: 'user', content: 'Hi' }],
        });
        assert.equal(response.status, 200, await response.clone().text());
        const body = (await response.json()) as { model: string; choices: { message: { content: string } }[] };
        assert.equal(body.model, 'openai:gpt-4o-mini');
        assert.equal(body.choices[0]?.message.content, 'path form');
        assert.equal(metaOf(body).routerId, gateway.router.id);

        const withoutModel = await postChat(`${prefix}/${gateway.router.id}/chat/completions`, { messages: [{ role: 'user', content: 'Hi' }] });
        assert.equal(withoutModel.status, 200);
        assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini', 'gpt-4o-mini']);
      });
    }

    it('passes OpenAI parameters the gateway does not interpret through unchanged', async () => {
      fake.enqueue({ type: 'answer', content: '{"ok":true}' });
      const tools = [
        {
          type: 'function' as const,
          function: {
            name: 'get_weather',
            description: 'Weather for a city',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
            strict: true,
          },
        },
      ];
      const messages = [
        { role: 'system' as const, content: 'Answer in JSON.' },
        { role: 'user' as const, content: 'Weather in Paris?' },
      ];
      await client.chat.completions.create({
        model: gateway.router.id,
        messages,
        temperature: 0.3,
        max_tokens: 64,
        top_p: 0.5,
        stop: ['END', '\n\n'],
        seed: 42,
        response_format: { type: 'json_object' },
        user: 'user-1234',
        tools,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
        presence_penalty: 0.1,
        logit_bias: { '50256': -100 },
      });
      assert.deepEqual(fake.chatRequests()[0]?.body, {
        messages,
        temperature: 0.3,
        max_tokens: 64,
        top_p: 0.5,
        stop: ['END', '\n\n'],
        seed: 42,
        response_format: { type: 'json_object' },
        user: 'user-1234',
        tools,
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        parallel_tool_calls: false,
        presence_penalty: 0.1,
        logit_bias: { '50256': -100 },
        model: 'gpt-4o-mini',
        stream: false,
      });
    });

    it('returns tool calls of a complete answer', async () => {
      fake.enqueue({
        type: 'answer',
        toolCalls: [
          { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { id: 'call_tokyo', name: 'get_weather', arguments: '{"city":"東京"}' },
        ],
      });
      const completion = await client.chat.completions.create({
        model: gateway.router.id,
        messages: [{ role: 'user', content: 'Weather in Paris and Tokyo?' }],
        tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      });
      assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
      assert.equal(completion.choices[0]?.message.content, null);
      assert.deepEqual(completion.choices[0]?.message.tool_calls, [
        { id: 'call_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_tokyo', type: 'function', function: { name: 'get_weather', arguments: '{"city":"東京"}' } },
      ]);
    });

    for (const roleChunk of ['merged', 'separate'] as const) {
      it(`streams tool calls the SDK's stream helper puts back together (role chunk ${roleChunk})`, async () => {
        const first = '{"city":"Paris","note":"a \\"quoted\\" value 🌧"}';
        const second = '{"city":"東京","unit":"celsius"}';
        fake.enqueue({
          type: 'answer',
          roleChunk,
          argumentsPieceLength: 3,
          toolCalls: [
            { id: 'call_one', name: 'get_weather', arguments: first },
            { id: 'call_two', name: 'get_weather', arguments: second },
          ],
          transport: { writeSizes: [5, 1, 17, 2] },
        });
        const done: { name: string; arguments: string }[] = [];
        const runner = client.chat.completions
          .stream({
            model: gateway.router.id,
            messages: [{ role: 'user', content: 'Weather?' }],
            tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
            stream_options: { include_usage: true },
          })
          .on('tool_calls.function.arguments.done', (event) => done.push({ name: event.name, arguments: event.arguments }));
        const completion = await runner.finalChatCompletion();
        assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
        assert.deepEqual(
          completion.choices[0]?.message.tool_calls?.map((call) => (call.type === 'function' ? { id: call.id, type: call.type, function: { name: call.function.name, arguments: call.function.arguments } } : call)),
          [
            { id: 'call_one', type: 'function', function: { name: 'get_weather', arguments: first } },
            { id: 'call_two', type: 'function', function: { name: 'get_weather', arguments: second } },
          ],
        );
        assert.deepEqual(done, [
          { name: 'get_weather', arguments: first },
          { name: 'get_weather', arguments: second },
        ]);
        assert.equal(completion.model, 'openai:gpt-4o-mini');
        assert.ok((completion.usage?.total_tokens ?? 0) > 0);
      });
    }

    for (const finishReason of ['length', 'content_filter'] as const) {
      it(`keeps finish_reason "${finishReason}", complete and streamed`, async () => {
        fake.enqueue({ type: 'answer', content: 'Cut', finishReason }, { type: 'answer', content: 'Cut', finishReason });
        const completion = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], max_tokens: 1 });
        assert.equal(completion.choices[0]?.finish_reason, finishReason);
        const stream = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true });
        const reasons: (string | null | undefined)[] = [];
        for await (const chunk of stream) reasons.push(chunk.choices[0]?.finish_reason);
        assert.deepEqual(reasons.filter((reason) => reason !== null && reason !== undefined), [finishReason]);
      });
    }
  });

  describe('raw SSE', () => {
    const usage = { prompt_tokens: 21, completion_tokens: 7, cached_tokens: 5 };

    it('with include_usage: role, deltas, finish, then the usage chunk carrying _meta, then [DONE]', async () => {
      fake.enqueue({ type: 'answer', content: 'One two three', usage });
      const response = await postChat('/chat/completions', {
        model: gateway.router.id,
        messages: [{ role: 'user', content: 'Count' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      const events = parseSse(await response.text());

      assert.equal(events.at(-1)?.data, '[DONE]');
      const chunks = events.slice(0, -1);
      assert.deepEqual(choicesOf(chunks[0] ?? assert.fail('no chunk'))[0]?.delta, { role: 'assistant', content: '', refusal: null });
      const usageChunk = chunks.at(-1) ?? assert.fail('no usage chunk');
      const finishChunk = chunks.at(-2) ?? assert.fail('no finish chunk');
      assert.deepEqual(usageChunk.json?.choices, []);
      assert.deepEqual(usageChunk.json?.usage, { prompt_tokens: 21, completion_tokens: 7, total_tokens: 28, prompt_tokens_details: { cached_tokens: 5 } });
      assertCost(metaOf(usageChunk.json).cost, miniCost(usage));
      assert.equal(choicesOf(finishChunk)[0]?.finish_reason, 'stop');
      assert.equal('_meta' in (finishChunk.json ?? {}), false);
      assert.equal('usage' in (finishChunk.json ?? {}) && finishChunk.json?.usage !== null, false);
      const deltas = chunks.slice(1, -2);
      assert.equal(deltas.map((event) => choicesOf(event)[0]?.delta?.content).join(''), 'One two three');
      for (const event of chunks) {
        assert.equal(event.json?.object, 'chat.completion.chunk');
        assert.equal(event.json?.model, 'openai:gpt-4o-mini');
        assert.equal(event.json?.id, chunks[0]?.json?.id);
      }
      assert.equal(chunks.filter((event) => '_meta' in (event.json ?? {})).length, 1);
    });

    it('without include_usage: no usage chunk, _meta on the finish chunk right before [DONE]; the upstream was still asked for usage', async () => {
      fake.enqueue({ type: 'answer', content: 'One two three', usage });
      const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Count' }], stream: true });
      const events = parseSse(await response.text());
      assert.equal(events.at(-1)?.data, '[DONE]');
      const finishChunk = events.at(-2) ?? assert.fail('no finish chunk');
      assert.equal(choicesOf(finishChunk)[0]?.finish_reason, 'stop');
      const meta = metaOf(finishChunk.json);
      assertCost(meta.cost, miniCost(usage));
      assert.equal(meta.usageEstimated, false);
      assert.equal(events.some((event) => Array.isArray(event.json?.choices) && choicesOf(event).length === 0), false, 'no usage chunk');
      assert.equal(events.filter((event) => '_meta' in (event.json ?? {})).length, 1);
      assert.deepEqual((fake.chatRequests()[0]?.body as { stream_options?: unknown }).stream_options, { include_usage: true });
    });
  });

  describe('fallback', () => {
    const cases: { name: string; failure: () => FakeBehaviour; status?: number }[] = [
      { name: 'answers 500', failure: openAIErrors.serverError, status: 500 },
      { name: 'answers 503', failure: openAIErrors.overloaded, status: 503 },
      { name: 'answers 429', failure: () => openAIErrors.rateLimited(1), status: 429 },
      { name: 'answers 404 model_not_found', failure: () => openAIErrors.modelNotFound('gpt-4o-mini'), status: 404 },
      { name: 'hangs past the first-byte timeout', failure: () => ({ type: 'hang' }) },
      { name: 'closes the connection before answering', failure: () => ({ type: 'close-before-headers', reset: true }) },
    ];
    for (const { name, failure, status } of cases) {
      for (const stream of [false, true]) {
        it(`first model ${name} → the next model answers (${stream ? 'stream' : 'non-stream'})`, async () => {
          fake.setHandler(failingFor('gpt-4o-mini', failure));
          let meta: Meta;
          let content = '';
          let model: string;
          if (stream) {
            const chunks: ChatCompletionChunk[] = [];
            for await (const chunk of await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true })) {
              chunks.push(chunk);
            }
            content = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
            model = chunks[0]?.model ?? '';
            meta = metaOf(chunks.at(-1));
          } else {
            const completion = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }] });
            content = completion.choices[0]?.message.content ?? '';
            model = completion.model;
            meta = metaOf(completion);
          }
          assert.equal(content, 'Hello! How can I help you today?');
          assert.equal(model, 'openai:gpt-4o');
          assert.equal(meta.modelUsed, 'openai:gpt-4o');
          assert.deepEqual(
            meta.attempts.map(({ model: attempted, outcome, status: code }) => ({ model: attempted, outcome, status: code })),
            [
              { model: 'openai:gpt-4o-mini', outcome: 'failed', status },
              { model: 'openai:gpt-4o', outcome: 'ok', status: undefined },
            ],
          );
          assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini', 'gpt-4o']);
          assert.equal(JSON.stringify(meta).includes('org-fake0rg'), false, "the operator's OpenAI organization stays private");
          const record = await usageRecord(meta.requestId);
          assert.equal(record.model, 'openai:gpt-4o');
          assert.equal(record.attempts, 2);
          assert.equal(record.status, 200);
        });
      }
    }

    for (const [name, failure] of [
      ['sends an error event before its first token', (): FakeBehaviour => ({
        type: 'raw',
        body: 'data: {"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}\n\n',
      })],
      ['resets the connection after its role chunk', (): FakeBehaviour => ({ type: 'answer', content: 'never seen', transport: { resetAfterEvents: 1 } })],
    ] as const) {
      it(`a streamed first model that ${name} is replaced before the client sees a byte`, async () => {
        fake.setHandler(failingFor('gpt-4o-mini', failure));
        const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true });
        assert.equal(response.status, 200);
        const events = parseSse(await response.text());
        assert.equal(events.at(-1)?.data, '[DONE]');
        assert.equal(events.slice(0, -1).map((event) => choicesOf(event)[0]?.delta?.content ?? '').join(''), 'Hello! How can I help you today?');
        const meta = metaOf(events.at(-2)?.json);
        assert.equal(meta.modelUsed, 'openai:gpt-4o');
        assert.deepEqual(meta.attempts.map(({ model, outcome }) => ({ model, outcome })), [
          { model: 'openai:gpt-4o-mini', outcome: 'failed' },
          { model: 'openai:gpt-4o', outcome: 'ok' },
        ]);
        for (const event of events.slice(0, -1)) assert.equal(event.json?.model, 'openai:gpt-4o');
      });
    }

    for (const stream of [false, true]) {
      it(`a client that leaves while the first model is still silent: upstream aborted, no next model (${stream ? 'stream' : 'non-stream'})`, async () => {
        fake.setHandler(() => ({ type: 'hang' }));
        const abort = new AbortController();
        const pending = postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream }, { signal: abort.signal });
        const upstream = await waitFor('the upstream call', () => fake.chatRequests()[0]);
        abort.abort();
        await assert.rejects(pending);
        await waitFor('the upstream request to close', () => (upstream.aborted ? true : undefined));
        // Past the first-byte timeout: a gateway still working for nobody would have moved on to gpt-4o by now.
        await new Promise((resolve) => setTimeout(resolve, FIRST_BYTE_TIMEOUT_MS + 100));
        assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini']);
        const records = await (async () => {
          await gateway.app.usage.flush();
          return gateway.app.repositories.usage.list();
        })();
        const record = records.find((candidate) => candidate.status === 499 && candidate.streamed === (stream ? 1 : 0));
        assert.ok(record !== undefined, `a 499 record: ${JSON.stringify(records.slice(0, 3))}`);
        assert.equal(record.error_code, 'client_closed_request');
        assert.equal(record.model, null);
        assert.equal(record.attempts, 1);
        assert.equal(record.cost_usd, 0);
      });
    }

    it('a hung first model is dropped at the first-byte timeout, not later', async () => {
      fake.setHandler(failingFor('gpt-4o-mini', () => ({ type: 'hang' })));
      const started = performance.now();
      const completion = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }] });
      const elapsed = performance.now() - started;
      assert.equal(completion.model, 'openai:gpt-4o');
      assert.ok(elapsed >= FIRST_BYTE_TIMEOUT_MS - 5 && elapsed < FIRST_BYTE_TIMEOUT_MS + 300, `fell back after ${Math.round(elapsed)} ms`);
      const hung = fake.chatRequests()[0] ?? assert.fail('no upstream call');
      await hung.closed;
      assert.equal(hung.aborted, true, 'the gateway dropped the hung upstream request');
      assert.match(metaOf(completion).attempts[0]?.reason ?? '', /timed out/);
    });

    it('every model fails → 503 all_models_unavailable, complete and streamed', async () => {
      fake.setHandler(() => openAIErrors.serverError());
      for (const stream of [false, true]) {
        const error = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream }).then(
          () => assert.fail('expected a 503'),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof APIError, String(error));
        assert.equal(error.status, 503);
        assert.equal(error.type, 'service_unavailable');
        assert.equal(error.code, 'all_models_unavailable');
        const record = await usageRecord(error.requestID ?? assert.fail('no x-request-id'));
        assert.equal(record.status, 503);
        assert.equal(record.error_code, 'all_models_unavailable');
        assert.equal(record.attempts, 2);
        assert.equal(record.streamed, stream ? 1 : 0);
      }
      assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini', 'gpt-4o', 'gpt-4o-mini', 'gpt-4o']);
      const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }] });
      assert.equal(response.status, 503);
      const body = (await response.json()) as { error: Record<string, unknown> };
      assert.equal(body.error.type, 'service_unavailable');
      assert.equal(body.error.code, 'all_models_unavailable');
      assert.equal(typeof body.error.message, 'string');
    });

    it('upstream 400 → 400 with the provider message and no fallback, complete and streamed', async () => {
      const message = "Invalid 'messages[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10485761 instead.";
      fake.setHandler(() => openAIErrors.badRequest());
      for (const stream of [false, true]) {
        const error = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream }).then(
          () => assert.fail('expected a 400'),
          (failure: unknown) => failure,
        );
        assert.ok(error instanceof APIError, String(error));
        assert.equal(error.status, 400);
        assert.equal(error.type, 'invalid_request_error');
        assert.ok(error.message.includes(message), error.message);
        const record = await usageRecord(error.requestID ?? assert.fail('no x-request-id'));
        assert.equal(record.status, 400);
        assert.equal(record.attempts, 1);
      }
      assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini', 'gpt-4o-mini'], 'one upstream call per request, no fallback');
    });

    it("upstream 401 is never the client's 401 and never shows the server's key", async () => {
      fake.setHandler(() => openAIErrors.unauthorized('sk-test'));
      const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }] });
      const text = await response.text();
      assert.equal(response.status, 503, text);
      const body = JSON.parse(text) as { error: { type: string; code: string } };
      assert.equal(body.error.code, 'all_models_unavailable');
      assert.notEqual(body.error.type, 'authentication_error');
      assert.equal(text.includes('sk-test'), false, `the server key leaked: ${text}`);

      fake.reset();
      fake.setHandler(failingFor('gpt-4o-mini', () => openAIErrors.unauthorized('sk-test')));
      const completion = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }] });
      assert.equal(completion.model, 'openai:gpt-4o');
      const attempt = metaOf(completion).attempts[0];
      assert.equal(attempt?.status, 401);
      assert.equal(JSON.stringify(completion).includes('sk-test'), false);
    });

    it("upstream 429s end in 503 without the operator's OpenAI organization in the body", async () => {
      fake.setHandler(() => openAIErrors.rateLimited(3));
      const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }] });
      const text = await response.text();
      assert.equal(response.status, 503, text);
      assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'all_models_unavailable');
      assert.equal(text.includes('org-fake0rg'), false, text);
      assert.match(text, /429/);
    });
  });

  describe('broken streams', () => {
    it('a client that disconnects mid-stream makes the gateway abort the upstream request', async () => {
      fake.enqueue({ type: 'answer', content: 'one two three four five', transport: { hangAfterEvents: 3 } });
      const abort = new AbortController();
      const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true }, { signal: abort.signal });
      assert.equal(response.status, 200);
      const requestId = response.headers.get('x-request-id') ?? assert.fail('no request id');
      const reader = (response.body ?? assert.fail('no body')).getReader();
      let received = '';
      const decoder = new TextDecoder();
      while (!received.includes('"content":"one"')) {
        const { value, done } = await reader.read();
        if (done) assert.fail('the stream ended early');
        received += decoder.decode(value, { stream: true });
      }
      const upstream = fake.chatRequests()[0] ?? assert.fail('no upstream call');
      assert.equal(upstream.aborted, false);
      abort.abort();
      await waitFor('the upstream request to close', () => (upstream.aborted ? true : undefined));

      const record = await usageRecord(requestId);
      assert.equal(record.streamed, 1);
      assert.equal(record.status, 499);
    });

    it('a connection reset mid-stream ends the stream with an error event and no [DONE]', async () => {
      fake.enqueue({ type: 'answer', content: 'alpha beta gamma delta epsilon', transport: { resetAfterEvents: 3 } });
      const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true });
      assert.equal(response.status, 200);
      const requestId = response.headers.get('x-request-id') ?? assert.fail('no request id');
      const events = parseSse(await response.text());
      assert.equal(events.some((event) => event.data === '[DONE]'), false);
      const last = events.at(-1) ?? assert.fail('no events');
      const error = (last.json as { error?: { message?: unknown; type?: unknown; code?: unknown } }).error;
      assert.ok(error !== undefined, `last event is an error: ${last.data}`);
      assert.equal(typeof error.message, 'string');
      assert.equal(typeof error.type, 'string');
      assert.equal(typeof error.code, 'string');
      assert.equal(events.slice(0, -1).map((event) => choicesOf(event)[0]?.delta?.content ?? '').join(''), 'alpha beta');
      assert.equal(events.filter((event) => event.json?.error !== undefined).length, 1);

      const record = await usageRecord(requestId);
      assert.equal(record.streamed, 1);
      assert.ok(record.status >= 500, `status ${record.status}`);
    });

    it('the SDK surfaces a mid-stream reset as an error after the text so far', async () => {
      fake.enqueue({ type: 'answer', content: 'alpha beta gamma delta epsilon', transport: { resetAfterEvents: 3 } });
      const stream = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true });
      let text = '';
      await assert.rejects(
        (async () => {
          for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        })(),
        APIError,
      );
      assert.equal(text, 'alpha beta');
    });

    it('a stream cut short cleanly upstream is an error for the client too, not a short answer', async () => {
      fake.enqueue({
        type: 'raw',
        body:
          'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}\n\n' +
          'data: {"id":"chatcmpl-x","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-2024-07-18","choices":[{"index":0,"delta":{"content":"Half"},"logprobs":null,"finish_reason":null}]}\n\n',
      });
      const response = await postChat('/chat/completions', { model: gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true });
      const events = parseSse(await response.text());
      assert.equal(events.some((event) => event.data === '[DONE]'), false);
      assert.ok(events.at(-1)?.json?.error !== undefined);
    });
  });

  describe('connection refused', () => {
    let offline: Gateway;
    before(async () => {
      const port = await unusedPort();
      offline = await startGateway({
        env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: 'sk-test', MODELPORT_DEFAULT_RPM: '100000' },
        models: ['openai:gpt-4o-mini', 'sim:small'],
        strategy: 'quality_optimized',
      });
    });
    after(async () => {
      await offline.close();
    });

    it('a model whose provider refuses connections → the next model answers, both attempts listed', async () => {
      const sdk = new OpenAI({ apiKey: offline.apiKey, baseURL: offline.baseUrl, maxRetries: 0 });
      for (const stream of [false, true]) {
        let meta: Meta;
        if (stream) {
          let last: ChatCompletionChunk | undefined;
          for await (const chunk of await sdk.chat.completions.create({ model: offline.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true })) last = chunk;
          meta = metaOf(last);
        } else {
          meta = metaOf(await sdk.chat.completions.create({ model: offline.router.id, messages: [{ role: 'user', content: 'Hi' }] }));
        }
        assert.equal(meta.modelUsed, 'sim:small');
        assert.deepEqual(meta.attempts.map(({ model, outcome }) => ({ model, outcome })), [
          { model: 'openai:gpt-4o-mini', outcome: 'failed' },
          { model: 'sim:small', outcome: 'ok' },
        ]);
        assert.match(meta.attempts[0]?.reason ?? '', /ECONNREFUSED/);
      }
    });

    it('every model refused → 503 all_models_unavailable', async () => {
      const router = await offline.admin.createRouter({
        ownerEmail: offline.ownerEmail,
        name: 'openai only',
        models: ['openai:gpt-4o-mini', 'openai:gpt-4o'],
        strategy: 'cost_optimized',
      });
      const sdk = new OpenAI({ apiKey: offline.apiKey, baseURL: offline.baseUrl, maxRetries: 0 });
      const error = await sdk.chat.completions.create({ model: router.id, messages: [{ role: 'user', content: 'Hi' }] }).then(
        () => assert.fail('expected a 503'),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof APIError, String(error));
      assert.equal(error.status, 503);
      assert.equal(error.type, 'service_unavailable');
      assert.equal(error.code, 'all_models_unavailable');
      assert.match(error.message, /ECONNREFUSED/);
    });
  });
});
