import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { DashboardClient } from '../support/dashboard-client.js';
import { openAIErrors, requestedModel, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const MINI = 'openai:gpt-4o-mini';
const FOUR_O = 'openai:gpt-4o';
const PROVIDER_KEY = 'sk-provider-key-the-server-holds-0123456789';
const DAY_MS = 86_400_000;

describe('request log: a usage row opened (routing, attempts, carbon, bodies)', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  let owner: DashboardClient;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: PROVIDER_KEY });
    gateway = await startGateway({ env: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: PROVIDER_KEY, MODELPORT_DEFAULT_RPM: '100000' }, models: [MINI, FOUR_O], strategy: 'cost_optimized' });
    owner = new DashboardClient(gateway.origin);
    assert.equal((await owner.signIn(gateway.ownerEmail, 'correct horse battery')).status, 200);
  });
  after(async () => {
    await gateway.close();
    await fake.close();
  });
  beforeEach(() => fake.reset());

  const chat = async (content: string, stream = false): Promise<string> => {
    const response = await fetch(`${gateway.baseUrl}/${gateway.router.id}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify({ messages: [{ role: 'user', content }], ...(stream ? { stream: true } : {}) }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return response.headers.get('x-request-id') ?? '';
  };
  /** The request's entry once its usage record (and detail) are written. */
  const entry = async (id: string) => {
    await gateway.app.usage.flush();
    return owner.get(`${owner.ws}/usage/requests/${id}`);
  };
  const setBodies = (requestLog: unknown) => owner.patch(`${owner.ws}/routers/${gateway.router.id}`, { settings: { requestLog } });

  it('shows every attempt (a failing first model) and the routing decision; no bodies while logging is off', async () => {
    fake.setHandler((request) => (requestedModel(request) === 'gpt-4o-mini' ? openAIErrors.serverError() : undefined));
    const id = await chat('hello there');
    const opened = await entry(id);
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const { request, detail, bodies, bodiesExpired } = opened.body;
    assert.equal(request.id, id);
    assert.equal(request.model, FOUR_O);
    assert.equal(request.attempts, 2);
    assert.deepEqual(
      detail.attempts.map((attempt: { model: string; outcome: string }) => [attempt.model, attempt.outcome]),
      [
        [MINI, 'failed'],
        [FOUR_O, 'ok'],
      ],
    );
    assert.equal(detail.attempts[0].status, 500);
    assert.equal(detail.attempts[0].cost, 0);
    assert.equal(detail.attempts[1].cost, request.costUsd);
    assert.ok(Array.isArray(detail.routing.candidates) && detail.routing.candidates.length === 2, JSON.stringify(detail.routing));
    assert.equal(detail.carbon.carbonGrams, request.carbonGrams);
    assert.ok(detail.carbon.energyWh > 0);
    assert.ok(detail.prices !== null);
    assert.equal(bodies, null);
    assert.equal(bodiesExpired, false);
  });

  it('a request no model answered still shows its attempts; an unknown id is 404', async () => {
    fake.setHandler(() => openAIErrors.serverError());
    const response = await fetch(`${gateway.baseUrl}/${gateway.router.id}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.apiKey}` },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.ok(response.status >= 500);
    const opened = await entry(response.headers.get('x-request-id') ?? '');
    assert.equal(opened.body.detail.attempts.length, 2);
    assert.ok(opened.body.detail.attempts.every((attempt: { outcome: string }) => attempt.outcome === 'failed'));
    assert.equal(opened.body.detail.carbon, null);
    assert.equal((await owner.get(`${owner.ws}/usage/requests/req_nope`)).status, 404);
  });

  it('bodies kept when logging is on, secrets redacted; turned off, they are gone', async () => {
    assert.equal((await setBodies({ bodies: true, retentionDays: 3, maxBodyBytes: 4096 })).status, 200);
    const leaked = `my key is ${gateway.apiKey} and the provider's is ${PROVIDER_KEY}, also sk-abcdefghijklmnop`;
    // The router directory sees the change within a poll (50 ms in tests).
    let id = '';
    for (let attempt = 0; attempt < 40; attempt += 1) {
      id = await chat(leaked);
      if ((await entry(id)).body.bodies !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { bodies } = (await entry(id)).body;
    assert.ok(bodies !== null, 'bodies are kept');
    assert.ok(bodies.request.includes('my key is [redacted]'), bodies.request);
    assert.ok(!bodies.request.includes(gateway.apiKey) && !bodies.request.includes(PROVIDER_KEY) && !bodies.request.includes('sk-abcdefghijklmnop'), bodies.request);
    assert.ok(JSON.parse(bodies.response).choices.length === 1);
    assert.equal(bodies.truncated, false);

    const streamed = await chat('stream this', true);
    const streamBodies = (await entry(streamed)).body.bodies;
    assert.ok(streamBodies !== null && streamBodies.response.length > 0, 'a stream keeps its text');

    assert.equal((await setBodies(null)).status, 200);
    assert.equal((await entry(id)).body.bodies, null);
    assert.equal((await entry(id)).body.bodiesExpired, false);
    assert.ok((await entry(id)).body.detail !== null, 'the detail stays');
  });

  it('bodies are capped at the router\'s size', async () => {
    assert.equal((await setBodies({ bodies: true, maxBodyBytes: 100 })).status, 200);
    let opened;
    for (let attempt = 0; attempt < 40; attempt += 1) {
      opened = await entry(await chat('x'.repeat(500)));
      // Until the new cap reached the router (an earlier test left bodies on, uncapped).
      if (opened.body.bodies?.truncated === true) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(opened?.body.bodies.truncated);
    assert.ok(Buffer.byteLength(opened?.body.bodies.request) <= 100);
    assert.equal((await setBodies({ bodies: true, maxBodyBytes: 2_000_000 })).status, 400);
    assert.equal((await setBodies({ bodies: true, retentionDays: 91 })).status, 400);
  });

  it('the retention sweep deletes old bodies but keeps the detail', async () => {
    assert.equal((await setBodies({ bodies: true, retentionDays: 1 })).status, 200);
    // Until the new setting reached the router (an earlier test left bodies on, kept for longer): a body kept a day.
    const keptFor = async (requestId: string) => {
      const row = await gateway.app.storage.db.selectFrom('request_logs').select(['created_at', 'bodies_expire_at']).where('request_id', '=', requestId).executeTakeFirst();
      return row?.bodies_expire_at === null || row === undefined ? undefined : row.bodies_expire_at - row.created_at;
    };
    let id = '';
    for (let attempt = 0; attempt < 200; attempt += 1) {
      id = await chat('keep me a day');
      if ((await entry(id)).body.bodies !== null && (await keptFor(id)) === DAY_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok((await entry(id)).body.bodies !== null, 'logging was on for the first call');
    let fresh = '';
    // The fresh call must keep its body too: its entry is written with its usage record, off the request path.
    for (let attempt = 0; attempt < 200; attempt += 1) {
      fresh = await chat('keep me too');
      if ((await entry(fresh)).body.bodies !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const attemptsBefore = (await entry(id)).body.detail.attempts.length;
    assert.ok(attemptsBefore >= 1);
    await gateway.app.repositories.requestLogs.age(id, 2 * DAY_MS);
    assert.ok((await gateway.app.requestLogSweeper.runOnce()) >= 1);
    const swept = (await entry(id)).body;
    assert.equal(swept.bodies, null);
    assert.equal(swept.bodiesExpired, true);
    assert.equal(swept.detail.attempts.length, attemptsBefore, 'the detail is kept whole');
    assert.ok((await entry(fresh)).body.bodies !== null, 'a body within its retention stays');
  });

  it('filters the list by model, status and time', async () => {
    fake.setHandler(() => undefined);
    await chat('filter me');
    const list = async (query: string) => (await owner.get(`${owner.ws}/usage/requests?${query}`)).body;
    const byModel = await list(`model=${encodeURIComponent(MINI)}`);
    assert.ok(byModel.requests.length > 0 && byModel.requests.every((row: { model: string }) => row.model === MINI));
    const errorsOnly = await list('status=error');
    assert.ok(errorsOnly.requests.length > 0 && errorsOnly.requests.every((row: { status: number }) => row.status >= 400));
    const ok = await list('status=200');
    assert.ok(ok.requests.every((row: { status: number }) => row.status === 200));
    assert.equal((await list(`from=${Date.now() + 60_000}`)).requests.length, 0);
    assert.equal((await owner.get(`${owner.ws}/usage/requests?status=bad`)).status, 400);
  });

  it('deleting the router deletes its bodies', async () => {
    assert.equal((await setBodies({ bodies: true })).status, 200);
    let id = '';
    for (let attempt = 0; attempt < 40; attempt += 1) {
      id = await chat('bye');
      if ((await entry(id)).body.bodies !== null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok((await entry(id)).body.bodies !== null);
    assert.equal((await owner.delete(`${owner.ws}/routers/${gateway.router.id}`)).status, 204);
    const opened = (await entry(id)).body;
    assert.equal(opened.bodies, null);
    assert.ok(opened.detail !== null);
  });
});
