import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accumulateResponse } from 'openai/lib/responses/ResponseAccumulator';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ModelInfo } from '../../catalog/catalog.js';
import { GatewayError } from '../../lib/errors.js';
import type { StreamPart, Usage } from '../../providers/contract.js';
import { decodeOpenAIResponsesRequest } from './decode-openai-responses-request.js';
import type { OpenAIResponsesRequestBody } from './openai-responses-request-schema.js';
import { createOpenAIResponsesStreamEncoder, textDeltaTemplate } from './openai-responses-stream-encoder.js';
import type { ResponseToStore, StoreOutcome } from './response-store.js';

const model = { id: 'openai:gpt-4o-mini', provider: 'openai' } as ModelInfo;
const ids = { id: 'resp_abc123', created: 1_795_000_000, requestId: 'req_abc123', estimatedPromptTokens: 10 };
const usage: Usage = { promptTokens: 21, completionTokens: 7, cachedPromptTokens: 5, estimated: false };
const meta = { modelUsed: 'openai:gpt-4o-mini', cost: 0.001 };
const WEATHER = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

interface Parsed {
  readonly type: string;
  readonly data: Record<string, unknown> & { sequence_number: number };
}

/** Splits the encoder's SSE events, checking each is framed as OpenAI frames it. */
function parse(events: readonly string[]): Parsed[] {
  return events.map((raw) => {
    const match = /^event: ([^\n]+)\ndata: ([^\n]+)\n\n$/.exec(raw);
    assert.ok(match !== null, `framed as event + data: ${JSON.stringify(raw)}`);
    const data = JSON.parse(match[2] ?? '') as Parsed['data'];
    assert.equal(data.type, match[1], 'the data repeats the event type');
    return { type: match[1] ?? '', data };
  });
}

function encoderFor(body: Record<string, unknown>, saved: ResponseToStore[] = [], outcome: StoreOutcome = 'stored') {
  const store = {
    save: async (entry: ResponseToStore) => {
      saved.push(entry);
      return outcome;
    },
    load: async () => undefined,
    remove: async () => false,
    sweep: async () => 0,
    close: () => {},
  };
  const context = { store, now: () => 1_795_000_005_000 };
  const decoded = decodeOpenAIResponsesRequest({ input: 'Hi', ...body } as OpenAIResponsesRequestBody, { ownerId: 'usr_1', keyId: 'key_1', requestId: 'req_abc123' }, context);
  assert.ok(!(decoded instanceof Promise));
  return createOpenAIResponsesStreamEncoder<typeof meta>(ids, model, decoded, context);
}

async function run(body: Record<string, unknown>, parts: readonly StreamPart[], finishReason: 'stop' | 'length' | 'tool_calls' = 'stop', saved: ResponseToStore[] = []) {
  const encoder = encoderFor(body, saved);
  const raw = [...encoder.start(), ...parts.flatMap((part) => encoder.part(part)), ...(await encoder.end({ finishReason, usage, meta }))];
  const events = parse(raw);
  // The SDK's own accumulator takes every event, and gives the final response.
  let snapshot: Response | undefined;
  for (const event of events) snapshot = accumulateResponse(event.data as unknown as ResponseStreamEvent, snapshot);
  return { events, snapshot: snapshot ?? assert.fail('no snapshot') };
}

