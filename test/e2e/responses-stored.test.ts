import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import OpenAI, { NotFoundError } from 'openai';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * Stored responses through the `openai` SDK on the offline simulator: `store` (default true), `GET`, `DELETE` and
 * `input_items` with OpenAI's pagination, scoped to the key's owner, the size limit, no usage record for reading what
 * was stored, agents and a router in the path.
 */

/** `store` is in the response object, though the SDK does not type it. */
const storeOf = (response: object): unknown => (response as { store?: unknown }).store;

const messages = (count: number): ResponseInputItem[] =>
  Array.from({ length: count }, (_, index) => ({ type: 'message', role: index % 2 === 0 ? 'user' : 'assistant', content: `turn ${index}` }) as ResponseInputItem);

describe('stored responses', () => {
  let gateway: Gateway;
  let client: OpenAI;
  let stranger: OpenAI;
  let strangerKey: string;

  const raw = (method: string, path: string, key = gateway.apiKey) => fetch(`${gateway.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  const usageCount = async () => {
    await gateway.app.usage.flush();
    return (await gateway.app.repositories.usage.list()).length;
  };

  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_DEFAULT_RPM: '100000' } });
    client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl, maxRetries: 0 });
    await gateway.admin.createUser('stranger@example.com', 'another horse battery');
    strangerKey = (await gateway.admin.createKey({ ownerEmail: 'stranger@example.com', name: 'theirs' })).value;
    stranger = new OpenAI({ apiKey: strangerKey, baseURL: gateway.baseUrl, maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
  });

  it('store defaults to true: GET gives the response as it was answered; no usage record for reading it', async () => {
    const created = await client.responses.create({ model: gateway.router.id, input: 'Keep me', metadata: { topic: 'storage' } });
    assert.equal(storeOf(created), true);
    const before = await usageCount();
    const fetched = await client.responses.retrieve(created.id);
    assert.deepEqual(fetched, created);
    await client.responses.inputItems.list(created.id);
    assert.equal(await usageCount(), before, 'GET and input_items write no usage record');
  });

  it('input_items: every item the response was made from, paged as OpenAI pages (desc by default, limit, after, before)', async () => {
    const created = await client.responses.create({ model: gateway.router.id, input: messages(5) });
    const asc = await client.responses.inputItems.list(created.id, { order: 'asc', limit: 2 });
    assert.deepEqual(asc.data.map((item) => item.type === 'message' && item.content[0]?.type === 'input_text' ? item.content[0].text : item.type), ['turn 0', 'message']);
    assert.equal(asc.has_more, true);
    const page = (await (await raw('GET', `/responses/${created.id}/input_items?order=asc&limit=2`)).json()) as { object: string; first_id: string; last_id: string; data: { id: string }[] };
    assert.equal(page.object, 'list');
    assert.deepEqual([page.first_id, page.last_id], [page.data[0]?.id, page.data[1]?.id]);
    const all: string[] = [];
    for await (const item of client.responses.inputItems.list(created.id, { limit: 2 })) all.push(item.id ?? '');
    assert.equal(all.length, 5);
    const ascIds = (await client.responses.inputItems.list(created.id, { order: 'asc', limit: 100 })).data.map((item) => item.id);
    assert.deepEqual(all, [...ascIds].reverse(), 'desc by default, the SDK following `after` page by page');
    const before = (await (await raw('GET', `/responses/${created.id}/input_items?order=asc&before=${ascIds[2]}`)).json()) as { data: { id: string }[]; has_more: boolean };
    assert.deepEqual(before.data.map((item) => item.id), ascIds.slice(0, 2));
    assert.equal((await raw('GET', `/responses/${created.id}/input_items?limit=0`)).status, 400);
  });

  it('DELETE answers OpenAI\'s deleted object; the response is then 404 for GET, DELETE and previous_response_id', async () => {
    const created = await client.responses.create({ model: gateway.router.id, input: 'Forget me' });
    const deleted = await raw('DELETE', `/responses/${created.id}`);
    assert.equal(deleted.status, 200);
    assert.deepEqual(await deleted.json(), { id: created.id, object: 'response', deleted: true });
    await assert.rejects(client.responses.retrieve(created.id), (error: unknown) => error instanceof NotFoundError && (error.error as { code?: string }).code === 'response_not_found');
    assert.equal((await raw('DELETE', `/responses/${created.id}`)).status, 404);
    await assert.rejects(client.responses.create({ model: gateway.router.id, previous_response_id: created.id, input: 'Again' }), NotFoundError);
  });

  it("another owner's response is 404 for every route, and their DELETE leaves it", async () => {
    const created = await client.responses.create({ model: gateway.router.id, input: 'Mine' });
    for (const [method, path] of [['GET', `/responses/${created.id}`], ['GET', `/responses/${created.id}/input_items`], ['DELETE', `/responses/${created.id}`]] as const) {
      const response = await raw(method, path, strangerKey);
      assert.equal(response.status, 404, `${method} ${path}`);
      const body = (await response.json()) as { error: { type: string; code: string; message: string } };
      assert.deepEqual([body.error.type, body.error.code], ['not_found_error', 'response_not_found']);
      assert.match(body.error.message, new RegExp(created.id));
    }
    await assert.rejects(stranger.responses.retrieve(created.id), NotFoundError);
    const continued = await fetch(`${gateway.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${strangerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: gateway.router.id, previous_response_id: created.id, input: 'Theirs?' }),
    });
    assert.equal(continued.status, 404);
    assert.equal(((await continued.json()) as { error: { param: string } }).error.param, 'previous_response_id');
    assert.equal((await client.responses.retrieve(created.id)).id, created.id, 'still there for its owner');
  });

  it('store: false is answered, said so, and not kept', async () => {
    const { data, response } = await client.responses.create({ model: gateway.router.id, input: 'Do not keep', store: false }).withResponse();
    assert.equal(storeOf(data), false);
    assert.equal(response.headers.get('x-modelport-response-stored'), 'not_requested');
    await assert.rejects(client.responses.retrieve(data.id), NotFoundError);
  });

  it('agent:<name> answers as a response, with the agent _meta, whole and streamed', async () => {
    const agent = await fetch(`${gateway.origin}/api/v1/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'echo', steps: [{ name: 'only', router: gateway.router.id, prompt: 'Repeat: {{input}}' }] }),
    });
    assert.equal(agent.status, 201);
    const whole = await client.responses.create({ model: 'agent:echo', input: 'solar panels' });
    assert.match(whole.output_text, /Repeat: solar panels/);
    assert.equal(typeof (whole as unknown as { _meta: { execution_id: string } })._meta.execution_id, 'string');
    const streamed = await client.responses.stream({ model: 'agent:echo', input: 'wind' }).finalResponse();
    assert.match(streamed.output_text, /Repeat: wind/);
    assert.equal((await client.responses.retrieve(whole.id)).output_text, whole.output_text);
  });

  it('a router id in the path wins over model, for creating and reading', async () => {
    const routed = new OpenAI({ apiKey: gateway.apiKey, baseURL: `${gateway.baseUrl}/v1/${gateway.router.id}`, maxRetries: 0 });
    const created = await routed.responses.create({ model: 'gpt-4o', input: 'Path router' });
    assert.equal(created.model, 'sim:small');
    assert.equal((await routed.responses.retrieve(created.id)).id, created.id);
  });
});

describe('stored responses: the size limit', () => {
  let gateway: Gateway;
  let client: OpenAI;
  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_RESPONSES_MAX_BYTES: '3000', MODELPORT_DEFAULT_RPM: '100000' } });
    client = new OpenAI({ apiKey: gateway.apiKey, baseURL: gateway.baseUrl, maxRetries: 0 });
  });
  after(async () => {
    await gateway.close();
  });

  it('a small response is stored; a larger one is answered with store: false and the header says why', async () => {
    const small = await client.responses.create({ model: gateway.router.id, input: 'Short' }).withResponse();
    assert.equal(small.response.headers.get('x-modelport-response-stored'), 'stored');
    const large = await client.responses.create({ model: gateway.router.id, input: 'x'.repeat(4000) }).withResponse();
    assert.equal(large.response.status, 200);
    assert.equal(large.response.headers.get('x-modelport-response-stored'), 'too_large');
    assert.equal(storeOf(large.data), false);
    await assert.rejects(client.responses.retrieve(large.data.id), NotFoundError);
  });

  it('streamed, the last event says it: response.store is false', async () => {
    const final = await client.responses.stream({ model: gateway.router.id, input: 'y'.repeat(4000) }).finalResponse();
    assert.equal(final.status, 'completed');
    assert.equal(storeOf(final), false);
    await assert.rejects(client.responses.retrieve(final.id), NotFoundError);
    const kept = await client.responses.stream({ model: gateway.router.id, input: 'Short' }).finalResponse();
    assert.equal(storeOf(kept), true);
    assert.equal((await client.responses.retrieve(kept.id)).output_text, kept.output_text);
  });
});
