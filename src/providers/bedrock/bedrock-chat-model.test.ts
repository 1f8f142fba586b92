import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Dispatcher } from 'undici';
import {
  FAKE_AWS_CREDENTIALS,
  startFakeBedrock,
  type FakeBedrock,
  type FakeBedrockAnswer,
  type FakeStopReason,
  type RecordedBedrockRequest,
} from '../../../test/support/fake-bedrock.js';
import type { ChatModel, ChatRequest, FinishReason, StreamPart } from '../contract.js';
import { createUpstreamDispatcher, type UpstreamTimeouts } from '../transport/http-client.js';
import { createBedrockChatModel } from './bedrock-chat-model.js';

const timeouts: UpstreamTimeouts = { connectMs: 1_000, firstByteMs: 2_000, idleMs: 2_000, totalMs: 10_000 };
const HAIKU = 'anthropic.claude-3-5-haiku-20241022-v1:0';
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

/** Tool calls put back together from their deltas, by index; an id comes once, with the name. */
function toolCallsOf(parts: readonly StreamPart[]): { id: string | undefined; name: string | undefined; arguments: string }[] {
  const calls: { id: string | undefined; name: string | undefined; arguments: string }[] = [];
  for (const part of parts) {
    if (part.type !== 'tool-call-delta') continue;
    const call = (calls[part.index] ??= { id: undefined, name: undefined, arguments: '' });
    if (part.id !== undefined) {
      assert.equal(call.id, undefined, 'a call id is sent once');
      call.id = part.id;
    }
    if (part.name !== undefined) call.name = part.name;
    call.arguments += part.argumentsDelta;
  }
  return calls;
}

