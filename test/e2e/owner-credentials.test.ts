import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AdminInputError, createAdminService, type AdminService } from '../../src/admin/admin-service.js';
import { credentialSealContext } from '../../src/providers/credentials/owner-credentials.js';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const SERVER_KEY = 'sk-server-wide-key-0000';
const OWNER_OPENAI_KEY = 'sk-byok-owner-key-1234';
const ACME_KEY = 'sk-acme-owner-secret-5678';
const BYOK_OWNER = 'byok@example.com';
const PASSWORD = 'correct horse battery';
const USAGE = { prompt_tokens: 1000, completion_tokens: 500 };

interface Meta {
  readonly modelUsed: string;
  readonly provider: string;
  readonly cost: number;
  readonly attempts: readonly { model: string; outcome: string; reason?: string }[];
}

interface Owner {
  readonly routerId: string;
  readonly apiKey: string;
}

async function chat(gateway: Gateway, owner: Owner, stream = false): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: owner.routerId, messages: [{ role: 'user', content: 'Hello' }], ...(stream ? { stream: true } : {}) }),
  });
  const text = await response.text();
  return { status: response.status, body: stream || text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), text };
}

function metaOf(body: Record<string, unknown>): Meta {
  const meta = body._meta as Meta | undefined;
  assert.ok(meta !== undefined, `the answer carries _meta: ${JSON.stringify(body)}`);
  return meta;
}

function assertCost(actual: number, expected: number): void {
  assert.ok(Math.abs(actual - expected) < 1e-12, `cost ${actual} != ${expected}`);
}

const lastChat = (fake: FakeOpenAI): RecordedRequest | undefined => fake.chatRequests().at(-1);

describe('bring your own key, through a running gateway (private upstreams allowed)', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  let admin: AdminService;
  let serverOwner: Owner;
  let byokOwner: Owner;
  let customOwner: Owner;

  before(async () => {
    // apiKey null: the fake accepts any key, so the test can see which one arrived.
    fake = await startFakeOpenAI({ apiKey: null });
    gateway = await startGateway({
      env: { MODELPORT_ALLOW_PRIVATE_UPSTREAMS: 'true', OPENAI_API_KEY: SERVER_KEY, OPENAI_BASE_URL: fake.baseUrl },
      models: ['openai:gpt-4o-mini'],
    });
    admin = createAdminService(gateway.app.repositories, gateway.app.catalog, Date.now, { secret: gateway.app.secret, allowPrivateUpstreams: true });
    serverOwner = { routerId: gateway.router.id, apiKey: gateway.apiKey };

    await admin.createUser(BYOK_OWNER, PASSWORD);
    await admin.addProvider({ ownerEmail: BYOK_OWNER, provider: 'openai', apiKey: OWNER_OPENAI_KEY });
    await admin.addProvider({ ownerEmail: BYOK_OWNER, provider: 'acme', baseUrl: fake.baseUrl, apiKey: ACME_KEY });
    await admin.addModel({ ownerEmail: BYOK_OWNER, id: 'acme:llama-local', inputPerMTok: 3, outputPerMTok: 7, tools: true });
    // The owner's own price for a shipped model.
    await admin.addModel({ ownerEmail: BYOK_OWNER, id: 'openai:gpt-4o-mini', inputPerMTok: 1, outputPerMTok: 2 });
    const router = await admin.createRouter({ ownerEmail: BYOK_OWNER, name: 'own key', models: ['openai:gpt-4o-mini'], strategy: 'cost_optimized' });
    const { value } = await admin.createKey({ ownerEmail: BYOK_OWNER, name: 'byok', routerIds: [router.id] });
    byokOwner = { routerId: router.id, apiKey: value };
    const customRouter = await admin.createRouter({ ownerEmail: BYOK_OWNER, name: 'custom', models: ['acme:llama-local'], strategy: 'cost_optimized' });
    const { value: customKey } = await admin.createKey({ ownerEmail: BYOK_OWNER, name: 'custom', routerIds: [customRouter.id] });
    customOwner = { routerId: customRouter.id, apiKey: customKey };
  });
  after(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it("sends the owner's own OpenAI key upstream, and the owner's price drives _meta.cost", async () => {
    fake.enqueue({ type: 'answer', usage: USAGE });
    const { status, body } = await chat(gateway, byokOwner);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(lastChat(fake)?.headers.authorization, `Bearer ${OWNER_OPENAI_KEY}`);
    const meta = metaOf(body);
    assert.equal(meta.modelUsed, 'openai:gpt-4o-mini');
    assertCost(meta.cost, (1000 * 1 + 500 * 2) / 1_000_000);
  });

  it("still uses the server-wide key and shipped prices for another owner's router", async () => {
    fake.enqueue({ type: 'answer', usage: USAGE });
    const { status, body } = await chat(gateway, serverOwner);
    assert.equal(status, 200, JSON.stringify(body));
    assert.equal(lastChat(fake)?.headers.authorization, `Bearer ${SERVER_KEY}`);
    assertCost(metaOf(body).cost, (1000 * 0.15 + 500 * 0.6) / 1_000_000);
  });

  it('calls a custom OpenAI-compatible provider at its base URL, priced by the owner', async () => {
    fake.enqueue({ type: 'answer', usage: USAGE, content: 'from acme' });
    const { status, body } = await chat(gateway, customOwner);
    assert.equal(status, 200, JSON.stringify(body));
    const upstream = lastChat(fake);
    assert.equal(upstream?.headers.authorization, `Bearer ${ACME_KEY}`);
    assert.equal((upstream?.body as { model?: string }).model, 'llama-local');
    const meta = metaOf(body);
    assert.equal(meta.modelUsed, 'acme:llama-local');
    assert.equal(meta.provider, 'acme');
    assertCost(meta.cost, (1000 * 3 + 500 * 7) / 1_000_000);
    assert.equal((body.choices as { message: { content: string } }[])[0]?.message.content, 'from acme');
  });

  it('streams from a custom provider too', async () => {
    fake.enqueue({ type: 'answer', usage: USAGE, content: 'streamed from acme' });
    const { status, text } = await chat(gateway, customOwner, true);
    assert.equal(status, 200, text);
    assert.equal(lastChat(fake)?.headers.authorization, `Bearer ${ACME_KEY}`);
    assert.match(text, /"modelUsed":"acme:llama-local"/);
    assert.match(text, /data: \[DONE\]\n\n$/);
  });

  it('keeps keys sealed at rest: no plaintext in the row, only the last 4 characters as a hint', async () => {
    const rows = await gateway.app.storage.db.selectFrom('provider_credentials').selectAll().orderBy('provider').execute();
    assert.deepEqual(rows.map((row) => row.provider), ['acme', 'openai']);
    for (const row of rows) {
      const serialized = JSON.stringify(row);
      for (const key of [OWNER_OPENAI_KEY, ACME_KEY]) {
        assert.ok(!serialized.includes(key), 'no plaintext key');
        assert.ok(!serialized.includes(key.slice(0, 12)), 'not even a prefix of it');
        assert.ok(!serialized.includes(Buffer.from(key).toString('base64').slice(0, 16)), 'nor its base64');
      }
      assert.match(row.encrypted_key ?? '', /^v1:[^:]+:[^:]+:[^:]+$/);
    }
    assert.deepEqual(rows.map((row) => row.key_hint), ['5678', '1234']);
    assert.deepEqual((await admin.listProviders(BYOK_OWNER)).map((view) => [view.provider, view.kind, view.keyHint]), [['acme', 'custom', '5678'], ['openai', 'preset', '1234']]);
  });
});

