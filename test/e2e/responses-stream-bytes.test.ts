import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { openAIErrors, startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The Responses API's stream, byte for byte, through a real gateway and a real OpenAI fake: events in OpenAI's order
 * with `sequence_number` strictly increasing, deltas that add up to the final text and arguments, the SSE framing
 * (any split of the bytes parses the same), a mid-stream drop that ends with `response.failed`, an invisible fallback
 * before the first event, and the request Codex CLI sends by default.
 */

interface Event {
  readonly event: string | undefined;
  readonly data: Record<string, unknown> & { type: string; sequence_number: number };
}

function parseSse(chunks: readonly Uint8Array[]): Event[] {
  const events: Event[] = [];
  const parser = createParser({ onEvent: (message: EventSourceMessage) => events.push({ event: message.event, data: JSON.parse(message.data) as Event['data'] }) });
  const decoder = new TextDecoder();
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  parser.feed(decoder.decode());
  return events;
}

const WEATHER = { type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

describe('Responses API stream, byte level', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  /** A router of two OpenAI models, the cheaper first. */
  let twoModels: string;

  const post = async (body: Record<string, unknown>) => {
    const response = await fetch(`${gateway.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: gateway.router.id, stream: true, ...body }),
    });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { response, bytes, events: parseSse([bytes]) };
  };

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test' });
    gateway = await startGateway({
      env: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test', MODELPORT_DEFAULT_RPM: '100000' },
      models: ['openai:gpt-4o-mini'],
    });
    twoModels = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'two', models: ['openai:gpt-4o-mini', 'openai:gpt-4o'], strategy: 'cost_optimized' })).id;
  });
  after(async () => {
    await gateway.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('text: OpenAI framing and order, numbers 0…n, deltas equal the done text and the completed response; usage and _meta at the end', async () => {
    fake.enqueue({ type: 'answer', content: 'It is 21 °C in São Paulo.', textPieces: ['It is ', '21 °C', ' in São', ' Paulo.'], usage: { prompt_tokens: 30, completion_tokens: 9, cached_tokens: 10 } });
    const { response, bytes, events } = await post({ input: 'Weather?' });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(response.headers.get('x-modelport-model'), 'openai:gpt-4o-mini');
    // Every event is `event: <type>\ndata: <json>\n\n`, its type in both.
    const text = new TextDecoder().decode(bytes);
    assert.match(text, /^(event: [a-z_.]+\ndata: \{[^\n]*\}\n\n)+$/);
    for (const event of events) assert.equal(event.event, event.data.type);
    assert.deepEqual(events.map((event) => event.data.type), [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const numbers = events.map((event) => event.data.sequence_number);
    numbers.forEach((number, index) => assert.ok(index === 0 ? number === 0 : number > (numbers[index - 1] ?? Infinity), `sequence_number strictly increasing: ${numbers.join(',')}`));
    const deltas = events.filter((event) => event.data.type === 'response.output_text.delta').map((event) => event.data.delta as string);
    assert.deepEqual(deltas, ['It is ', '21 °C', ' in São', ' Paulo.']);
    assert.equal(events.find((event) => event.data.type === 'response.output_text.done')?.data.text, deltas.join(''));
    const completed = events.at(-1)?.data.response as { id: string; status: string; output_text: string; usage: unknown; model: string; _meta: { modelUsed: string; cost: number; timeToFirstTokenMs: number } };
    assert.equal(completed.status, 'completed');
    assert.equal(completed.output_text, deltas.join(''));
    assert.equal(completed.model, 'openai:gpt-4o-mini');
    assert.match(completed.id, /^resp_/);
    assert.deepEqual(completed.usage, { input_tokens: 30, input_tokens_details: { cached_tokens: 10 }, output_tokens: 9, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 39 });
    assert.equal(completed._meta.modelUsed, 'openai:gpt-4o-mini');
    assert.ok(completed._meta.cost > 0 && completed._meta.timeToFirstTokenMs >= 0);
    assert.equal(events.filter((event) => '_meta' in ((event.data.response as object | undefined) ?? {})).length, 1, '_meta only on the last event');
    for (const event of events.slice(0, 2)) assert.equal((event.data.response as { id: string }).id, completed.id);
  });

  it('the SSE split at every byte boundary parses to the same events', async () => {
    fake.enqueue({ type: 'answer', content: 'Olá, 世界 🙂 "quoted"\nnext line', toolCalls: [{ id: 'call_x', name: 'get_weather', arguments: '{"city":"Zürich"}' }], finishReason: 'tool_calls' });
    const { bytes, events } = await post({ input: 'Hi', tools: [WEATHER] });
    assert.ok(events.length > 10);
    for (let cut = 1; cut < bytes.length; cut += 1) {
      assert.deepEqual(parseSse([bytes.subarray(0, cut), bytes.subarray(cut)]), events, `split at byte ${cut}`);
    }
    // And cut into single bytes.
    assert.deepEqual(parseSse([...bytes].map((byte) => Uint8Array.of(byte))), events);
  });

  it('two calls: each item added, its argument deltas, done; the deltas equal the done arguments and the completed response', async () => {
    const paris = '{"city":"Paris","unit":"celsius"}';
    const rome = '{"city":"Rome","unit":"celsius"}';
    fake.enqueue({ type: 'answer', content: null, toolCalls: [{ id: 'call_p', name: 'get_weather', arguments: paris }, { id: 'call_r', name: 'get_weather', arguments: rome }], argumentsPieceLength: 5 });
    const { events } = await post({ input: 'Weather in Paris and Rome?', tools: [WEATHER] });
    const types = events.map((event) => `${event.data.type}@${String(event.data.output_index ?? '')}`).filter((type) => !type.startsWith('response.function_call_arguments.delta'));
    assert.deepEqual(types, [
      'response.created@',
      'response.in_progress@',
      'response.output_item.added@0',
      'response.function_call_arguments.done@0',
      'response.output_item.done@0',
      'response.output_item.added@1',
      'response.function_call_arguments.done@1',
      'response.output_item.done@1',
      'response.completed@',
    ]);
    const completed = events.at(-1)?.data.response as { output: { type: string; call_id: string; name: string; arguments: string; id: string; status: string }[] };
    for (const [index, expected] of [paris, rome].entries()) {
      const deltas = events.filter((event) => event.data.type === 'response.function_call_arguments.delta' && event.data.output_index === index).map((event) => event.data.delta as string);
      assert.ok(deltas.length > 1, 'the arguments come in several deltas');
      assert.equal(deltas.join(''), expected);
      assert.equal(events.find((event) => event.data.type === 'response.function_call_arguments.done' && event.data.output_index === index)?.data.arguments, expected);
      const item = completed.output[index];
      assert.deepEqual([item?.type, item?.name, item?.arguments, item?.status], ['function_call', 'get_weather', expected, 'completed']);
      assert.match(item?.id ?? '', /^fc_/);
      const added = events.find((event) => event.data.type === 'response.output_item.added' && event.data.output_index === index)?.data.item as { id: string; call_id: string };
      assert.equal(added.id, item?.id, 'the same item id from added to completed');
      assert.equal(added.call_id, index === 0 ? 'call_p' : 'call_r');
    }
  });

  it('an upstream that drops the connection mid-stream: the stream ends with response.failed carrying the error, never silently', async () => {
    fake.enqueue({ type: 'answer', content: 'alpha beta gamma delta epsilon', transport: { resetAfterEvents: 3 } });
    const { response, events } = await post({ input: 'Hi' });
    assert.equal(response.status, 200);
    const last = events.at(-1);
    assert.equal(last?.data.type, 'response.failed');
    assert.equal(events.some((event) => event.data.type === 'response.completed'), false);
    const failed = last?.data.response as { status: string; error: { code: string; message: string }; output: { content: { text: string }[] }[]; _meta: { modelUsed: string } };
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error.code, 'upstream_stream_error');
    assert.match(failed.error.message, /broke after it had started/);
    assert.equal(failed.output[0]?.content[0]?.text, 'alpha beta');
    assert.equal(failed._meta.modelUsed, 'openai:gpt-4o-mini');
    const numbers = events.map((event) => event.data.sequence_number);
    assert.deepEqual(numbers, numbers.map((_, index) => index));
  });

  it('a first model that fails before its first byte is replaced invisibly: one clean stream, both attempts in _meta', async () => {
    fake.setHandler((request: RecordedRequest) => ((request.body as { model?: string }).model === 'gpt-4o-mini' ? openAIErrors.serverError() : undefined));
    const { response, events } = await post({ model: twoModels, input: 'Hi' });
    assert.equal(response.status, 200);
    assert.equal(events[0]?.data.type, 'response.created');
    assert.equal(events.filter((event) => event.data.type === 'response.created').length, 1);
    const completed = events.at(-1)?.data.response as { model: string; _meta: { attempts: { model: string; outcome: string }[] } };
    assert.equal(completed.model, 'openai:gpt-4o');
    assert.deepEqual(completed._meta.attempts.map(({ model, outcome }) => [model, outcome]), [['openai:gpt-4o-mini', 'failed'], ['openai:gpt-4o', 'ok']]);
  });

  it("Codex CLI's request (web search turned off, as its docs here say): namespaced tools flattened, reasoning items dropped", async () => {
    fake.enqueue({ type: 'answer', content: null, toolCalls: [{ id: 'call_c', name: 'multi_agent_v1__close_agent', arguments: '{"target":"a1"}' }] });
    const { response, events } = await post({
      instructions: null,
      input: [
        { type: 'message', id: 'msg_dev', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
        { type: 'message', id: 'msg_user', role: 'user', content: [{ type: 'input_text', text: 'Close agent a1.' }] },
        { type: 'reasoning', id: 'rs_1', summary: [], content: null, encrypted_content: 'gAAAAB-opaque' },
      ],
      tools: [
        { type: 'function', name: 'exec_command', description: 'Runs a command.', strict: false, parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'], additionalProperties: false } },
        { type: 'namespace', name: 'multi_agent_v1', description: 'Sub-agents.', tools: [{ type: 'function', name: 'close_agent', strict: false, parameters: { type: 'object', properties: { target: { type: 'string' } } } }] },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { summary: 'auto' },
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
      client_metadata: { session_id: 'session-1' },
    });
    assert.equal(response.status, 200);
    const upstream = fake.chatRequests()[0]?.body as { messages: { role: string }[]; tools: { function: { name: string } }[]; prompt_cache_key?: string; store?: unknown; client_metadata?: unknown };
    assert.deepEqual(upstream.tools.map((tool) => tool.function.name), ['exec_command', 'multi_agent_v1__close_agent']);
    assert.deepEqual(upstream.messages.map((message) => message.role), ['developer', 'user']);
    assert.equal(upstream.prompt_cache_key, 'session-1');
    assert.equal('store' in upstream || 'client_metadata' in upstream, false, 'Responses-only fields stay at the gateway');
    const done = events.find((event) => event.data.type === 'response.output_item.done')?.data.item as { name: string; namespace: string; arguments: string; call_id: string };
    assert.deepEqual([done.name, done.namespace, done.arguments, done.call_id], ['close_agent', 'multi_agent_v1', '{"target":"a1"}', 'call_c']);
    assert.equal((events.at(-1)?.data.response as { store: boolean }).store, false);
  });

  it("Codex CLI's default web search tool is refused, never dropped: a 400 on its param that says how Codex turns it off", async () => {
    const { response, bytes } = await post({ input: 'Hi', tools: [{ type: 'web_search', external_web_access: false }], tool_choice: 'auto' });
    assert.equal(response.status, 400);
    const error = (JSON.parse(new TextDecoder().decode(bytes)) as { error: { param: string; code: string; message: string } }).error;
    assert.deepEqual([error.param, error.code], ['tools[0].type', 'unsupported_value']);
    assert.match(error.message, /web_search = "disabled"/);
    assert.equal(fake.chatRequests().length, 0);
  });
});
