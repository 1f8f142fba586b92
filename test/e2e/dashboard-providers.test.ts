import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAdminService } from '../../src/admin/admin-service.js';
import { runCommandLine } from '../../src/cli/main.js';
import { DashboardClient, type DashboardResponse } from '../support/dashboard-client.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const GOOD_KEY = 'sk-dashboard-owner-key-4f2a';
const WRONG_KEY = 'sk-dashboard-wrong-key-9z9z';
const ALICE = 'alice-providers@example.com';

/** Runs `modelport …` in this process over the gateway's own database, as an operator would against it. */
async function cli(gateway: Gateway, args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const admin = createAdminService(gateway.app.repositories, gateway.app.catalog, Date.now, { secret: gateway.app.secret, allowPrivateUpstreams: true });
  const code = await runCommandLine(
    args,
    {
      env: {},
      stdout: { write: (text: string) => ((stdout += text), true) },
      stderr: { write: (text: string) => ((stderr += text), true) },
      stdin: (async function* () {})(),
    },
    { openAdmin: async () => admin, openGateway: () => Promise.reject(new Error('not needed')) },
  );
  return { code, stdout, stderr };
}

/** The message the CLI printed for a refused command (`error: <message>`). */
function cliError(run: { code: number; stderr: string }): string {
  assert.notEqual(run.code, 0, 'the CLI refused the input');
  const message = /^error: (.+)$/m.exec(run.stderr)?.[1];
  assert.ok(message !== undefined, `an error line in: ${run.stderr}`);
  return message;
}

