import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import { azureErrors, requestedDeployment, startFakeAzureOpenAI, type FakeAzureOpenAI } from '../../../test/support/fake-azure-openai.js';
import type { FakeAnswer } from '../../../test/support/fake-openai.js';
import { UpstreamError, type ChatModel, type ChatRequest, type StreamPart, type UpstreamErrorKind } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { findPreset, readProviderCredentials } from '../credentials/provider-presets.js';
import { AZURE_DEFAULT_API_VERSION, createAzureChatModel } from './azure-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
} as const;

const signal = (): AbortSignal => new AbortController().signal;

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const textOf = (parts: readonly StreamPart[]): string => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');

function toolCallsOf(parts: readonly StreamPart[]): { id: string | undefined; name: string | undefined; arguments: string }[] {
  const calls: { id: string | undefined; name: string | undefined; arguments: string }[] = [];
  for (const part of parts) {
    if (part.type !== 'tool-call-delta') continue;
    const call = (calls[part.index] ??= { id: undefined, name: undefined, arguments: '' });
    if (part.id !== undefined) call.id = part.id;
    if (part.name !== undefined) call.name = part.name;
    call.arguments += part.argumentsDelta;
  }
  return calls;
}

function expectUpstreamError(expected: { kind: UpstreamErrorKind; statusCode?: number; isRetryable: boolean; message?: RegExp; retryAfterMs?: number }) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.provider, 'azure');
    assert.equal(error.kind, expected.kind, error.message);
    assert.equal(error.statusCode, expected.statusCode);
    assert.equal(error.isRetryable, expected.isRetryable);
    if (expected.message !== undefined) assert.match(error.message, expected.message);
    if ('retryAfterMs' in expected) assert.equal(error.retryAfterMs, expected.retryAfterMs);
    return true;
  };
}

