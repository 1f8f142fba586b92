import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PlaygroundEmbeddingsView, UsageRequestView } from '../../src/dashboard/dashboard-api-types.js';
import { DashboardClient, type DashboardResponse } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * The dashboard playground over an embedding router: the same pipeline, answer and refusals as the gateway's
 * /v1/embeddings for the same body, authorised by the session. Runs on SQLite, or on Postgres with TEST_DATABASE_URL.
 */

const hello = [{ role: 'user', content: 'Hello' }];

/** The list on success, OpenAI's error object on a refusal. */
type Answer = PlaygroundEmbeddingsView & { readonly error: { readonly code: string; readonly param: string | null; readonly message: string } };

async function gatewayCall(gateway: Gateway, key: string, path: string, body: unknown): Promise<DashboardResponse> {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** OpenAI's base64 vectors: little-endian 32-bit floats. */
function fromBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
}

async function createRouter(user: DashboardClient, name: string, models: readonly string[]): Promise<string> {
  const created = await user.post(`${user.ws}/routers`, { name, models, strategy: 'cost_optimized' });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return created.body.id as string;
}

describe('dashboard playground over an embedding router', () => {
  let gateway: Gateway;
  let alice: DashboardClient;
  let bob: DashboardClient;
  let vectors = '';
  let chatRouter = '';
  let aliceKey = '';
  const embed = (body: unknown, user: DashboardClient = alice, ws = user.ws) => user.post<Answer>(`${ws}/playground/embeddings`, body);

  before(async () => {
    gateway = await startGateway();
    alice = new DashboardClient(gateway.origin);
    bob = new DashboardClient(gateway.origin);
    await alice.signUp('alice-embeddings@example.com');
    await bob.signUp('bob-embeddings@example.com');
    vectors = await createRouter(alice, 'vectors', ['sim:embed-small']);
    chatRouter = await createRouter(alice, 'support', ['sim:small']);
    aliceKey = (await alice.post(`${alice.ws}/keys`, { name: 'sdk' })).body.key;
  });
  after(async () => gateway?.close());

  it("answers OpenAI's list with _meta, the same vectors and usage as /v1/embeddings with a key", async () => {
    const body = { model: vectors, input: ['a heat pump', 'a gas boiler'], dimensions: 64 };
    const played = await embed(body);
    assert.equal(played.status, 200, JSON.stringify(played.body));
    assert.equal(played.body.object, 'list');
    assert.deepEqual(played.body.data.map((item) => [item.object, item.index, (item.embedding as number[]).length]), [
      ['embedding', 0, 64],
      ['embedding', 1, 64],
    ]);
    assert.equal(played.body.model, 'sim:embed-small');
    assert.ok(played.body.usage.prompt_tokens > 0);
    assert.equal(played.body.usage.total_tokens, played.body.usage.prompt_tokens);
    const meta = played.body._meta;
    assert.equal(meta.modelUsed, 'sim:embed-small');
    assert.equal(meta.routerId, vectors);
    assert.equal(meta.routerDecision, 'cost_optimized');
    assert.equal(meta.requestId, played.headers.get('x-request-id'));
    assert.ok(meta.cost > 0 && meta.latencyMs >= 0, JSON.stringify(meta));
    assert.equal(meta.carbonGrams, 0, 'an embedding generates no tokens: EcoLogits counts nothing');
    assert.deepEqual(meta.attempts.map((attempt) => [attempt.model, attempt.outcome]), [['sim:embed-small', 'ok']]);
    assert.equal(played.headers.get('x-modelport-model'), 'sim:embed-small');
    assert.equal(played.headers.get('x-modelport-router-decision'), 'cost_optimized');

    const viaKey = await gatewayCall(gateway, aliceKey, '/v1/embeddings', body);
    assert.equal(viaKey.status, 200);
    assert.deepEqual(played.body.data, viaKey.body.data, 'the simulator embeds deterministically: same inputs, same vectors');
    assert.deepEqual(played.body.usage, viaKey.body.usage);
    assert.deepEqual(Object.keys(played.body).sort(), Object.keys(viaKey.body).sort());
    assert.deepEqual(Object.keys(meta).sort(), Object.keys(viaKey.body._meta).sort());

    const one = await embed({ model: vectors, input: 'a heat pump' });
    assert.equal((one.body.data[0]?.embedding as number[]).length, 256, 'without dimensions, the model default');
    const base64 = await embed({ ...body, encoding_format: 'base64' });
    assert.equal(base64.status, 200);
    const decoded = fromBase64(base64.body.data[1]?.embedding as string);
    assert.deepEqual(decoded, (played.body.data[1]?.embedding as number[]).map(Math.fround));
  });

  it('refuses what the gateway refuses, with the same status and code', async () => {
    const cases: Array<[string, unknown]> = [
      ['no input', { model: vectors }],
      ['an empty input', { model: vectors, input: ['fine', ''] }],
      ['more dimensions than the model gives', { model: vectors, input: 'x', dimensions: 300 }],
      ['a chat router', { model: chatRouter, input: 'x' }],
      ['no router', { input: 'x' }],
    ];
    for (const [label, body] of cases) {
      const played = await embed(body);
      const viaKey = await gatewayCall(gateway, aliceKey, '/v1/embeddings', body);
      assert.ok(played.status >= 400, label);
      assert.deepEqual([played.status, played.body.error?.code, played.body.error?.param], [viaKey.status, viaKey.body.error.code, viaKey.body.error.param], label);
    }
    const tooLong = await embed({ model: vectors, input: 'x', dimensions: 300 });
    assert.match(tooLong.body.error.message, /sim:embed-small: up to 256/);

    // And the chat playground refuses an embedding router as /v1/chat/completions does.
    const chat = await alice.post(`${alice.ws}/playground/chat`, { model: vectors, messages: hello });
    assert.equal(chat.status, 400);
    assert.equal(chat.body.error.code, 'unsupported_request');
    assert.match(chat.body.error.message, /serves embeddings/);

    // A state-changing dashboard call without the session's CSRF token.
    const noToken = await alice.request('POST', `${alice.ws}/playground/embeddings`, { model: vectors, input: 'x' }, { 'x-csrf-token': 'forged' });
    assert.equal(noToken.status, 403);
  });

  it("a router of another workspace is 404 router_not_found, another's workspace 404, and neither leaves a usage record", async () => {
    const foreignRouter = await embed({ model: vectors, input: 'x' }, bob);
    assert.equal(foreignRouter.status, 404);
    assert.equal(foreignRouter.body.error.code, 'router_not_found');
    const foreignWorkspace = await embed({ model: vectors, input: 'x' }, bob, alice.ws);
    assert.equal(foreignWorkspace.status, 404);
    assert.equal(foreignWorkspace.body.error.code, 'workspace_not_found');
    await gateway.app.usage.flush();
    assert.deepEqual((await bob.get(`${bob.ws}/usage/requests`)).body.requests, []);
    assert.equal((await bob.get(`${bob.ws}/usage`)).body.totals.requests, 0);
    const aliceRecords = (await alice.get(`${alice.ws}/usage/requests?limit=200`)).body.requests as UsageRequestView[];
    assert.ok(!aliceRecords.some((record) => record.status === 404), 'nothing recorded against Alice either');
  });

  it('records each call under the playground key as an embedding call, failures that reached a router included', async () => {
    await gateway.app.usage.flush();
    const records = (await alice.get(`${alice.ws}/usage/requests?limit=200`)).body.requests as UsageRequestView[];
    const played = records.filter((record) => record.keyId === 'dashboard' && record.routerId === vectors);
    const answered = played.filter((record) => record.status === 200);
    assert.equal(answered.length, 3);
    for (const record of answered) {
      assert.equal(record.keyName, 'Dashboard playground');
      assert.equal(record.kind, 'embedding');
      assert.equal(record.model, 'sim:embed-small');
      assert.equal(record.completionTokens, 0);
      assert.ok(record.promptTokens > 0 && record.costUsd > 0);
    }
    // Refused at the router (input, dimensions) or its kind (the chat playground): recorded with their codes.
    assert.deepEqual(played.filter((record) => record.status !== 200).map((record) => `${record.status} ${record.errorCode}`).sort(), [
      '400 invalid_value',
      '400 invalid_value',
      '400 unsupported_request',
    ]);
    const usage = await alice.get(`${alice.ws}/usage?from=${new Date(Date.now() - 3_600_000).toISOString()}`);
    const byKey = usage.body.byKey.find((entry: { id: string }) => entry.id === 'dashboard');
    assert.equal(byKey.requests, records.filter((record) => record.keyId === 'dashboard').length);
  });
});