describe('bring your own key: private upstreams refused (the default)', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  let admin: AdminService;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: null });
    gateway = await startGateway();
    admin = createAdminService(gateway.app.repositories, gateway.app.catalog, Date.now, { secret: gateway.app.secret, allowPrivateUpstreams: false });
  });
  after(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('refuses a loopback base URL when it is saved, saying how to allow it', async () => {
    await assert.rejects(
      admin.addProvider({ ownerEmail: gateway.ownerEmail, provider: 'acme', baseUrl: fake.baseUrl, apiKey: ACME_KEY }),
      (error: unknown) => error instanceof AdminInputError && /127\.0\.0\.1 is a loopback address/.test(error.message) && /MODELPORT_ALLOW_PRIVATE_UPSTREAMS=true/.test(error.message),
    );
    await assert.rejects(admin.addProvider({ ownerEmail: gateway.ownerEmail, provider: 'openai', baseUrl: `http://localhost:${new URL(fake.origin).port}/v1`, apiKey: ACME_KEY }), /localhost resolves to/);
    assert.deepEqual(await admin.listProviders(gateway.ownerEmail), []);
  });

  it('refuses it again at call time when the row was written straight into the database', async () => {
    const owner = (await gateway.app.repositories.users.findByEmail(gateway.ownerEmail))?.id ?? '';
    const box = gateway.app.secret.forSealing();
    const port = new URL(fake.origin).port;
    // One literal loopback address, one name that resolves to loopback (checked by the dispatcher's own lookup).
    for (const [provider, baseUrl] of [['acme', fake.baseUrl], ['rebind', `http://localhost:${port}/v1`]] as const) {
      await gateway.app.repositories.providerCredentials.upsert({ ownerId: owner, provider, baseUrl, encryptedKey: box.seal(ACME_KEY, credentialSealContext(owner, provider)) });
      await admin.addModel({ ownerEmail: gateway.ownerEmail, id: `${provider}:llama-local`, inputPerMTok: 1, outputPerMTok: 1 });
    }
    const router = await admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'sneaky', models: ['acme:llama-local', 'rebind:llama-local'], strategy: 'cost_optimized' });
    const { status, body } = await chat(gateway, { routerId: router.id, apiKey: gateway.apiKey });
    assert.equal(status, 503, JSON.stringify(body));
    const error = body.error as { code: string; message: string };
    assert.equal(error.code, 'all_models_unavailable');
    assert.match(error.message, /acme:llama-local: Could not reach acme \(ERR_UPSTREAM_ADDRESS_NOT_ALLOWED\)/);
    assert.match(error.message, /rebind:llama-local: Could not reach rebind \(ERR_UPSTREAM_ADDRESS_NOT_ALLOWED\)/);
    assert.equal(fake.requests.length, 0, 'nothing reached the private upstream');
  });
});