describe('createAzureChatModel against a fake Azure OpenAI resource over real HTTP', () => {
  let fake: FakeAzureOpenAI;
  let dispatcher: Dispatcher;
  let model: ChatModel;

  before(async () => {
    fake = await startFakeAzureOpenAI({ apiKey: 'azure-key', deployments: { 'prod-4o-mini': 'gpt-4o-mini', 'my deployment': 'gpt-4o' } });
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createAzureChatModel({ provider: 'azure', endpoint: fake.endpoint, apiKey: 'azure-key', http: { dispatcher, timeouts } }, 'prod-4o-mini');
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  it('posts to the deployment with api-version and the api-key header, and no model in the body', async () => {
    fake.enqueue({ type: 'answer', content: 'Hi from Azure.', usage: { prompt_tokens: 9, completion_tokens: 4 } });
    const result = await model.generate({ ...hello, temperature: 0.3, max_tokens: 64, top_p: 0.5, user: 'u-1' }, { signal: signal() });
    assert.deepEqual(result.message, { content: 'Hi from Azure.' });
    assert.equal(result.finishReason, 'stop');
    assert.deepEqual(result.usage, { promptTokens: 9, completionTokens: 4, estimated: false });

    const sent = fake.chatRequests()[0] ?? assert.fail('no request');
    assert.equal(sent.path, `/openai/deployments/prod-4o-mini/chat/completions?api-version=${AZURE_DEFAULT_API_VERSION}`);
    assert.equal(sent.headers['api-key'], 'azure-key');
    assert.equal(sent.headers.authorization, undefined);
    assert.deepEqual(sent.body, { messages: hello.messages, temperature: 0.3, max_tokens: 64, top_p: 0.5, user: 'u-1', stream: false });
  });

  it('takes the endpoint with a trailing slash or /openai, encodes the deployment, and sends the api-version asked for', async () => {
    const spaced = createAzureChatModel(
      { provider: 'azure', endpoint: `${fake.endpoint}/openai/`, apiKey: 'azure-key', apiVersion: '2025-01-01-preview', http: { dispatcher, timeouts } },
      'my deployment',
    );
    await spaced.generate(hello, { signal: signal() });
    const sent = fake.chatRequests()[0] ?? assert.fail('no request');
    assert.equal(sent.path, '/openai/deployments/my%20deployment/chat/completions?api-version=2025-01-01-preview');
    assert.equal(requestedDeployment(sent.path), 'my deployment');
  });

  it('streams text past the prompt-filter chunk and the filter verdicts, always asking for usage', async () => {
    fake.enqueue({ type: 'answer', content: 'Grüße aus Zürich — 東京 🎉', usage: { prompt_tokens: 12, completion_tokens: 11, cached_tokens: 4 } });
    const parts = await collect(await model.stream(hello, { signal: signal() }));
    assert.equal(textOf(parts), 'Grüße aus Zürich — 東京 🎉');
    assert.deepEqual(parts.slice(-2), [
      { type: 'finish', finishReason: 'stop' },
      { type: 'usage', usage: { promptTokens: 12, completionTokens: 11, cachedPromptTokens: 4, estimated: false } },
    ]);
    const sent = fake.chatRequests()[0] ?? assert.fail('no request');
    assert.equal(sent.headers.accept, 'text/event-stream');
    assert.deepEqual(sent.body, { messages: hello.messages, stream: true, stream_options: { include_usage: true } });
  });

  it('with an api-version older than streaming usage, streams without stream_options (Azure would refuse it)', async () => {
    const older = createAzureChatModel(
      { provider: 'azure', endpoint: fake.endpoint, apiKey: 'azure-key', apiVersion: '2024-06-01', http: { dispatcher, timeouts } },
      'prod-4o-mini',
    );
    fake.enqueue({ type: 'answer', content: 'No usage here.' });
    const parts = await collect(await older.stream({ ...hello, stream_options: { include_usage: true } }, { signal: signal() }));
    assert.equal(textOf(parts), 'No usage here.');
    assert.deepEqual(parts.at(-1), { type: 'finish', finishReason: 'stop' });
    assert.deepEqual(fake.chatRequests()[0]?.body, { messages: hello.messages, stream: true });
  });

  it('reads tool calls, complete and streamed with their arguments put back exactly', async () => {
    const first = '{"city":"Paris","note":"a \\"quoted\\" ünïcödé 🌧"}';
    const second = '{"city":"東京"}';
    const answer: FakeAnswer = {
      type: 'answer',
      argumentsPieceLength: 3,
      toolCalls: [
        { id: 'call_1', name: 'get_weather', arguments: first },
        { id: 'call_2', name: 'get_weather', arguments: second },
      ],
    };
    fake.enqueue(answer, answer);
    const result = await model.generate({ ...hello, tools: [weatherTool], tool_choice: 'auto' }, { signal: signal() });
    assert.equal(result.finishReason, 'tool_calls');
    assert.deepEqual(result.message.toolCalls, [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: first } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: second } },
    ]);
    const parts = await collect(await model.stream({ ...hello, tools: [weatherTool] }, { signal: signal() }));
    assert.deepEqual(toolCallsOf(parts), [
      { id: 'call_1', name: 'get_weather', arguments: first },
      { id: 'call_2', name: 'get_weather', arguments: second },
    ]);
    assert.deepEqual((fake.chatRequests()[0]?.body as { tools?: unknown }).tools, [weatherTool]);
  });

  for (const finishReason of ['stop', 'length', 'tool_calls', 'content_filter'] as const) {
    it(`maps finish_reason "${finishReason}" without and with streaming`, async () => {
      const answer: FakeAnswer = {
        type: 'answer',
        content: 'Partial',
        finishReason,
        ...(finishReason === 'tool_calls' ? { toolCalls: [{ name: 'get_weather', arguments: '{}' }] } : {}),
      };
      fake.enqueue(answer, answer);
      assert.equal((await model.generate(hello, { signal: signal() })).finishReason, finishReason);
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.deepEqual(parts.filter((part) => part.type === 'finish'), [{ type: 'finish', finishReason }]);
    });
  }

  it('one-byte writes of an Azure stream give the same parts as whole events', async () => {
    const answer: FakeAnswer = {
      type: 'answer',
      content: 'ÆØÅ — 😀',
      toolCalls: [{ id: 'call_r', name: 'lookup', arguments: '{"q":"ß∂ƒ©"}' }],
      usage: { prompt_tokens: 5, completion_tokens: 6 },
    };
    fake.enqueue(answer, { ...answer, transport: { writeSizes: [1] } });
    const whole = await collect(await model.stream(hello, { signal: signal() }));
    assert.deepEqual(await collect(await model.stream(hello, { signal: signal() })), whole);
  });

  describe('errors', () => {
    it('a wrong key: 401, retryable elsewhere, the message names no key', async () => {
      const wrong = createAzureChatModel({ provider: 'azure', endpoint: fake.endpoint, apiKey: 'nope', http: { dispatcher, timeouts } }, 'prod-4o-mini');
      await assert.rejects(
        wrong.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 401, isRetryable: true, message: /^azure refused the gateway's credentials \(HTTP 401, 401\)$/ }),
      );
    });

    it('an unknown deployment or api-version: 404, retryable elsewhere', async () => {
      const missing = createAzureChatModel({ provider: 'azure', endpoint: fake.endpoint, apiKey: 'azure-key', http: { dispatcher, timeouts } }, 'gpt-5-nowhere');
      await assert.rejects(missing.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 404, isRetryable: true, message: /deployment for this resource does not exist/ }));
      const oldVersion = createAzureChatModel(
        { provider: 'azure', endpoint: fake.endpoint, apiKey: 'azure-key', apiVersion: '2022-12-01', http: { dispatcher, timeouts } },
        'prod-4o-mini',
      );
      await assert.rejects(oldVersion.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 404, isRetryable: true, message: /Resource not found/ }));
    });

    it('a prompt the content filter stops: 400 content_filter, the request is at fault and is not retried', async () => {
      fake.enqueue(azureErrors.contentFilter(), azureErrors.contentFilter());
      const check = expectUpstreamError({ kind: 'http', statusCode: 400, isRetryable: false, message: /content management policy/ });
      await assert.rejects(model.generate(hello, { signal: signal() }), check);
      await assert.rejects(model.stream(hello, { signal: signal() }), (error: unknown) => {
        check(error);
        assert.match((error as UpstreamError).responseBody ?? '', /"code": "content_filter"/);
        return true;
      });
    });

    it('429 honours retry-after-ms first, else retry-after in seconds', async () => {
      fake.enqueue(azureErrors.rateLimited(5_400), azureErrors.rateLimitedSeconds(7));
      await assert.rejects(
        model.generate(hello, { signal: signal() }),
        expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true, retryAfterMs: 5_400, message: /^azure rate-limited the gateway's account \(HTTP 429, 429\)$/ }),
      );
      await assert.rejects(model.stream(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 429, isRetryable: true, retryAfterMs: 7_000 }));
    });

    it('500: retryable, with the upstream message', async () => {
      fake.enqueue(azureErrors.serverError());
      await assert.rejects(model.generate(hello, { signal: signal() }), expectUpstreamError({ kind: 'http', statusCode: 500, isRetryable: true, message: /had an error while processing/ }));
    });

    it('a connection reset mid-stream: the parts so far, then a connection error', async () => {
      fake.enqueue({ type: 'answer', content: 'alpha beta gamma delta', transport: { resetAfterEvents: 4 } });
      const seen: StreamPart[] = [];
      await assert.rejects(
        (async () => {
          for await (const part of await model.stream(hello, { signal: signal() })) seen.push(part);
        })(),
        expectUpstreamError({ kind: 'connection', isRetryable: true }),
      );
      // The prompt-filter chunk and the role chunk come first: two words made it.
      assert.equal(textOf(seen), 'alpha beta');
    });
  });
});