describe('dashboard: owners’ own provider keys and custom models', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  let alice: DashboardClient;
  const seen: DashboardResponse[] = [];
  /** Every answer the dashboard gave alice, to check no key ever comes back. */
  const record = async (response: Promise<DashboardResponse>): Promise<DashboardResponse> => {
    const answer = await response;
    seen.push(answer);
    return answer;
  };

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: GOOD_KEY });
    gateway = await startGateway({ env: { MODELPORT_ALLOW_PRIVATE_UPSTREAMS: 'true' } });
    alice = new DashboardClient(gateway.origin);
    assert.equal((await alice.signUp(ALICE)).status, 201);
  });
  after(async () => {
    await gateway?.close();
    await fake?.close();
  });

  it('adds a key, lists only its tail, tests it live (a wrong key shows the upstream’s 401), and removes it', async () => {
    const presets = await record(alice.get(`${alice.ws}/providers`));
    assert.equal(presets.status, 200);
    assert.deepEqual(presets.body.providers, []);
    assert.ok(presets.body.presets.some((preset: { name: string }) => preset.name === 'openai'));

    const wrong = await record(alice.post(`${alice.ws}/providers`, { provider: 'acme', apiKey: WRONG_KEY, baseUrl: fake.baseUrl }));
    assert.equal(wrong.status, 201, JSON.stringify(wrong.body));
    assert.deepEqual({ ...wrong.body.provider, createdAt: undefined, updatedAt: undefined }, {
      provider: 'acme',
      kind: 'custom',
      baseUrl: fake.baseUrl,
      keyHint: WRONG_KEY.slice(-4),
      hasKey: true,
      createdAt: undefined,
      updatedAt: undefined,
    });
    assert.equal(wrong.body.replaced, false);

    const failed = await record(alice.post(`${alice.ws}/providers/acme/test`, { model: 'llama-local' }));
    assert.equal(failed.status, 200, JSON.stringify(failed.body));
    assert.equal(failed.body.ok, false);
    assert.equal(failed.body.statusCode, 401);
    assert.match(failed.body.message, /^acme refused .*\(HTTP 401, invalid_api_key\)$/);
    assert.equal(fake.chatRequests().at(-1)?.headers.authorization, `Bearer ${WRONG_KEY}`);

    const fixed = await record(alice.post(`${alice.ws}/providers`, { provider: 'acme', apiKey: GOOD_KEY, baseUrl: fake.baseUrl }));
    assert.equal(fixed.status, 200);
    assert.equal(fixed.body.replaced, true);
    const passed = await record(alice.post(`${alice.ws}/providers/acme/test`, { model: 'llama-local' }));
    assert.equal(passed.body.ok, true, JSON.stringify(passed.body));
    assert.equal(passed.body.target, 'chat ping with acme:llama-local');
    assert.equal(fake.chatRequests().at(-1)?.headers.authorization, `Bearer ${GOOD_KEY}`);

    const listed = await record(alice.get(`${alice.ws}/providers`));
    assert.deepEqual(
      listed.body.providers.map((view: { provider: string; keyHint: string }) => [view.provider, view.keyHint]),
      [['acme', GOOD_KEY.slice(-4)]],
    );

    const removed = await record(alice.delete(`${alice.ws}/providers/acme`));
    assert.deepEqual(removed.body, { provider: 'acme', modelsRemoved: 0 });
    assert.deepEqual((await record(alice.get(`${alice.ws}/providers`))).body.providers, []);
    const again = await record(alice.delete(`${alice.ws}/providers/acme`));
    assert.equal(again.status, 400);
    assert.equal(again.body.error.message, cliError(await cli(gateway, ['provider', 'remove', '--owner', ALICE, '--provider', 'acme'])));

    for (const answer of seen) {
      const text = JSON.stringify(answer.body);
      assert.ok(!text.includes(GOOD_KEY) && !text.includes(WRONG_KEY), `no key in ${text}`);
    }
  });

  it('refuses a provider with the CLI’s message, at the field', async () => {
    const refused = await alice.post(`${alice.ws}/providers`, { provider: 'acme-two', apiKey: GOOD_KEY });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.param, 'baseUrl');
    assert.equal(refused.body.error.message, cliError(await cli(gateway, ['provider', 'add', '--owner', ALICE, '--provider', 'acme-two', '--api-key', GOOD_KEY])));
  });

  it('adds, updates and removes custom models; bad input gets the CLI’s very message', async () => {
    assert.equal((await alice.post(`${alice.ws}/providers`, { provider: 'acme', apiKey: GOOD_KEY, baseUrl: fake.baseUrl })).status, 201);
    const added = await alice.post(`${alice.ws}/custom-models`, { id: 'acme:llama-local', inputPerMTok: 0.5, outputPerMTok: 1.5, contextWindow: 32768, tools: true });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal(added.body.model.id, 'acme:llama-local');
    assert.equal(added.body.model.maxOutputTokens, 4096);
    assert.deepEqual(added.body.model.capabilities, { tools: true, vision: false });
    assert.equal(added.body.overridesShipped, false);

    // Prices as typed in a form: read by the CLI's parser.
    const updated = await alice.post(`${alice.ws}/custom-models`, { id: 'acme:llama-local', inputPerMTok: '0.6', outputPerMTok: '1.8', contextWindow: '32768' });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    assert.equal(updated.body.replaced, true);
    const embedding = await alice.post(`${alice.ws}/custom-models`, { id: 'acme:org/embed-v1', kind: 'embedding', dimensions: 768, inputPerMTok: 0.02 });
    assert.equal(embedding.status, 201, JSON.stringify(embedding.body));
    assert.deepEqual(embedding.body.model.embedding, { dimensions: 768, shortenable: false, space: 'acme:org/embed-v1' });

    const listed = await alice.get(`${alice.ws}/custom-models`);
    assert.deepEqual(
      listed.body.models.map((model: { id: string; inputPerMTok: number; outputPerMTok: number }) => [model.id, model.inputPerMTok, model.outputPerMTok]).sort(),
      [['acme:llama-local', 0.6, 1.8], ['acme:org/embed-v1', 0.02, 0]],
    );
    // The CLI sees what the dashboard declared.
    assert.match((await cli(gateway, ['model', 'list', '--owner', ALICE])).stdout, /acme:org\/embed-v1/);

    const badInputs: readonly [Record<string, unknown>, readonly string[], string][] = [
      [{ id: 'acme:no-output', inputPerMTok: 1 }, ['--id', 'acme:no-output', '--input-price', '1'], 'outputPerMTok'],
      [{ id: 'acme:typo', inputPerMTok: 'abc', outputPerMTok: 1 }, ['--id', 'acme:typo', '--input-price', 'abc', '--output-price', '1'], 'inputPerMTok'],
      [{ id: 'acme:big', inputPerMTok: 1, outputPerMTok: 1, contextWindow: 1000, maxOutputTokens: 2000 }, ['--id', 'acme:big', '--input-price', '1', '--output-price', '1', '--context-window', '1000', '--max-output', '2000'], 'maxOutputTokens'],
      [{ id: 'nowhere:model', inputPerMTok: 1, outputPerMTok: 1 }, ['--id', 'nowhere:model', '--input-price', '1', '--output-price', '1'], 'id'],
    ];
    for (const [body, flags, field] of badInputs) {
      const refused = await alice.post(`${alice.ws}/custom-models`, body);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.param, field);
      assert.equal(refused.body.error.message, cliError(await cli(gateway, ['model', 'add', '--owner', ALICE, ...flags])));
    }

    // An id with a slash, encoded in the path.
    const removed = await alice.delete(`${alice.ws}/custom-models/${encodeURIComponent('acme:org/embed-v1')}`);
    assert.deepEqual(removed.body, { id: 'acme:org/embed-v1' });
    const missing = await alice.delete(`${alice.ws}/custom-models/${encodeURIComponent('acme:org/embed-v1')}`);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.message, cliError(await cli(gateway, ['model', 'remove', '--owner', ALICE, '--id', 'acme:org/embed-v1'])));

    // A custom provider takes its declared models with it.
    assert.deepEqual((await alice.delete(`${alice.ws}/providers/acme`)).body, { provider: 'acme', modelsRemoved: 1 });
    assert.deepEqual((await alice.get(`${alice.ws}/custom-models`)).body.models, []);
  });

  it('keeps another account out, and lets only admins change a workspace’s providers', async () => {
    const bob = new DashboardClient(gateway.origin);
    await bob.signUp('bob-providers@example.com');
    assert.equal((await bob.get(`${alice.ws}/providers`)).status, 404);
    assert.equal((await bob.post(`${alice.ws}/providers`, { provider: 'openai', apiKey: GOOD_KEY })).status, 404);
    assert.equal((await bob.get(`${alice.ws}/custom-models`)).status, 404);

    const org = await alice.post('/api/dashboard/organizations', { name: 'Providers Org' });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const orgBase = `/api/dashboard/workspaces/${org.body.id}`;
    assert.equal((await alice.post(`${orgBase}/members`, { email: 'bob-providers@example.com', role: 'viewer' })).status, 201);
    assert.equal((await alice.post(`${orgBase}/providers`, { provider: 'openai', apiKey: GOOD_KEY, baseUrl: fake.baseUrl })).status, 201);
    const viewed = await bob.get(`${orgBase}/providers`);
    assert.deepEqual(viewed.body.providers.map((view: { provider: string }) => view.provider), ['openai']);
    for (const [method, path, body] of [
      ['POST', `${orgBase}/providers`, { provider: 'groq', apiKey: GOOD_KEY }],
      ['POST', `${orgBase}/providers/openai/test`, {}],
      ['DELETE', `${orgBase}/providers/openai`, undefined],
      ['POST', `${orgBase}/custom-models`, { id: 'openai:gpt-4o', inputPerMTok: 1, outputPerMTok: 2 }],
    ] as const) {
      const denied = await bob.request(method, path, body);
      assert.equal(denied.status, 403, `${method} ${path}`);
      assert.equal(denied.body.error.code, 'workspace_role_required');
    }
    // The organisation's preset key, tested without a model: the provider's cheapest known model.
    const tested = await alice.post(`${orgBase}/providers/openai/test`, {});
    assert.equal(tested.body.ok, true, JSON.stringify(tested.body));
    assert.match(tested.body.target, /^chat ping with openai:/);
  });
});
