import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError, type ChatMessage, type ChatRequest } from '../contract.js';
import { convertAnthropicUsage } from './convert-anthropic-usage.js';
import { mapAnthropicFinishReason } from './map-anthropic-finish-reason.js';
import { DEFAULT_MAX_TOKENS, mapAnthropicRequest } from './map-anthropic-request.js';

const options = { provider: 'anthropic', modelId: 'claude-sonnet-4-5', stream: false } as const;
const hello: ChatMessage = { role: 'user', content: 'Hello' };
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
} as const;

function map(request: Partial<ChatRequest> & Record<string, unknown>, extra: { defaultMaxTokens?: number; stream?: boolean } = {}) {
  return mapAnthropicRequest({ messages: [hello], ...request }, { ...options, ...extra });
}

function rejectsWith(expected: { statusCode: number; isRetryable: boolean; message: RegExp }) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.kind, 'http');
    assert.equal(error.provider, 'anthropic');
    assert.equal(error.statusCode, expected.statusCode);
    assert.equal(error.isRetryable, expected.isRetryable);
    assert.match(error.message, expected.message);
    return true;
  };
}

describe('mapAnthropicRequest', () => {
  it('maps the basic parameters and defaults max_tokens', () => {
    assert.deepEqual(map({}), { model: 'claude-sonnet-4-5', max_tokens: DEFAULT_MAX_TOKENS, messages: [{ role: 'user', content: 'Hello' }], stream: false });
    assert.equal(DEFAULT_MAX_TOKENS, 4096);
    assert.equal(map({}, { defaultMaxTokens: 64_000 }).max_tokens, 64_000);
    assert.equal(map({ max_tokens: 100 }, { defaultMaxTokens: 64_000 }).max_tokens, 100);
    assert.equal(map({ max_tokens: 100, max_completion_tokens: 200 }).max_tokens, 200);
    assert.equal(map({}, { stream: true }).stream, true);
  });

  it('clamps temperature to Anthropic 0–1 and keeps top_p only without temperature', () => {
    assert.equal(map({ temperature: 0.7 }).temperature, 0.7);
    assert.equal(map({ temperature: 0 }).temperature, 0);
    assert.equal(map({ temperature: 1.8 }).temperature, 1);
    assert.equal(map({ top_p: 0.9 }).top_p, 0.9);
    const both = map({ temperature: 0.3, top_p: 0.9 });
    assert.equal(both.temperature, 0.3);
    assert.equal('top_p' in both, false);
  });

  it('maps stop (string or array) to stop_sequences, user to metadata.user_id, and drops what Anthropic lacks', () => {
    assert.deepEqual(map({ stop: 'END' }).stop_sequences, ['END']);
    assert.deepEqual(map({ stop: ['\n\nObservation:', 'END'] }).stop_sequences, ['\n\nObservation:', 'END']);
    assert.equal('stop_sequences' in map({ stop: [] }), false);
    assert.deepEqual(map({ user: 'user-42' }).metadata, { user_id: 'user-42' });
    const body = map({ seed: 7, n: 1, presence_penalty: 0.5, logprobs: true, stream_options: { include_usage: true } }) as unknown as Record<string, unknown>;
    for (const name of ['seed', 'n', 'presence_penalty', 'logprobs', 'stream_options']) assert.equal(name in body, false, name);
  });

  it('maps tools and every tool_choice', () => {
    const tools = [weatherTool, { type: 'function', function: { name: 'now' } }] as const;
    assert.deepEqual(map({ tools }).tools, [
      { name: 'get_weather', description: 'Weather in a city', input_schema: weatherTool.function.parameters },
      { name: 'now', input_schema: { type: 'object', properties: {} } },
    ]);
    assert.equal('tool_choice' in map({ tools }), false);
    assert.deepEqual(map({ tools, tool_choice: 'auto' }).tool_choice, undefined);
    assert.deepEqual(map({ tools, tool_choice: 'required' }).tool_choice, { type: 'any' });
    assert.deepEqual(map({ tools, tool_choice: 'none' }).tool_choice, { type: 'none' });
    assert.deepEqual(map({ tools, tool_choice: { type: 'function', function: { name: 'now' } } }).tool_choice, { type: 'tool', name: 'now' });
    assert.deepEqual(map({ tools, parallel_tool_calls: false }).tool_choice, { type: 'auto', disable_parallel_tool_use: true });
    assert.deepEqual(map({ tools, tool_choice: 'required', parallel_tool_calls: false }).tool_choice, { type: 'any', disable_parallel_tool_use: true });
    assert.deepEqual(map({ tools, tool_choice: 'none', parallel_tool_calls: false }).tool_choice, { type: 'none' });
    // tool_choice without tools means nothing, and Anthropic refuses it.
    assert.equal('tool_choice' in map({ tool_choice: 'required' }), false);
    assert.throws(() => map({ tools, tool_choice: 'sometimes' }), rejectsWith({ statusCode: 400, isRetryable: false, message: /tool_choice/ }));
  });

  it('asks for JSON in the system prompt for response_format', () => {
    assert.equal('system' in map({ response_format: { type: 'text' } }), false);
    const jsonObject = map({ response_format: { type: 'json_object' } });
    assert.match(String(jsonObject.system), /^Answer with one valid JSON object and nothing else/);
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const withSystem = map({ messages: [{ role: 'system', content: 'Be terse.' }, hello], response_format: { type: 'json_schema', json_schema: { name: 'a', schema } } });
    assert.ok(Array.isArray(withSystem.system));
    const [first, second] = withSystem.system as { type: string; text: string }[];
    assert.deepEqual(first, { type: 'text', text: 'Be terse.' });
    assert.ok(second?.text.includes(JSON.stringify(schema)));
    assert.throws(() => map({ response_format: { type: 'json_schema', json_schema: { name: 'a' } } }), rejectsWith({ statusCode: 400, isRetryable: false, message: /schema/ }));
  });
});

