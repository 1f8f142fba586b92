import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../lib/errors.js';
import { decodeOpenAIResponsesRequest } from './decode-openai-responses-request.js';
import type { DecodedResponsesRequest } from './decoded-responses-request.js';
import type { OpenAIResponsesRequestBody, ResponseItem } from './openai-responses-request-schema.js';
import type { ResponseStore, StoredResponse } from './response-store.js';

const context = { ownerId: 'usr_1', keyId: 'key_1', requestId: 'req_turn2' };

function storeWith(entries: Record<string, { ownerId: string; stored: StoredResponse }>): ResponseStore {
  return {
    save: async () => 'stored',
    load: async (id, ownerId) => (entries[id]?.ownerId === ownerId ? entries[id].stored : undefined),
    remove: async () => false,
    sweep: async () => 0,
    close: () => {},
  };
}

const none = { store: undefined, now: () => 0 };

function decode(body: Record<string, unknown>): DecodedResponsesRequest {
  const decoded = decodeOpenAIResponsesRequest(body as OpenAIResponsesRequestBody, context, none);
  assert.ok(!(decoded instanceof Promise), 'synchronous without previous_response_id');
  return decoded;
}

function refused(body: Record<string, unknown>, param: string, status = 400): void {
  assert.throws(
    () => decode(body),
    (error: unknown) => error instanceof GatewayError && error.status === status && error.param === param,
    `refused with param ${param}`,
  );
}