describe('createOpenAIResponsesStreamEncoder', () => {
  it('text: the events in OpenAI order, numbered 0, 1, 2…; the deltas put together are the done text', async () => {
    const saved: ResponseToStore[] = [];
    const { events, snapshot } = await run({}, [{ type: 'text-delta', text: 'Hel' }, { type: 'text-delta', text: 'lo "you"' }, { type: 'usage', usage }], 'stop', saved);
    assert.deepEqual(
      events.map((event) => event.type),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    assert.deepEqual(events.map((event) => event.data.sequence_number), events.map((_, index) => index));
    const deltas = events.filter((event) => event.type === 'response.output_text.delta').map((event) => event.data.delta);
    const done = events.find((event) => event.type === 'response.output_text.done')?.data;
    assert.equal(deltas.join(''), 'Hello "you"');
    assert.equal(done?.text, 'Hello "you"');
    const completed = events.at(-1)?.data.response as Record<string, unknown>;
    assert.equal(completed.status, 'completed');
    assert.deepEqual(completed.usage, { input_tokens: 21, input_tokens_details: { cached_tokens: 5 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 28 });
    assert.deepEqual(completed._meta, meta);
    assert.equal(completed.store, true);
    assert.equal(snapshot.output_text, 'Hello "you"');
    assert.equal(saved.length, 1, 'stored before the last event');
    assert.deepEqual(saved[0]?.response, completed);
    assert.deepEqual(saved[0]?.inputItems.map((item) => item.type), ['message']);
    assert.equal((events[0]?.data.response as Record<string, unknown>)._meta, undefined, 'the first events carry no _meta');
  });

  it('a text then two calls: each item done before the next is added; argument deltas put together are the done arguments', async () => {
    const { events, snapshot } = await run({ tools: [WEATHER] }, [
      { type: 'text-delta', text: 'Checking.' },
      { type: 'tool-call-delta', index: 0, id: 'call_1', name: 'get_weather', argumentsDelta: '{"city":' },
      { type: 'tool-call-delta', index: 0, argumentsDelta: '"Paris"}' },
      { type: 'tool-call-delta', index: 1, id: 'call_2', name: 'get_weather', argumentsDelta: '{"city":"Rome"}' },
    ], 'tool_calls');
    const added = events.filter((event) => event.type === 'response.output_item.added').map((event) => event.data.output_index);
    const done = events.filter((event) => event.type === 'response.output_item.done').map((event) => event.data.output_index);
    assert.deepEqual(added, [0, 1, 2]);
    assert.deepEqual(done, [0, 1, 2]);
    for (const index of [0, 1]) {
      const addedAt = events.findIndex((event) => event.type === 'response.output_item.added' && event.data.output_index === index + 1);
      const doneAt = events.findIndex((event) => event.type === 'response.output_item.done' && event.data.output_index === index);
      assert.ok(doneAt < addedAt, `item ${index} is done before item ${index + 1} is added`);
    }
    const argsOf = (index: number) => events.filter((event) => event.type === 'response.function_call_arguments.delta' && event.data.output_index === index).map((event) => event.data.delta).join('');
    const doneArgs = events.filter((event) => event.type === 'response.function_call_arguments.done').map((event) => [event.data.arguments, event.data.name]);
    assert.deepEqual(doneArgs, [['{"city":"Paris"}', 'get_weather'], ['{"city":"Rome"}', 'get_weather']]);
    assert.equal(argsOf(1), '{"city":"Paris"}');
    assert.equal(argsOf(2), '{"city":"Rome"}');
    const calls = snapshot.output.filter((item) => item.type === 'function_call');
    assert.deepEqual(calls.map((call) => [call.call_id, call.name, call.arguments, call.id?.startsWith('fc_')]), [
      ['call_1', 'get_weather', '{"city":"Paris"}', true],
      ['call_2', 'get_weather', '{"city":"Rome"}', true],
    ]);
    assert.equal(snapshot.status, 'completed');
  });

  it('a namespaced function and a custom tool are named as the client defined them', async () => {
    const { events, snapshot } = await run(
      {
        tools: [
          { type: 'namespace', name: 'agents', description: 'Sub-agents', tools: [{ type: 'function', name: 'spawn', parameters: { type: 'object' } }] },
          { type: 'custom', name: 'apply_patch', description: 'Patch files', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
        ],
      },
      [
        { type: 'tool-call-delta', index: 0, id: 'call_1', name: 'agents__spawn', argumentsDelta: '{}' },
        { type: 'tool-call-delta', index: 1, id: 'call_2', name: 'apply_patch', argumentsDelta: '{"input":"*** Begin' },
        { type: 'tool-call-delta', index: 1, argumentsDelta: ' Patch\\n"}' },
      ],
      'tool_calls',
    );
    const [spawn, patch] = snapshot.output;
    assert.deepEqual(spawn?.type === 'function_call' ? [spawn.name, spawn.namespace, spawn.arguments] : spawn, ['spawn', 'agents', '{}']);
    assert.deepEqual(patch?.type === 'custom_tool_call' ? [patch.name, patch.input, patch.call_id] : patch, ['apply_patch', '*** Begin Patch\n', 'call_2']);
    assert.equal(events.filter((event) => event.type === 'response.custom_tool_call_input.done').length, 1);
    assert.equal(events.filter((event) => event.type === 'response.function_call_arguments.delta' && event.data.output_index === 1).length, 0, "a custom tool's input is not sent as JSON deltas");
  });

  it('a refusal after text is a second content part; a length stop makes the response incomplete', async () => {
    const { events, snapshot } = await run({}, [{ type: 'text-delta', text: 'Well' }, { type: 'refusal-delta', text: 'I cannot' }], 'length');
    assert.equal(events.at(-1)?.type, 'response.incomplete');
    assert.equal(snapshot.status, 'incomplete');
    assert.deepEqual(snapshot.incomplete_details, { reason: 'max_output_tokens' });
    const message = snapshot.output[0];
    assert.ok(message?.type === 'message');
    assert.equal(message.status, 'incomplete');
    assert.deepEqual(message.content.map((part) => (part.type === 'output_text' ? part.text : part.refusal)), ['Well', 'I cannot']);
  });

  it('a break after the start ends with response.failed carrying the error and what had come', async () => {
    const encoder = encoderFor({});
    const raw = [...encoder.start(), ...encoder.part({ type: 'text-delta', text: 'Half' })];
    raw.push(...(await encoder.fail(new GatewayError(502, 'upstream_error', 'upstream_stream_error', 'The stream broke.'), meta)));
    const events = parse(raw);
    const failed = events.at(-1);
    assert.equal(failed?.type, 'response.failed');
    assert.deepEqual(events.map((event) => event.data.sequence_number), events.map((_, index) => index));
    const response = failed?.data.response as { status: string; error: unknown; output: { content: { text: string }[]; status: string }[]; _meta: unknown };
    assert.equal(response.status, 'failed');
    assert.deepEqual(response.error, { code: 'upstream_stream_error', message: 'The stream broke.' });
    assert.equal(response.output[0]?.content[0]?.text, 'Half');
    assert.equal(response.output[0]?.status, 'incomplete');
    assert.deepEqual(response._meta, meta);
  });

  it('a response too large to store is answered with store: false', async () => {
    const saved: ResponseToStore[] = [];
    const encoder = encoderFor({}, saved, 'too_large');
    const events = parse([...encoder.start(), ...(await encoder.end({ finishReason: 'stop', usage, meta }))]);
    assert.equal(saved.length, 1);
    assert.equal((events.at(-1)?.data.response as { store: boolean }).store, false);
  });
});

describe('textDeltaTemplate', () => {
  it("gives the generic event's bytes exactly for any text and number", () => {
    const where = { item_id: 'msg_"odd"\\id_0', output_index: 3, content_index: 1 };
    const template = textDeltaTemplate(where);
    const texts = ['Hello', '', ' word', 'quote " back\\slash', 'line\nbreak\ttab', 'nul \u0000 and \u001f', 'é ü 日本語 🙂', '\u2028\u2029', '\ud800 lone'];
    texts.forEach((text, index) => {
      const sequence = index * 997;
      const expected = `event: response.output_text.delta\ndata: ${JSON.stringify({ type: 'response.output_text.delta', sequence_number: sequence, ...where, delta: text, logprobs: [] })}\n\n`;
      assert.equal(template(sequence, text), expected, JSON.stringify(text));
    });
  });
});