describe('convertToAnthropicMessages (through mapAnthropicRequest)', () => {
  const messagesOf = (messages: readonly ChatMessage[]) => map({ messages });

  it('lifts system and developer messages, wherever they stand, into system', () => {
    assert.equal(messagesOf([{ role: 'system', content: 'You are terse.' }, hello]).system, 'You are terse.');
    const body = messagesOf([
      { role: 'system', content: [{ type: 'text', text: 'Rule one.' }, { type: 'text', text: 'Rule two.', cache_control: { type: 'ephemeral' } }] },
      hello,
      { role: 'assistant', content: 'Hi!' },
      { role: 'developer', content: 'Answer in French from now on.' },
      { role: 'user', content: 'How are you?' },
    ]);
    assert.deepEqual(body.system, [
      { type: 'text', text: 'Rule one.' },
      { type: 'text', text: 'Rule two.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Answer in French from now on.' },
    ]);
    assert.deepEqual(body.messages, [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi!' },
      { role: 'user', content: 'How are you?' },
    ]);
  });

  it('merges consecutive same-role messages and puts tool results first in their user turn', () => {
    const body = messagesOf([
      { role: 'user', content: 'Weather in Paris and Oslo?' },
      { role: 'user', content: [{ type: 'text', text: 'In Celsius.' }] },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
      { role: 'user', content: 'Quickly please.' },
      { role: 'tool', tool_call_id: 'toolu_1', content: '18°C, sunny' },
      { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: '4°C' }, { type: 'text', text: 'snow' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_3', type: 'function', function: { name: 'now', arguments: '' } }] },
      { role: 'tool', tool_call_id: 'toolu_3', content: '' },
    ]);
    assert.deepEqual(body.messages, [
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Oslo?' }, { type: 'text', text: 'In Celsius.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_2', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C, sunny' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: '4°C' }, { type: 'text', text: 'snow' }] },
          { type: 'text', text: 'Quickly please.' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'now', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3' }] },
    ]);
  });

  it('maps images (data: and http URLs) and PDF files', () => {
    const body = messagesOf([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' } },
        ],
      },
    ]);
    assert.deepEqual(body.messages[0]?.content, [
      { type: 'text', text: 'Compare these.' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' } },
    ]);
  });

  it('refuses what it cannot send: unparsable tool arguments and data: URLs are the request’s fault, audio is Anthropic’s limit', () => {
    const call = (args: string): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: args } }] });
    assert.throws(() => messagesOf([hello, call('{"city": "Par')]), rejectsWith({ statusCode: 400, isRetryable: false, message: /messages\[1\]\.tool_calls\[0\]\.function\.arguments is not valid JSON/ }));
    assert.throws(() => messagesOf([hello, call('[1,2]')]), rejectsWith({ statusCode: 400, isRetryable: false, message: /must be a JSON object/ }));
    const image = (url: string): ChatMessage => ({ role: 'user', content: [{ type: 'image_url', image_url: { url } }] });
    assert.throws(() => messagesOf([image('data:image/png,rawbytes')]), rejectsWith({ statusCode: 400, isRetryable: false, message: /base64 data: URL/ }));
    assert.throws(() => messagesOf([image('ftp://example.com/a.png')]), rejectsWith({ statusCode: 400, isRetryable: false, message: /http\(s\) URL/ }));
    const audio: ChatMessage = { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] };
    assert.throws(() => messagesOf([audio]), rejectsWith({ statusCode: 400, isRetryable: true, message: /input_audio/ }));
  });

  it('leaves empty text out, drops messages left empty, and passes an assistant-first conversation as it is', () => {
    const body = messagesOf([
      { role: 'assistant', content: 'How can I help?' },
      { role: 'user', content: '   ' },
      { role: 'user', content: [{ type: 'text', text: '' }, { type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: 'Sure: ' },
    ]);
    assert.deepEqual(body.messages, [
      { role: 'assistant', content: 'How can I help?' },
      { role: 'user', content: 'Hi' },
      // A final assistant turn is a prefill, which must not end in whitespace.
      { role: 'assistant', content: 'Sure:' },
    ]);
    assert.throws(() => messagesOf([{ role: 'system', content: 'Only a system prompt.' }]), rejectsWith({ statusCode: 400, isRetryable: false, message: /at least one/ }));
  });
});

