import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

describe('client paths at the root name the right base URL', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());

  const cases: Array<[string, string, RegExp]> = [
    ['POST', '/v1/chat/completions', /\/api\/router\/v1\/chat\/completions/],
    ['POST', '/chat/completions', /\/api\/router\/v1\/chat\/completions/],
    ['POST', '/v1/responses', /\/api\/router\/v1\/responses/],
    ['POST', '/v1/embeddings', /\/api\/router\/v1\/embeddings/],
    ['GET', '/v1/models', /\/api\/router\/v1\/models/],
    ['POST', '/v1/messages', /base URL to http:\/\/127\.0\.0\.1:\d+\/api\/router\./],
  ];
  for (const [method, path, names] of cases) {
    it(`${method} ${path}: a JSON 404 in OpenAI's error shape`, async () => {
      const answer = await fetch(`${gateway.origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      assert.equal(answer.status, 404);
      assert.match(answer.headers.get('content-type') ?? '', /application\/json/);
      const body = (await answer.json()) as { error: { message: string; type: string; code: string } };
      assert.equal(body.error.type, 'not_found_error');
      assert.equal(body.error.code, 'endpoint_not_found');
      assert.ok(body.error.message.includes(`${gateway.origin}/api/router`), body.error.message);
      assert.match(body.error.message, names);
    });
  }
});

describe('listing models is not a routed call: no usage record', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());

  it('GET /models leaves usage totals equal to the sum of their breakdown by router', async () => {
    const headers = { authorization: `Bearer ${gateway.apiKey}` };
    for (const path of ['/models', '/v1/models']) assert.equal((await fetch(`${gateway.baseUrl}${path}`, { headers })).status, 200);
    const chat = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ model: gateway.router.id, messages: [{ role: 'user', content: 'hi' }] }),
    });
    assert.equal(chat.status, 200);
    const chatId = chat.headers.get('x-request-id');
    let records: Awaited<ReturnType<typeof gateway.app.repositories.usage.list>> = [];
    for (let tries = 0; tries < 100 && records.length === 0; tries += 1) {
      await gateway.app.usage.flush();
      records = await gateway.app.repositories.usage.list();
      if (records.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // A moment more, in case a record of the listings were still on its way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await gateway.app.usage.flush();
    records = await gateway.app.repositories.usage.list();
    assert.deepEqual(records.map((row) => row.id), [chatId]);
    const byRouter = records.filter((row) => row.router_id === gateway.router.id).length;
    assert.equal(byRouter, records.length);
  });
});