describe('Azure OpenAI configuration from the environment', () => {
  it('is configured by AZURE_OPENAI_API_KEY and AZURE_OPENAI_ENDPOINT, with an optional api-version', () => {
    assert.equal(readProviderCredentials({ AZURE_OPENAI_API_KEY: 'k' }).get('azure'), undefined);
    assert.equal(readProviderCredentials({ AZURE_OPENAI_ENDPOINT: 'https://myres.openai.azure.com' }).get('azure'), undefined);
    assert.deepEqual(readProviderCredentials({ AZURE_OPENAI_API_KEY: 'k', AZURE_OPENAI_ENDPOINT: 'https://myres.openai.azure.com' }).get('azure'), {
      apiKey: 'k',
      baseUrl: 'https://myres.openai.azure.com',
    });
    assert.deepEqual(
      readProviderCredentials({ AZURE_OPENAI_API_KEY: 'k', AZURE_OPENAI_ENDPOINT: 'https://myres.openai.azure.com', AZURE_OPENAI_API_VERSION: '2025-01-01-preview' }).get('azure'),
      { apiKey: 'k', baseUrl: 'https://myres.openai.azure.com', options: { apiVersion: '2025-01-01-preview' } },
    );
    assert.equal(findPreset('azure')?.wireFormat, 'azure');
  });
});