describe('mapAnthropicFinishReason and convertAnthropicUsage', () => {
  it('maps every stop reason', () => {
    const expected = {
      end_turn: 'stop',
      stop_sequence: 'stop',
      pause_turn: 'stop',
      max_tokens: 'length',
      model_context_window_exceeded: 'length',
      tool_use: 'tool_calls',
      refusal: 'content_filter',
      something_new: 'stop',
    } as const;
    for (const [reason, finish] of Object.entries(expected)) assert.equal(mapAnthropicFinishReason(reason), finish, reason);
    assert.equal(mapAnthropicFinishReason(null), 'stop');
  });

  it('adds cache writes and reads to the prompt, and lets message_delta counts win', () => {
    assert.deepEqual(convertAnthropicUsage({ input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }), {
      promptTokens: 10,
      completionTokens: 5,
      estimated: false,
    });
    assert.deepEqual(convertAnthropicUsage({ input_tokens: 12, cache_creation_input_tokens: 2_000, cache_read_input_tokens: 30_000, output_tokens: 1 }, { output_tokens: 250 }), {
      promptTokens: 32_012,
      completionTokens: 250,
      cachedPromptTokens: 30_000,
      cacheWritePromptTokens: 2_000,
      estimated: false,
    });
    assert.deepEqual(convertAnthropicUsage({ input_tokens: 43, output_tokens: 1 }, { input_tokens: 61, output_tokens: 2 }), { promptTokens: 61, completionTokens: 2, estimated: false });
    assert.equal(convertAnthropicUsage(undefined), undefined);
    assert.equal(convertAnthropicUsage({}, null), undefined);
  });
});
