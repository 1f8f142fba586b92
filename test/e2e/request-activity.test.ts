import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI from 'openai';
import { createRequestActivity, type RequestActivity } from '../../src/lib/request-activity.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/** Waits until `activity` has seen `count` events (a response's end is noted once it has been written). */
async function eventsReach(activity: RequestActivity, count: number): Promise<number> {
  for (let waited = 0; activity.events < count && waited < 5_000; waited += 10) await sleep(10);
  return activity.events;
}

describe('request activity: what the idle collector counts as requests', () => {
  let gateway: Gateway;
  const activity = createRequestActivity();
  before(async () => {
    gateway = await startGateway({ activity });
  });
  after(async () => {
    await gateway.close();
  });

  it('counts the start and the end of answered and streamed requests and of refused ones, not health or metrics probes', async () => {
    const probe = await fetch(`${gateway.origin}/healthz`);
    assert.equal(probe.status, 200);
    await probe.text();
    await (await fetch(`${gateway.origin}/metrics`)).text();
    await sleep(50);
    assert.equal(activity.events, 0);

    const client = new OpenAI({ apiKey: gateway.apiKey, baseURL: `${gateway.baseUrl}/v1` });
    await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hello' }] });
    assert.equal(await eventsReach(activity, 2), 2);

    const stream = await client.chat.completions.create({ model: gateway.router.id, messages: [{ role: 'user', content: 'Hello' }], stream: true });
    for await (const chunk of stream) assert.equal(chunk.object, 'chat.completion.chunk');
    assert.equal(await eventsReach(activity, 4), 4);

    const refused = await fetch(`${gateway.baseUrl}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(refused.status, 401);
    await refused.text();
    assert.equal(await eventsReach(activity, 6), 6);
  });
});
