import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { startFakeGemini, type FakeGemini } from '../../../test/support/fake-gemini.js';
import { UpstreamError, type ChatModel, type ChatRequest, type StreamPart } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createGeminiChatModel } from './gemini-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const signal = () => new AbortController().signal;
const weatherParameters = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { city: { type: 'string' }, unit: { anyOf: [{ const: 'c' }, { const: 'f' }] } },
  required: ['city'],
  additionalProperties: false,
};
const tools: ChatRequest['tools'] = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: weatherParameters } },
  { type: 'function', function: { name: 'get_time' } },
];

async function drain(stream: AsyncIterable<StreamPart>): Promise<void> {
  for await (const _part of stream);
}

describe('the request createGeminiChatModel sends, over real HTTP', () => {
  let fake: FakeGemini;
  let dispatcher: Dispatcher;
  let model: ChatModel;

  /** The body the fake received for one generate call. */
  async function sent(request: ChatRequest, target: ChatModel = model): Promise<Record<string, unknown>> {
    fake.reset();
    await target.generate(request, { signal: signal() });
    const body = fake.requests[0]?.body;
    assert.ok(typeof body === 'object' && body !== null);
    return body as Record<string, unknown>;
  }

  before(async () => {
    fake = await startFakeGemini();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createGeminiChatModel({ provider: 'gemini', baseUrl: fake.baseUrl, apiKey: 'gemini-test-key', http: { dispatcher, timeouts } }, 'gemini-2.5-flash');
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('posts to models/{model}:generateContent with the key in x-goog-api-key, never in the URL', async () => {
    await model.generate({ messages: [{ role: 'user', content: 'Hello' }] }, { signal: signal() });
    const request = fake.requests[0];
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/v1beta/models/gemini-2.5-flash:generateContent');
    assert.deepEqual(request?.query, {});
    assert.equal(request?.headers['x-goog-api-key'], 'gemini-test-key');
    assert.equal(request?.headers.authorization, undefined);
    assert.match(request?.headers['content-type'] ?? '', /^application\/json/);
    assert.deepEqual(request?.body, { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }], generationConfig: { candidateCount: 1 } });
  });

  it('streams from :streamGenerateContent?alt=sse', async () => {
    await drain(await model.stream({ messages: [{ role: 'user', content: 'Hello' }] }, { signal: signal() }));
    assert.equal(fake.requests[0]?.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    assert.deepEqual(fake.requests[0]?.query, { alt: 'sse' });
    assert.equal(fake.requests[0]?.headers.accept, 'text/event-stream');
  });

  it('takes an API version, a full model name and a base URL with a trailing slash; no key, no header', async () => {
    const other = createGeminiChatModel({ provider: 'gemini', baseUrl: `${fake.baseUrl}/`, http: { dispatcher, timeouts }, apiVersion: 'v1' }, 'models/gemini-2.0-flash');
    await assert.rejects(other.generate({ messages: [{ role: 'user', content: 'Hi' }] }, { signal: signal() }), UpstreamError);
    assert.equal(fake.requests[0]?.path, '/v1/models/gemini-2.0-flash:generateContent');
    assert.equal(fake.requests[0]?.headers['x-goog-api-key'], undefined);
  });

  it('maps the generation parameters', async () => {
    const body = await sent({
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 1.7,
      top_p: 0.9,
      max_tokens: 99,
      max_completion_tokens: 50,
      stop: ['\n\n', 'END'],
      seed: 7,
      frequency_penalty: 0.5,
      presence_penalty: 0.5,
      user: 'u-1',
    });
    assert.deepEqual(body.generationConfig, { candidateCount: 1, temperature: 1.7, topP: 0.9, maxOutputTokens: 50, stopSequences: ['\n\n', 'END'], seed: 7 });
    assert.deepEqual(Object.keys(body).sort(), ['contents', 'generationConfig']);
    assert.deepEqual((await sent({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 99, stop: 'END', top_p: null, seed: null })).generationConfig, {
      candidateCount: 1,
      maxOutputTokens: 99,
      stopSequences: ['END'],
    });
  });

  it('asks for JSON, with the schema in responseJsonSchema', async () => {
    assert.deepEqual((await sent({ messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_object' } })).generationConfig, {
      candidateCount: 1,
      responseMimeType: 'application/json',
    });
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const body = await sent({
      messages: [{ role: 'user', content: 'Hi' }],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', strict: true, schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema } } },
    });
    assert.deepEqual(body.generationConfig, { candidateCount: 1, responseMimeType: 'application/json', responseJsonSchema: schema });
    assert.deepEqual((await sent({ messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'text' } })).generationConfig, { candidateCount: 1 });
  });

  it('system and developer messages become systemInstruction; consecutive turns of one role merge', async () => {
    const body = await sent({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'user', content: 'Hello' },
        { role: 'user', content: [{ type: 'text', text: 'Are you there?' }] },
        { role: 'assistant', content: 'Oui.' },
        { role: 'assistant', content: [{ type: 'text', text: 'Bonjour.' }] },
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'Merci' },
      ],
    });
    assert.deepEqual(body.systemInstruction, { parts: [{ text: 'You are terse.' }, { text: 'Answer in French.' }, { text: 'Be kind.' }] });
    assert.deepEqual(body.contents, [
      { role: 'user', parts: [{ text: 'Hello' }, { text: 'Are you there?' }] },
      { role: 'model', parts: [{ text: 'Oui.' }, { text: 'Bonjour.' }] },
      { role: 'user', parts: [{ text: 'Merci' }] },
    ]);
  });

  it('tool calls become functionCall parts and tool results functionResponse parts named after their call', async () => {
    const body = await sent({
      messages: [
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_t', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_t', content: '14:05' },
        { role: 'tool', tool_call_id: 'call_w', content: '{"temperature":21,"sky":"clear"}' },
        { role: 'tool', tool_call_id: 'call_w', content: [{ type: 'text', text: '[1,2]' }] },
        { role: 'user', content: 'Thanks' },
      ],
      tools,
    });
    assert.deepEqual(body.contents, [
      { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_time', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_time', response: { content: '14:05' } } },
          { functionResponse: { name: 'get_weather', response: { temperature: 21, sky: 'clear' } } },
          { functionResponse: { name: 'get_weather', response: { content: '[1,2]' } } },
          { text: 'Thanks' },
        ],
      },
    ]);
  });

  it('declares tools with their JSON Schema in parametersJsonSchema ($schema dropped)', async () => {
    const body = await sent({ messages: [{ role: 'user', content: 'Hi' }], tools });
    const { $schema: _dialect, ...parameters } = weatherParameters;
    assert.deepEqual(body.tools, [
      { functionDeclarations: [{ name: 'get_weather', description: 'Weather in a city', parametersJsonSchema: parameters }, { name: 'get_time' }] },
    ]);
    assert.equal('toolConfig' in body, false);
  });

  it('maps tool_choice onto functionCallingConfig', async () => {
    const cases: [unknown, unknown][] = [
      ['auto', { functionCallingConfig: { mode: 'AUTO' } }],
      ['none', { functionCallingConfig: { mode: 'NONE' } }],
      ['required', { functionCallingConfig: { mode: 'ANY' } }],
      [{ type: 'function', function: { name: 'get_time' } }, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } }],
      [
        { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_time' } }] } },
        { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_time'] } },
      ],
    ];
    for (const [choice, expected] of cases) {
      assert.deepEqual((await sent({ messages: [{ role: 'user', content: 'Hi' }], tools, tool_choice: choice })).toolConfig, expected, JSON.stringify(choice));
    }
    const auto = await sent({
      messages: [{ role: 'user', content: 'Hi' }],
      tools,
      tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_time' } }] } },
    });
    assert.deepEqual(auto.tools, [{ functionDeclarations: [{ name: 'get_time' }] }]);
    assert.deepEqual(auto.toolConfig, { functionCallingConfig: { mode: 'AUTO' } });
    assert.equal('toolConfig' in (await sent({ messages: [{ role: 'user', content: 'Hi' }], tool_choice: 'required' })), false);
  });

  it('images, audio and files: data: URLs inline, other URLs as fileData', async () => {
    const body = await sent({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in these?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.JPG?size=large' } },
            { type: 'image_url', image_url: { url: 'https://example.com/render?id=1' } },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
            { type: 'image_url', image_url: { url: 'data:text/plain,h%C3%A9' } },
          ],
        },
      ],
    });
    assert.deepEqual(body.contents, [
      {
        role: 'user',
        parts: [
          { text: 'What is in these?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.JPG?size=large' } },
          { fileData: { fileUri: 'https://example.com/render?id=1' } },
          { inlineData: { mimeType: 'audio/wav', data: 'UklGRg==' } },
          { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
          { inlineData: { mimeType: 'text/plain', data: Buffer.from('hé').toString('base64') } },
        ],
      },
    ]);
  });

  it('puts the placeholder thought signature on replayed calls for Gemini 3 only', async () => {
    const messages: ChatRequest['messages'] = [
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: 'Checking.',
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          { id: 'b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'a', content: 'rain' },
      { role: 'tool', tool_call_id: 'b', content: 'sun' },
    ];
    const gemini3 = createGeminiChatModel({ provider: 'gemini', baseUrl: fake.baseUrl, apiKey: 'gemini-test-key', http: { dispatcher, timeouts } }, 'gemini-3-flash-preview');
    const modelTurn = (await sent({ messages, tools }, gemini3)).contents as { parts: unknown[] }[];
    assert.deepEqual(modelTurn[1]?.parts, [
      { text: 'Checking.' },
      { functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'skip_thought_signature_validator' },
      { functionCall: { name: 'get_weather', args: { city: 'Rome' } } },
    ]);
    const older = (await sent({ messages, tools })).contents as { parts: unknown[] }[];
    assert.deepEqual(older[1]?.parts?.[1], { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } });
  });

  describe('requests that cannot be mapped fail before any HTTP', () => {
    const cases: [string, ChatRequest, { retryable: boolean; message: RegExp }][] = [
      [
        'tool arguments that are not JSON',
        { messages: [{ role: 'assistant', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '{"city": Paris}' } }] }] },
        { retryable: false, message: /tool call arguments must be a JSON object, got "\{\\"city\\": Paris\}"/ },
      ],
      [
        'tool arguments that are JSON but no object',
        { messages: [{ role: 'assistant', tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: '[1]' } }] }] },
        { retryable: false, message: /must be a JSON object/ },
      ],
      ['a tool result for no call', { messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }, { retryable: false, message: /"nope" answers no earlier tool call/ }],
      [
        'an OpenAI file id (another provider may read it)',
        { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] },
        { retryable: true, message: /cannot read OpenAI file ids/ },
      ],
    ];
    for (const [name, request, expected] of cases) {
      it(name, async () => {
        const check = (error: unknown) => {
          assert.ok(error instanceof UpstreamError);
          assert.equal(error.kind, 'http');
          assert.equal(error.statusCode, 400);
          assert.equal(error.isRetryable, expected.retryable);
          assert.match(error.message, expected.message);
          return true;
        };
        await assert.rejects(model.generate(request, { signal: signal() }), check);
        await assert.rejects(model.stream(request, { signal: signal() }), check);
        assert.equal(fake.requests.length, 0);
      });
    }
  });
});
