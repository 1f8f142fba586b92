import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/** `GET /models` says what each router serves, and a chat request never reaches an embedding router's models. */
describe('router kinds over HTTP', () => {
  let gateway: Gateway;
  let embeddingRouter = '';

  before(async () => {
    gateway = await startGateway();
    embeddingRouter = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'vectors', models: ['sim:embed-small'], strategy: 'cost_optimized' })).id;
  });
  after(async () => gateway?.close());

  const get = async (path: string) => {
    const response = await fetch(`${gateway.baseUrl}${path}`, { headers: { authorization: `Bearer ${gateway.apiKey}` } });
    return (await response.json()) as { data: { id: string; kind: string; object: string }[] };
  };

  it('lists each router with its kind, at both bases', async () => {
    for (const path of ['/models', '/v1/models']) {
      const kinds = Object.fromEntries((await get(path)).data.map((entry) => [entry.id, entry.kind]));
      assert.deepEqual(kinds, { [gateway.router.id]: 'chat', [embeddingRouter]: 'embedding' });
    }
  });

  it('refuses a chat completion on an embedding router, saying what it serves', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: embeddingRouter, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    assert.equal(response.status, 400);
    const { error } = (await response.json()) as { error: { message: string; code: string; param: string } };
    assert.equal(error.code, 'unsupported_request');
    assert.equal(error.param, 'model');
    assert.match(error.message, /This router serves embeddings, not chat/);
  });
});