describe('decodeOpenAIResponsesRequest', () => {
  it('a string input under instructions: a system then a user message; parameters mapped to the neutral request', () => {
    const decoded = decode({
      model: 'rt_x',
      input: 'Hi',
      instructions: 'Be brief.',
      max_output_tokens: 64,
      temperature: 0.3,
      top_p: 0.9,
      reasoning: { effort: 'low', summary: 'auto' },
      user: 'u-1',
      safety_identifier: 'sid',
      prompt_cache_key: 'pck',
      metadata: { tag: 'x' },
      store: false,
      truncation: 'auto',
      include: ['reasoning.encrypted_content'],
    });
    assert.deepEqual(decoded.chatRequest, {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      max_completion_tokens: 64,
      temperature: 0.3,
      top_p: 0.9,
      reasoning_effort: 'low',
      user: 'u-1',
      safety_identifier: 'sid',
      prompt_cache_key: 'pck',
    });
    assert.equal(decoded.model, 'rt_x');
    assert.equal(decoded.store, false);
    assert.deepEqual(decoded.inputItems, [], 'nothing kept for a response that is not stored');
    assert.deepEqual(decoded.echo.metadata, { tag: 'x' });
    assert.equal(decoded.echo.truncation, 'auto');
  });

  it('items: parts, a turn of text and two calls joined, outputs as tool messages, images after them, reasoning dropped', () => {
    const decoded = decode({
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Rules.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'Look:' },
            { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' },
            { type: 'input_file', filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' },
          ],
        },
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'opaque' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.', annotations: [] }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'rainy' }, { type: 'input_image', image_url: 'https://x/y.png' }] },
        { role: 'user', content: 'Thanks' },
      ],
    });
    assert.deepEqual(decoded.chatRequest.messages, [
      { role: 'developer', content: 'Rules.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'low' } },
          { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBE' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'tool', tool_call_id: 'call_2', content: 'rainy' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] },
      { role: 'user', content: 'Thanks' },
    ]);
    assert.equal(decoded.store, true);
    assert.deepEqual(
      decoded.inputItems.map((item) => [item.id, item.type, item.status]),
      [
        ['msg_turn2_in0', 'message', 'completed'],
        ['msg_turn2_in1', 'message', 'completed'],
        ['rs_1', 'reasoning', undefined],
        ['msg_turn2_in3', 'message', 'completed'],
        ['fc_turn2_in4', 'function_call', 'completed'],
        ['fc_turn2_in5', 'function_call', 'completed'],
        ['fco_turn2_in6', 'function_call_output', 'completed'],
        ['fco_turn2_in7', 'function_call_output', 'completed'],
        ['msg_turn2_in8', 'message', 'completed'],
      ],
    );
    assert.deepEqual(decoded.inputItems[8]?.content, [{ type: 'input_text', text: 'Thanks' }], 'an easy message is stored with typed parts');
  });

  it('tools: flat functions with their strictness, namespaces, custom tools', () => {
    const tools = [
      { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: true },
      { type: 'function', name: 'get_time', parameters: null, strict: null },
      { type: 'namespace', name: 'agents', description: 'Sub-agents', tools: [{ type: 'function', name: 'spawn', parameters: { type: 'object' } }] },
      { type: 'custom', name: 'apply_patch', description: 'Patch.', format: { type: 'grammar', syntax: 'lark', definition: 'start: "x"' } },
    ];
    const decoded = decode({ input: 'Hi', tools, tool_choice: 'auto', parallel_tool_calls: false });
    assert.deepEqual(decoded.chatRequest.tools?.map((tool) => tool.function.name), ['get_weather', 'get_time', 'agents__spawn', 'apply_patch']);
    assert.deepEqual(decoded.chatRequest.tools?.[0]?.function, { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: true });
    assert.deepEqual(decoded.chatRequest.tools?.[1]?.function, { name: 'get_time' });
    assert.match(decoded.chatRequest.tools?.[3]?.function.description ?? '', /^Patch\.\n\nThe input follows this lark grammar:\nstart: "x"$/);
    assert.deepEqual(decoded.chatRequest.tools?.[3]?.function.parameters?.required, ['input']);
    assert.equal(decoded.chatRequest.tool_choice, 'auto');
    assert.equal(decoded.chatRequest.parallel_tool_calls, false);
    assert.deepEqual(decoded.toolNames.get('agents__spawn'), { kind: 'function', name: 'spawn', namespace: 'agents' });
    assert.deepEqual(decoded.echo.tools, tools, 'tools echoed as sent');
  });

  it('tool choices: a named function, allowed tools (only those reach the model), hosted tools refused', () => {
    const tools = [
      { type: 'function', name: 'a', parameters: { type: 'object' } },
      { type: 'function', name: 'b', parameters: { type: 'object' } },
    ];
    assert.deepEqual(decode({ input: 'Hi', tools, tool_choice: { type: 'function', name: 'b' } }).chatRequest.tool_choice, { type: 'function', function: { name: 'b' } });
    const allowed = decode({ input: 'Hi', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }] } }).chatRequest;
    assert.deepEqual([allowed.tools?.map((tool) => tool.function.name), allowed.tool_choice], [['a'], 'required']);
    refused({ input: 'Hi', tools, tool_choice: { type: 'function', name: 'c' } }, 'tool_choice.name');
    refused({ input: 'Hi', tools, tool_choice: { type: 'web_search_preview' } }, 'tool_choice');
    refused({ input: 'Hi', tools: [{ type: 'web_search' }], tool_choice: 'required' }, 'tools[0].type');
    // Web search is refused like every hosted tool, never dropped: the message says how Codex CLI turns it off.
    refused({ input: 'Hi', tools: [{ type: 'function', name: 'a', parameters: { type: 'object' } }, { type: 'web_search', external_web_access: false }], tool_choice: 'auto' }, 'tools[1].type');
  });

  it('text.format: json_schema and json_object as response_format; plain text as nothing', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    assert.deepEqual(decode({ input: 'Hi', text: { format: { type: 'json_schema', name: 'place', schema, strict: true } } }).chatRequest.response_format, {
      type: 'json_schema',
      json_schema: { name: 'place', schema, strict: true },
    });
    assert.deepEqual(decode({ input: 'Hi', text: { format: { type: 'json_object' } } }).chatRequest.response_format, { type: 'json_object' });
    assert.equal('response_format' in decode({ input: 'Hi', text: { format: { type: 'text' } } }).chatRequest, false);
    refused({ input: 'Hi', text: { format: { type: 'json_schema', schema } } }, 'text.format.name');
    refused({ input: 'Hi', text: { format: { type: 'yaml' } } }, 'text.format.type');
  });

  it('what no model behind a router can honour is a 400 naming it', () => {
    refused({ input: 'Hi', background: true }, 'background');
    refused({ input: 'Hi', conversation: 'conv_1' }, 'conversation');
    refused({ input: 'Hi', prompt: { id: 'pmpt_1' } }, 'prompt');
    refused({ input: 'Hi', top_logprobs: 3 }, 'top_logprobs');
    refused({ input: 'Hi', include: ['message.output_text.logprobs'] }, 'include');
    refused({ input: 'Hi', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] }, 'tools[0].type');
    refused({ input: 'Hi', tools: [{ type: 'namespace', name: 'n', tools: [{ type: 'mcp' }] }] }, 'tools[0].tools[0].type');
    refused({ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, 'input[0].content[0].image_url');
    refused({ input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id');
    refused({ instructions: 'Only instructions.' }, 'input');
  });

  it('previous_response_id: the stored items and output come first, then the input; another owner\'s id is 404', async () => {
    const earlier: ResponseItem[] = [{ id: 'msg_t1_in0', type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Weather?' }] }];
    const output: ResponseItem[] = [
      { id: 'rs_t1', type: 'reasoning', summary: [] },
      { id: 'fc_t1_0', type: 'function_call', status: 'completed', call_id: 'toolu_1', name: 'get_weather', arguments: '{}' },
    ];
    const store = storeWith({
      resp_t1: { ownerId: 'usr_1', stored: { response: { id: 'resp_t1', output, instructions: 'Old rules.' }, inputItems: earlier } },
      resp_theirs: { ownerId: 'usr_2', stored: { response: { id: 'resp_theirs', output: [] }, inputItems: earlier } },
    });
    const decoding = decodeOpenAIResponsesRequest(
      { previous_response_id: 'resp_t1', instructions: 'New rules.', input: [{ type: 'function_call_output', call_id: 'toolu_1', output: 'sunny' }] } as OpenAIResponsesRequestBody,
      context,
      { store, now: () => 0 },
    );
    assert.ok(decoding instanceof Promise);
    const decoded = await decoding;
    assert.deepEqual(decoded.chatRequest.messages, [
      { role: 'system', content: 'New rules.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'sunny' },
    ]);
    assert.deepEqual(decoded.inputItems.map((item) => item.id), ['msg_t1_in0', 'rs_t1', 'fc_t1_0', 'fco_turn2_in0']);
    for (const id of ['resp_theirs', 'resp_unknown']) {
      await assert.rejects(
        Promise.resolve(decodeOpenAIResponsesRequest({ previous_response_id: id, input: 'Hi' } as OpenAIResponsesRequestBody, context, { store, now: () => 0 })),
        (error: unknown) => error instanceof GatewayError && error.status === 404 && error.code === 'response_not_found' && error.param === 'previous_response_id',
      );
    }
  });

  it("item references: replaced by the stored item they name (its response found by the id), another owner's or an unknown one a 400", async () => {
    const answer = { id: 'msg_prev_0', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Let me look.', annotations: [] }] };
    const store = storeWith({ resp_prev: { ownerId: 'usr_1', stored: { response: { id: 'resp_prev', output: [answer] }, inputItems: [] } as unknown as StoredResponse } });
    const input = [{ role: 'user', content: 'Weather?' }, { type: 'item_reference', id: 'msg_prev_0' }, { role: 'user', content: 'And tomorrow?' }];
    const decoded = await decodeOpenAIResponsesRequest({ input } as OpenAIResponsesRequestBody, context, { store, now: () => 0 });
    assert.deepEqual(
      decoded.chatRequest.messages.map((message) => [message.role, message.content]),
      [
        ['user', 'Weather?'],
        ['assistant', 'Let me look.'],
        ['user', 'And tomorrow?'],
      ],
    );
    const stranger = { ...context, ownerId: 'usr_2' };
    for (const [who, id] of [[stranger, 'msg_prev_0'], [context, 'msg_prev_7'], [context, 'nothing']] as const) {
      await assert.rejects(
        Promise.resolve(decodeOpenAIResponsesRequest({ input: [{ type: 'item_reference', id }] } as OpenAIResponsesRequestBody, who, { store, now: () => 0 })),
        (error: unknown) => error instanceof GatewayError && error.status === 400 && error.param === 'input[0].id',
      );
    }
  });
});
