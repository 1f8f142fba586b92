import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { requestedDeployment, startFakeAzureOpenAI, type FakeAzureOpenAI } from '../support/fake-azure-openai.js';
import { FAKE_AWS_CREDENTIALS, bedrockErrors, startFakeBedrock, type FakeBedrock } from '../support/fake-bedrock.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const HAIKU = 'bedrock:anthropic.claude-3-5-haiku-20241022-v1:0';
const NOVA_LITE = 'bedrock:amazon.nova-lite-v1:0';
const AZURE_MINI = 'azure:gpt-4o-mini';
/** Claude 3.5 Haiku on Bedrock, USD per million tokens (src/catalog/data/models.json). */
const HAIKU_PRICES = { input: 0.8, cachedInput: 0.08, output: 4 };

interface Meta {
  readonly modelUsed: string;
  readonly provider: string;
  readonly cost: number;
  readonly usageEstimated: boolean;
  readonly attempts: readonly { model: string; outcome: string; status?: number }[];
}

function metaOf(value: unknown): Meta {
  const meta = (value as { _meta?: Meta })._meta;
  assert.ok(meta !== undefined, 'the object carries _meta');
  return meta;
}

const weatherTool = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('Azure OpenAI and Bedrock end to end: openai SDK → gateway → fake upstreams', () => {
  let bedrock: FakeBedrock;
  let azure: FakeAzureOpenAI;
  let gateway: Gateway;
  let client: OpenAI;

  before(async () => {
    bedrock = await startFakeBedrock({ region: 'us-west-2' });
    azure = await startFakeAzureOpenAI({ apiKey: 'azure-key', deployments: { 'gpt-4o-mini': 'gpt-4o-mini' } });
    gateway = await startGateway({
      env: {
        AWS_ACCESS_KEY_ID: FAKE_AWS_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: FAKE_AWS_CREDENTIALS.secretAccessKey,
        AWS_REGION: 'us-west-2',
        BEDROCK_BASE_URL: bedrock.baseUrl,
        AZURE_OPENAI_API_KEY: 'azure-key',
        AZURE_OPENAI_ENDPOINT: azure.endpoint,
        AZURE_OPENAI_API_VERSION: '2024-10-21',
        MODELPORT_DEFAULT_RPM: '100000',
      },
      models: [HAIKU],
      strategy: 'cost_optimized',
    });
    client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl, maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
    await bedrock.close();
    await azure.close();
  });
  beforeEach(() => {
    bedrock.reset();
    azure.reset();
  });

  it('Bedrock: a complete answer, the signed Converse call, usage with cache reads, and its cost', async () => {
    bedrock.enqueue({ type: 'answer', text: 'Bonjour from Claude on Bedrock.', usage: { inputTokens: 1_000, outputTokens: 200, cacheReadInputTokens: 500 } });
    const completion = await client.chat.completions.create({
      model: gateway.router.id,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Say hello in French.' },
      ],
      temperature: 1.4,
      max_tokens: 100,
    });
    assert.equal(completion.model, HAIKU);
    assert.equal(completion.choices[0]?.message.content, 'Bonjour from Claude on Bedrock.');
    assert.equal(completion.choices[0]?.finish_reason, 'stop');
    assert.equal(completion.usage?.prompt_tokens, 1_500);
    assert.equal(completion.usage?.completion_tokens, 200);
    assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 500);
    const meta = metaOf(completion);
    assert.equal(meta.provider, 'bedrock');
    assert.equal(meta.usageEstimated, false);
    const expectedCost = (1_000 * HAIKU_PRICES.input + 500 * HAIKU_PRICES.cachedInput + 200 * HAIKU_PRICES.output) / 1_000_000;
    assert.ok(Math.abs(meta.cost - expectedCost) < 1e-12, `cost ${meta.cost} != ${expectedCost}`);

    const sent = bedrock.converseRequests()[0] ?? assert.fail('no signed Converse call reached the fake');
    assert.equal(sent.path, '/model/anthropic.claude-3-5-haiku-20241022-v1%3A0/converse');
    assert.match(String(sent.headers.authorization), /Credential=AKIDEXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request/);
    assert.equal(JSON.stringify(sent.headers).includes(gateway.apiKey), false, "the client's key never goes upstream");
    assert.deepEqual(sent.body, {
      messages: [{ role: 'user', content: [{ text: 'Say hello in French.' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 100, temperature: 1 },
    });
  });

  it('Bedrock: a tool call, then the conversation with its result', async () => {
    bedrock.enqueue(
      { type: 'answer', toolUses: [{ id: 'tooluse_paris', name: 'get_weather', input: { city: 'Paris' } }] },
      { type: 'answer', text: 'It is sunny in Paris.' },
    );
    const question = { role: 'user' as const, content: 'Weather in Paris?' };
    const first = await client.chat.completions.create({ model: gateway.router.id, messages: [question], tools: [weatherTool] });
    const message = first.choices[0]?.message ?? assert.fail('no choice');
    assert.equal(first.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(message.tool_calls, [{ id: 'tooluse_paris', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);

    const second = await client.chat.completions.create({
      model: gateway.router.id,
      messages: [question, message, { role: 'tool', tool_call_id: 'tooluse_paris', content: '{"sky":"sunny","celsius":24}' }],
      tools: [weatherTool],
    });
    assert.equal(second.choices[0]?.message.content, 'It is sunny in Paris.');
    const sent = bedrock.converseRequests()[1] ?? assert.fail('the fake refused the second turn');
    assert.deepEqual((sent.body as { messages: unknown[] }).messages.slice(1), [
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_paris', name: 'get_weather', input: { city: 'Paris' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_paris', content: [{ json: { sky: 'sunny', celsius: 24 } }] } }] },
    ]);
  });

  it('Bedrock: a stream of text and a tool call the SDK puts back together, cut into uneven pieces', async () => {
    const input = '{"city":"東京","note":"a \\"quoted\\" value 🌧"}';
    bedrock.enqueue({
      type: 'answer',
      text: 'Let me check — 一瞬.',
      toolUses: [{ id: 'tooluse_tokyo', name: 'get_weather', input: {}, inputJson: input }],
      inputPieceLength: 4,
      usage: { inputTokens: 40, outputTokens: 12 },
      transport: { writeSizes: [5, 1, 17, 2, 300] },
    });
    const done: { name: string; arguments: string }[] = [];
    const chunks: ChatCompletionChunk[] = [];
    const runner = client.chat.completions
      .stream({ model: gateway.router.id, messages: [{ role: 'user', content: 'Weather in Tokyo?' }], tools: [weatherTool], stream_options: { include_usage: true } })
      .on('chunk', (chunk) => chunks.push(chunk))
      .on('tool_calls.function.arguments.done', (event) => done.push({ name: event.name, arguments: event.arguments }));
    const completion = await runner.finalChatCompletion();
    assert.equal(completion.choices[0]?.message.content, 'Let me check — 一瞬.');
    assert.equal(completion.choices[0]?.finish_reason, 'tool_calls');
    assert.deepEqual(done, [{ name: 'get_weather', arguments: input }]);
    assert.equal(completion.choices[0]?.message.tool_calls?.[0]?.id, 'tooluse_tokyo');
    assert.deepEqual(chunks.at(-1)?.usage, { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 });
    assert.equal(metaOf(chunks.at(-1)).provider, 'bedrock');
    assert.equal(bedrock.converseRequests()[0]?.operation, 'converse-stream');
  });

  it('Azure: a router of an Azure deployment answers, complete and streamed, with the api-key header', async () => {
    const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'azure router', models: [AZURE_MINI], strategy: 'cost_optimized' });
    azure.enqueue({ type: 'answer', content: 'Hello from Azure.' }, { type: 'answer', content: 'Streamed from Azure — ünïcödé.' });
    const completion = await client.chat.completions.create({ model: router.id, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(completion.model, AZURE_MINI);
    assert.equal(completion.choices[0]?.message.content, 'Hello from Azure.');
    assert.equal(metaOf(completion).provider, 'azure');

    const stream = await client.chat.completions.create({ model: router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    assert.equal(text, 'Streamed from Azure — ünïcödé.');

    for (const sent of azure.chatRequests()) {
      assert.equal(requestedDeployment(sent.path), 'gpt-4o-mini');
      assert.match(sent.path, /\?api-version=2024-10-21$/);
      assert.equal(sent.headers['api-key'], 'azure-key');
      assert.equal(sent.headers.authorization, undefined);
    }
  });

  it('falls back from a throttled Bedrock model to Azure', async () => {
    const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'mixed router', models: [NOVA_LITE, AZURE_MINI], strategy: 'cost_optimized' });
    bedrock.enqueue(bedrockErrors.throttling());
    azure.enqueue({ type: 'answer', content: 'Azure took over.' });
    const completion = await client.chat.completions.create({ model: router.id, messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(completion.choices[0]?.message.content, 'Azure took over.');
    assert.deepEqual(
      metaOf(completion).attempts.map(({ model, outcome, status }) => ({ model, outcome, status })),
      [
        { model: NOVA_LITE, outcome: 'failed', status: 429 },
        { model: AZURE_MINI, outcome: 'ok', status: undefined },
      ],
    );
    assert.equal(bedrock.converseRequests()[0]?.modelId, 'amazon.nova-lite-v1:0');
  });
});
