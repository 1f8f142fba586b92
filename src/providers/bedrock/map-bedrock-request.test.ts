import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UpstreamError, type ChatRequest } from '../contract.js';
import { mapBedrockRequest } from './map-bedrock-request.js';

const haiku = { provider: 'bedrock', modelId: 'anthropic.claude-3-5-haiku-20241022-v1:0' };
const llama = { provider: 'bedrock', modelId: 'meta.llama3-1-70b-instruct-v1:0' };
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
} as const;

function rejects(request: ChatRequest, expected: { statusCode: number; isRetryable: boolean; message: RegExp }, options = haiku): void {
  assert.throws(
    () => mapBedrockRequest(request, options),
    (error: unknown) => {
      assert.ok(error instanceof UpstreamError);
      assert.equal(error.statusCode, expected.statusCode);
      assert.equal(error.isRetryable, expected.isRetryable);
      assert.match(error.message, expected.message);
      return true;
    },
  );
}

describe('mapBedrockRequest: the OpenAI request as a Converse body', () => {
  it('lifts system and developer text into system, in order, and sends content as blocks', () => {
    const body = mapBedrockRequest(
      {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
          { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        ],
      },
      haiku,
    );
    assert.deepEqual(body, { messages: [{ role: 'user', content: [{ text: 'Hi' }] }], system: [{ text: 'Be brief.' }, { text: 'Answer in French.' }] });
  });

  it('maps a multi-turn conversation with tool calls and results, merging turns so roles alternate', () => {
    const body = mapBedrockRequest(
      {
        messages: [
          { role: 'user', content: 'Weather in Paris and Oslo?' },
          { role: 'user', content: [{ type: 'text', text: 'Celsius please.' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } }] },
          {
            role: 'assistant',
            content: 'Checking.  ',
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 21, "sky": "clear"}' },
          { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'Oslo: 12°C' }] },
          { role: 'user', content: 'And tomorrow?' },
          { role: 'assistant', content: 'Tomorrow it will be   ' },
        ],
        tools: [weatherTool],
      },
      haiku,
    );
    assert.deepEqual(body.messages, [
      {
        role: 'user',
        content: [{ text: 'Weather in Paris and Oslo?' }, { text: 'Celsius please.' }, { image: { format: 'png', source: { bytes: PIXEL } } }],
      },
      {
        role: 'assistant',
        content: [
          { text: 'Checking.  ' },
          { toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'call_2', name: 'get_weather', input: {} } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'call_1', content: [{ json: { temp: 21, sky: 'clear' } }] } },
          { toolResult: { toolUseId: 'call_2', content: [{ text: 'Oslo: 12°C' }] } },
          { text: 'And tomorrow?' },
        ],
      },
      // A final assistant turn is a prefill: Bedrock refuses trailing whitespace there.
      { role: 'assistant', content: [{ text: 'Tomorrow it will be' }] },
    ]);
  });

  it('leaves out blank text, drops messages left empty, and says an empty tool result in words', () => {
    const body = mapBedrockRequest(
      {
        messages: [
          { role: 'system', content: '   ' },
          { role: 'user', content: [{ type: 'text', text: ' ' }, { type: 'text', text: 'Run it' }] },
          { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'run', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: '' },
          { role: 'assistant', content: '\n' },
          { role: 'user', content: 'Thanks' },
        ],
        tools: [{ type: 'function', function: { name: 'run' } }],
      },
      haiku,
    );
    assert.equal(body.system, undefined);
    assert.deepEqual(body.messages, [
      { role: 'user', content: [{ text: 'Run it' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'call_1', name: 'run', input: {} } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: '(empty result)' }] } }, { text: 'Thanks' }] },
    ]);
    assert.deepEqual(body.toolConfig, { tools: [{ toolSpec: { name: 'run', inputSchema: { json: { type: 'object', properties: {} } } } }] });
  });

  it('maps the inference parameters: limits, temperature clamped to Bedrock\'s 0–1, stop sequences', () => {
    const body = mapBedrockRequest(
      { messages: [{ role: 'user', content: 'Hi' }], max_tokens: 100, max_completion_tokens: 200, temperature: 1.5, top_p: 0.9, stop: ['\n\n', '', 'END'] },
      llama,
    );
    assert.deepEqual(body.inferenceConfig, { maxTokens: 200, temperature: 1, topP: 0.9, stopSequences: ['\n\n', 'END'] });
    assert.deepEqual(mapBedrockRequest({ messages: [{ role: 'user', content: 'Hi' }], stop: 'STOP', top_p: 0.5 }, llama).inferenceConfig, {
      stopSequences: ['STOP'],
      topP: 0.5,
    });
    assert.deepEqual(mapBedrockRequest({ messages: [{ role: 'user', content: 'Hi' }] }, { ...llama, defaultMaxTokens: 4096 }).inferenceConfig, { maxTokens: 4096 });
    assert.equal(mapBedrockRequest({ messages: [{ role: 'user', content: 'Hi' }] }, llama).inferenceConfig, undefined);
  });

  it('for Anthropic models temperature wins over top_p (recent Claude models refuse both)', () => {
    const request: ChatRequest = { messages: [{ role: 'user', content: 'Hi' }], temperature: 0.7, top_p: 0.9 };
    assert.deepEqual(mapBedrockRequest(request, haiku).inferenceConfig, { temperature: 0.7 });
    assert.deepEqual(mapBedrockRequest(request, { provider: 'bedrock', modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0' }).inferenceConfig, { temperature: 0.7 });
    assert.deepEqual(mapBedrockRequest(request, llama).inferenceConfig, { temperature: 0.7, topP: 0.9 });
  });

  it('maps tools and every tool_choice', () => {
    const base: ChatRequest = { messages: [{ role: 'user', content: 'Hi' }], tools: [weatherTool, { type: 'function', function: { name: 'noop', description: '' } }] };
    const tools = [
      { toolSpec: { name: 'get_weather', description: 'Weather in a city', inputSchema: { json: weatherTool.function.parameters } } },
      { toolSpec: { name: 'noop', inputSchema: { json: { type: 'object', properties: {} } } } },
    ];
    assert.deepEqual(mapBedrockRequest(base, haiku).toolConfig, { tools });
    assert.deepEqual(mapBedrockRequest({ ...base, tool_choice: 'auto' }, haiku).toolConfig, { tools, toolChoice: { auto: {} } });
    assert.deepEqual(mapBedrockRequest({ ...base, tool_choice: 'required' }, haiku).toolConfig, { tools, toolChoice: { any: {} } });
    assert.deepEqual(mapBedrockRequest({ ...base, tool_choice: { type: 'function', function: { name: 'noop' } } }, haiku).toolConfig, {
      tools,
      toolChoice: { tool: { name: 'noop' } },
    });
    // Converse has no "none": the tools are withheld…
    assert.equal(mapBedrockRequest({ ...base, tool_choice: 'none' }, haiku).toolConfig, undefined);
    // …unless the conversation holds tool blocks, which Converse refuses without a toolConfig.
    const withHistory: ChatRequest = {
      ...base,
      tool_choice: 'none',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'noop', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'done' },
      ],
    };
    assert.deepEqual(mapBedrockRequest(withHistory, haiku).toolConfig, { tools });
    rejects({ ...base, tool_choice: 'sometimes' }, { statusCode: 400, isRetryable: false, message: /tool_choice must be/ });
  });

  it('declares tools the conversation called when the request no longer lists them', () => {
    const body = mapBedrockRequest(
      {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'found' },
        ],
      },
      haiku,
    );
    assert.deepEqual(body.toolConfig, { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object', properties: {} } } } }] });
  });

  it('turns response_format into a system instruction', () => {
    const body = mapBedrockRequest(
      { messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } } },
      haiku,
    );
    assert.match(body.system?.[0]?.text ?? '', /^Answer with one valid JSON value that conforms to this JSON schema[\s\S]*\{"type":"object"\}/);
  });

  it('refuses what it cannot map: malformed input for good, unsupported input retryably', () => {
    rejects(
      { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }] },
      { statusCode: 400, isRetryable: false, message: /arguments is not valid JSON/ },
    );
    rejects({ messages: [{ role: 'tool', content: 'x' }] }, { statusCode: 400, isRetryable: false, message: /needs 'tool_call_id'/ });
    rejects({ messages: [{ role: 'system', content: 'Only a system prompt' }] }, { statusCode: 400, isRetryable: false, message: /at least one user or assistant message/ });
    rejects({ messages: [{ role: 'assistant', content: 'Hello! How can I help?' }, { role: 'user', content: 'Hi' }] }, {
      statusCode: 400,
      isRetryable: true,
      message: /start with a user message/,
    });
    rejects({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }] }, {
      statusCode: 400,
      isRetryable: true,
      message: /data: URLs only/,
    });
    rejects({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,AAAA' } }] }] }, {
      statusCode: 400,
      isRetryable: true,
      message: /not image\/bmp/,
    });
    rejects({ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } }] }] }, {
      statusCode: 400,
      isRetryable: true,
      message: /does not take 'input_audio'/,
    });
  });
});