describe('dashboard playground: one per-person rate limit for chat and embeddings', () => {
  let gateway: Gateway;
  let alice: DashboardClient;
  let bob: DashboardClient;

  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_DEFAULT_RPM: '2' } });
    alice = new DashboardClient(gateway.origin);
    bob = new DashboardClient(gateway.origin);
    await alice.signUp('alice-limits@example.com');
    await bob.signUp('bob-limits@example.com');
  });
  after(async () => gateway?.close());

  it("counts both playgrounds against the person's limit, and another person's calls apart", async () => {
    const vectors = await createRouter(alice, 'vectors', ['sim:embed-small']);
    const chatRouter = await createRouter(alice, 'support', ['sim:small']);
    assert.equal((await alice.post(`${alice.ws}/playground/embeddings`, { model: vectors, input: 'one' })).status, 200);
    assert.equal((await alice.post(`${alice.ws}/playground/chat`, { model: chatRouter, messages: hello })).status, 200);
    const limited = await alice.post(`${alice.ws}/playground/embeddings`, { model: vectors, input: 'three' });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limit_exceeded');
    const bobVectors = await createRouter(bob, 'vectors', ['sim:embed-small']);
    assert.equal((await bob.post(`${bob.ws}/playground/embeddings`, { model: bobVectors, input: 'one' })).status, 200);
  });
});