const hmac = (key: string | Buffer, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');

/**
 * SigV4 computed by hand from the AWS specification, without the signing library
 * the adapter and the fake share: canonical request, string to sign, derived key.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 */
function handSignature(sent: RecordedBedrockRequest, secret: string, region: string): string {
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(String(sent.headers.authorization))?.[1]?.split(';') ?? [];
  const amzDate = String(sent.headers['x-amz-date']);
  // Every AWS service but S3 takes the path URI-encoded twice: %3A becomes %253A.
  const canonicalPath = sent.path.split('/').map((segment) => encodeURIComponent(segment)).join('/');
  const canonicalRequest = [
    'POST',
    canonicalPath,
    '',
    ...signedHeaders.map((name) => `${name}:${String(sent.headers[name]).trim()}`),
    '',
    signedHeaders.join(';'),
    sha256(sent.rawBody),
  ].join('\n');
  const scope = `${amzDate.slice(0, 8)}/${region}/bedrock/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, amzDate.slice(0, 8)), region), 'bedrock'), 'aws4_request');
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

describe('createBedrockChatModel against a fake bedrock-runtime over real HTTP', () => {
  let fake: FakeBedrock;
  let dispatcher: Dispatcher;
  let model: ChatModel;

  before(async () => {
    fake = await startFakeBedrock();
    dispatcher = createUpstreamDispatcher(timeouts);
    model = createBedrockChatModel({ provider: 'bedrock', region: 'us-east-1', baseUrl: fake.baseUrl, credentials: FAKE_AWS_CREDENTIALS, http: { dispatcher, timeouts } }, HAIKU);
  });
  after(async () => {
    await dispatcher.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  describe('requests', () => {
    it('posts the Converse body to /model/{encoded id}/converse, signed with SigV4 for bedrock', async () => {
      fake.enqueue({ type: 'answer', text: 'Hi there! 👋', usage: { inputTokens: 9, outputTokens: 4 } });
      const result = await model.generate({ ...hello, temperature: 0.2, max_tokens: 50, stop: ['\n\n'], seed: 7 }, { signal: signal() });
      assert.deepEqual(result, { message: { content: 'Hi there! 👋' }, finishReason: 'stop', usage: { promptTokens: 9, completionTokens: 4, estimated: false } });

      const sent = fake.converseRequests()[0] ?? assert.fail('no accepted request');
      assert.equal(sent.method, 'POST');
      assert.equal(sent.path, '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
      assert.equal(sent.modelId, HAIKU);
      assert.match(sent.headers['content-type'] ?? '', /^application\/json/);
      assert.equal(sent.headers.accept, 'application/json');
      assert.match(String(sent.headers['x-amz-date']), /^\d{8}T\d{6}Z$/);
      assert.equal(sent.headers['x-amz-content-sha256'], sha256(sent.rawBody));
      assert.match(
        String(sent.headers.authorization),
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/,
      );
      assert.equal(/Signature=([0-9a-f]{64})/.exec(String(sent.headers.authorization))?.[1], handSignature(sent, FAKE_AWS_CREDENTIALS.secretAccessKey, 'us-east-1'));
      assert.deepEqual(sent.body, {
        messages: [{ role: 'user', content: [{ text: 'Hello' }] }],
        inferenceConfig: { maxTokens: 50, temperature: 0.2, stopSequences: ['\n\n'] },
      });
    });

    it('signs temporary credentials with x-amz-security-token, and inference-profile ids and ARNs go encoded', async () => {
      const tokenFake = await startFakeBedrock({ credentials: { ...FAKE_AWS_CREDENTIALS, sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//token==' }, region: 'eu-west-1' });
      try {
        for (const modelId of ['eu.anthropic.claude-sonnet-4-20250514-v1:0', 'arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.amazon.nova-lite-v1:0']) {
          const temporary = createBedrockChatModel(
            { provider: 'bedrock', region: 'eu-west-1', baseUrl: `${tokenFake.baseUrl}/`, credentials: tokenFake.credentials, http: { dispatcher, timeouts } },
            modelId,
          );
          assert.equal(textOf(await collect(await temporary.stream(hello, { signal: signal() }))), 'Hello! How can I help you today?');
          const sent = tokenFake.converseRequests().at(-1) ?? assert.fail('no accepted request');
          assert.equal(sent.path, `/model/${encodeURIComponent(modelId)}/converse-stream`);
          assert.equal(sent.modelId, modelId);
          assert.equal(sent.headers['x-amz-security-token'], 'IQoJb3JpZ2luX2VjEXAMPLE//token==');
          assert.match(String(sent.headers.authorization), /SignedHeaders=content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token,/);
          assert.equal(sent.headers.accept, 'application/vnd.amazon.eventstream');
          assert.equal(/Signature=([0-9a-f]{64})/.exec(String(sent.headers.authorization))?.[1], handSignature(sent, FAKE_AWS_CREDENTIALS.secretAccessKey, 'eu-west-1'));
        }
      } finally {
        await tokenFake.close();
      }
    });

    it('sends a multi-turn conversation with tool results the way Converse validates it', async () => {
      fake.enqueue({ type: 'answer', text: 'Paris is sunny, Oslo is cold.' });
      const result = await model.generate(
        {
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Weather in Paris and Oslo?' },
            {
              role: 'assistant',
              content: null,
              tool_calls: [
                { id: 'tooluse_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
                { id: 'tooluse_2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
              ],
            },
            { role: 'tool', tool_call_id: 'tooluse_1', content: '{"sky":"sunny"}' },
            { role: 'tool', tool_call_id: 'tooluse_2', content: 'cold' },
          ],
          tools: [weatherTool],
          tool_choice: 'auto',
        },
        { signal: signal() },
      );
      assert.equal(result.message.content, 'Paris is sunny, Oslo is cold.');
      const sent = fake.converseRequests()[0] ?? assert.fail('the fake refused the body');
      assert.deepEqual((sent.body as { messages: unknown[] }).messages.at(-1), {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'tooluse_1', content: [{ json: { sky: 'sunny' } }] } },
          { toolResult: { toolUseId: 'tooluse_2', content: [{ text: 'cold' }] } },
        ],
      });
      assert.deepEqual((sent.body as { toolConfig?: unknown }).toolConfig, {
        tools: [{ toolSpec: { name: 'get_weather', description: 'Weather in a city', inputSchema: { json: weatherTool.function.parameters } } }],
        toolChoice: { auto: {} },
      });
    });
  });

  describe('answers', () => {
    it('streams text with multi-byte characters, then finish and usage', async () => {
      fake.enqueue({ type: 'answer', text: 'Grüße aus Zürich — 日本語 🎉!', usage: { inputTokens: 12, outputTokens: 11 } });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.equal(textOf(parts), 'Grüße aus Zürich — 日本語 🎉!');
      assert.deepEqual(parts.slice(-2), [
        { type: 'finish', finishReason: 'stop' },
        { type: 'usage', usage: { promptTokens: 12, completionTokens: 11, estimated: false } },
      ]);
    });

    it('reads tool calls from a complete answer, text first', async () => {
      fake.enqueue({
        type: 'answer',
        text: 'Let me check.',
        toolUses: [
          { id: 'tooluse_a', name: 'get_weather', input: { city: 'Paris' } },
          { id: 'tooluse_b', name: 'get_weather', input: { city: 'Zürich, "CH"' } },
          { id: 'tooluse_c', name: 'noop', input: {} },
        ],
      });
      const result = await model.generate({ ...hello, tools: [weatherTool, { type: 'function', function: { name: 'noop' } }] }, { signal: signal() });
      assert.equal(result.finishReason, 'tool_calls');
      assert.deepEqual(result.message, {
        content: 'Let me check.',
        toolCalls: [
          { id: 'tooluse_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'tooluse_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich, \\"CH\\""}' } },
          { id: 'tooluse_c', type: 'function', function: { name: 'noop', arguments: '{}' } },
        ],
      });
    });

    it('streams tool calls with their input put back exactly, and "{}" for a call without input', async () => {
      const first = '{"city": "Paris", "unit":"celsius", "note":"a \\"quoted\\" ünïcödé 🌧"}';
      fake.enqueue({
        type: 'answer',
        text: 'Checking.',
        inputPieceLength: 3,
        toolUses: [
          { id: 'tooluse_1', name: 'get_weather', input: {}, inputJson: first },
          { id: 'tooluse_2', name: 'get_time', input: { tz: '東京' } },
          { id: 'tooluse_3', name: 'noop', input: {}, inputJson: '' },
        ],
      });
      const parts = await collect(await model.stream({ ...hello, tools: [weatherTool] }, { signal: signal() }));
      assert.equal(textOf(parts), 'Checking.');
      assert.deepEqual(toolCallsOf(parts), [
        { id: 'tooluse_1', name: 'get_weather', arguments: first },
        { id: 'tooluse_2', name: 'get_time', arguments: '{"tz":"東京"}' },
        { id: 'tooluse_3', name: 'noop', arguments: '{}' },
      ]);
      assert.deepEqual(parts.filter((part) => part.type === 'finish'), [{ type: 'finish', finishReason: 'tool_calls' }]);
      assert.ok(parts.findLastIndex((part) => part.type === 'text-delta') < parts.findIndex((part) => part.type === 'tool-call-delta'));
    });

    const stopReasons: readonly [FakeStopReason, FinishReason][] = [
      ['end_turn', 'stop'],
      ['stop_sequence', 'stop'],
      ['max_tokens', 'length'],
      ['tool_use', 'tool_calls'],
      ['guardrail_intervened', 'content_filter'],
      ['content_filtered', 'content_filter'],
    ];
    for (const [stopReason, finishReason] of stopReasons) {
      it(`maps stopReason "${stopReason}" to "${finishReason}" without and with streaming`, async () => {
        const answer: FakeBedrockAnswer = {
          type: 'answer',
          text: 'Partial',
          stopReason,
          ...(stopReason === 'tool_use' ? { toolUses: [{ name: 'get_weather', input: {} }] } : {}),
        };
        fake.enqueue(answer, answer);
        assert.equal((await model.generate(hello, { signal: signal() })).finishReason, finishReason);
        const parts = await collect(await model.stream(hello, { signal: signal() }));
        assert.deepEqual(parts.filter((part) => part.type === 'finish'), [{ type: 'finish', finishReason }]);
      });
    }

    it('counts cache reads and writes as prompt tokens, reads as cached, complete and streamed', async () => {
      const usage = { inputTokens: 24, outputTokens: 300, cacheReadInputTokens: 1_600, cacheWriteInputTokens: 400 };
      fake.enqueue({ type: 'answer', usage }, { type: 'answer', usage });
      const expected = { promptTokens: 2_024, completionTokens: 300, cachedPromptTokens: 1_600, cacheWritePromptTokens: 400, estimated: false };
      assert.deepEqual((await model.generate(hello, { signal: signal() })).usage, expected);
      assert.deepEqual((await collect(await model.stream(hello, { signal: signal() }))).at(-1), { type: 'usage', usage: expected });
    });

    it('a stream without its metadata event is complete, only without usage', async () => {
      fake.enqueue({ type: 'answer', text: 'Short.', omitMetadata: true });
      const parts = await collect(await model.stream(hello, { signal: signal() }));
      assert.equal(textOf(parts), 'Short.');
      assert.deepEqual(parts.at(-1), { type: 'finish', finishReason: 'stop' });
    });
  });

  it('one captured event stream, re-delivered cut at every byte boundary, always gives the same parts', async () => {
    // Capture: text with multi-byte characters, two tool calls, usage with cache reads.
    fake.enqueue({
      type: 'answer',
      text: 'Née à Zürich — 東京 🎉',
      textPieces: ['Né', 'e à Zü', 'rich — 東', '京 🎉'],
      toolUses: [
        { id: 'tooluse_1', name: 'get_weather', input: { city: 'Zürich 🇨🇭' } },
        { id: 'tooluse_2', name: 'get_time', input: { tz: 'Asia/東京' } },
      ],
      inputPieceLength: 6,
      usage: { inputTokens: 30, outputTokens: 20, cacheReadInputTokens: 10 },
    });
    const expected = await collect(await model.stream(hello, { signal: signal() }));
    const bytes = Buffer.concat(fake.requests[0]?.sent ?? assert.fail('nothing captured'));
    assert.equal(textOf(expected), 'Née à Zürich — 東京 🎉');
    assert.deepEqual(toolCallsOf(expected), [
      { id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Zürich 🇨🇭"}' },
      { id: 'tooluse_2', name: 'get_time', arguments: '{"tz":"Asia/東京"}' },
    ]);
    assert.deepEqual(expected.slice(-2), [
      { type: 'finish', finishReason: 'tool_calls' },
      { type: 'usage', usage: { promptTokens: 40, completionTokens: 20, cachedPromptTokens: 10, estimated: false } },
    ]);

    // Delivery k cuts the bytes at k, k + STRIDE, k + 2·STRIDE…, every cut its own
    // write and its own read; k = 1…STRIDE puts a cut at every byte boundary once.
    const STRIDE = 64;
    const covered = new Set<number>();
    const failures: string[] = [];
    for (let first = 1; first <= STRIDE; first += 1) {
      for (let cut = first; cut < bytes.length; cut += STRIDE) covered.add(cut);
      fake.enqueue({ type: 'raw', body: bytes, transport: { writeSizes: [first, ...Array.from({ length: Math.ceil(bytes.length / STRIDE) }, () => STRIDE)] } });
      try {
        assert.deepEqual(await collect(await model.stream(hello, { signal: signal() })), expected);
      } catch (error) {
        failures.push(`cuts at ${first} + n·${STRIDE}: ${(error as Error).message.slice(0, 300)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.equal(covered.size, bytes.length - 1, 'every byte boundary was a cut');
    fake.enqueue({ type: 'raw', body: bytes, transport: { writeSizes: [1] } });
    assert.deepEqual(await collect(await model.stream(hello, { signal: signal() })), expected, 'one-byte writes');
  });
});
