import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && wanted.every((label) => candidate.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('metrics: GET /metrics in the Prometheus text format', () => {
  let gateway: Gateway;
  let guarded: Gateway;
  let open: Gateway;
  let closed: Gateway;
  before(async () => {
    // The operator of a deployment only they reach makes /metrics public and allows router ids in labels.
    gateway = await startGateway({ env: { MODELPORT_METRICS_PUBLIC: 'true', MODELPORT_METRICS_ROUTER_LABELS: 'true' } });
    guarded = await startGateway({ env: { MODELPORT_METRICS_TOKEN: 'scrape-token-0123456789' } });
    // Anyone may sign up, and nothing about metrics is set.
    open = await startGateway({ env: { MODELPORT_SIGNUP: 'open' } });
    // Sign-up closed (the default without a mail server), and nothing about metrics is set.
    closed = await startGateway({ env: { MODELPORT_SIGNUP: 'closed' } });
  });
  after(async () => {
    await gateway.close();
    await guarded.close();
    await open.close();
    await closed.close();
  });

  it('counts requests, latency, tokens, cost, carbon and budget refusals by router, model and status, with no key in any label', async () => {
    const chat = (apiKey: string) =>
      fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: gateway.router.id, messages: [{ role: 'user', content: 'metrics please' }] }),
      });
    for (let index = 0; index < 3; index += 1) assert.equal((await chat(gateway.apiKey)).status, 200);
    const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'tiny budget' });
    await gateway.admin.setBudget(gateway.ownerEmail, 'key', key.id, { amountUsd: 1e-9, period: 'day' });
    assert.equal((await chat(value)).status, 200);
    assert.equal((await chat(value)).status, 429);
    const { value: limited } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'one a minute', rpmLimit: 1 });
    assert.equal((await chat(limited)).status, 200);
    assert.equal((await chat(limited)).status, 429);

    const response = await fetch(`${gateway.origin}/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
    const text = await response.text();
    const labels = { router: gateway.router.id, model: 'sim:small', status: '200' };
    assert.equal(sample(text, 'modelport_requests_total', labels), 5);
    assert.equal(sample(text, 'modelport_request_duration_seconds_count', labels), 5);
    assert.equal(sample(text, 'modelport_requests_total', { router: gateway.router.id, model: 'none', status: '429' }), 1);
    assert.ok((sample(text, 'modelport_tokens_total', { model: 'sim:small', kind: 'completion' }) ?? 0) > 0);
    assert.ok((sample(text, 'modelport_cost_usd_total', { model: 'sim:small' }) ?? 0) > 0);
    assert.ok((sample(text, 'modelport_carbon_grams_total', { model: 'sim:small' }) ?? 0) > 0);
    assert.equal(sample(text, 'modelport_limiter_rejections_total', { limit: 'budget', scope: 'key' }), 1);
    assert.equal(sample(text, 'modelport_limiter_rejections_total', { limit: 'rpm', scope: 'key' }), 1);
    assert.match(text, /^modelport_usage_queue_depth \d+$/m);
    assert.match(text, /^modelport_process_resident_memory_bytes /m);
    // No key, key id or owner anywhere.
    for (const secret of [gateway.apiKey, value, key.id, gateway.ownerEmail, 'mp_']) assert.ok(!text.includes(secret), `metrics contain ${secret}`);
  });

  it('needs the bearer token when MODELPORT_METRICS_TOKEN is set', async () => {
    assert.equal((await fetch(`${guarded.origin}/metrics`)).status, 401);
    assert.equal((await fetch(`${guarded.origin}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
    const scraped = await fetch(`${guarded.origin}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } });
    assert.equal(scraped.status, 200);
    assert.match(await scraped.text(), /modelport_requests_total/);
  });

  it('is refused (401) where anyone may sign up and no token is set, and says what to set; open on a closed deployment', async () => {
    assert.equal(await chatStatus(open, open.apiKey), 200);
    const response = await fetch(`${open.origin}/metrics`);
    assert.equal(response.status, 401);
    const body = (await response.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'invalid_api_key');
    assert.match(body.error.message, /MODELPORT_METRICS_TOKEN/);
    // No token the operator never set can open it.
    assert.equal((await fetch(`${open.origin}/metrics`, { headers: { authorization: 'Bearer ' } })).status, 401);
    assert.equal((await fetch(`${open.origin}/metrics`, { headers: { authorization: 'Bearer undefined' } })).status, 401);
    const openPublic = await startGateway({ env: { MODELPORT_SIGNUP: 'open', MODELPORT_METRICS_PUBLIC: 'true' } });
    try {
      assert.equal((await fetch(`${openPublic.origin}/metrics`)).status, 200, 'MODELPORT_METRICS_PUBLIC=true opens it');
    } finally {
      await openPublic.close();
    }
    assert.equal((await fetch(`${closed.origin}/metrics`)).status, 200, 'public where only the operator creates accounts');
  });

  it('names no router in any label unless MODELPORT_METRICS_ROUTER_LABELS=true: the series add up every router', async () => {
    const second = await guarded.admin.createRouter({ ownerEmail: guarded.ownerEmail, name: 'second', models: ['sim:small'], strategy: 'cost_optimized' });
    assert.equal(await chatStatus(guarded, guarded.apiKey), 200);
    assert.equal(await chatStatus(guarded, guarded.apiKey, second.id), 200);
    let text = '';
    for (let tries = 0; tries < 100; tries += 1) {
      const scraped = await fetch(`${guarded.origin}/metrics`, { headers: { authorization: 'Bearer scrape-token-0123456789' } });
      assert.equal(scraped.status, 200);
      text = await scraped.text();
      if (sample(text, 'modelport_requests_total', { model: 'sim:small', status: '200' }) === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(sample(text, 'modelport_requests_total', { model: 'sim:small', status: '200' }), 2);
    assert.ok((sample(text, 'modelport_tokens_total', { model: 'sim:small', kind: 'completion' }) ?? 0) > 0);
    for (const routerId of [guarded.router.id, second.id]) assert.ok(!text.includes(routerId), `metrics contain the router id ${routerId}`);
    assert.doesNotMatch(text, /router="/);
  });
});

/** Status of one chat completion through `gateway` with `apiKey` on its router (or `routerId`). */
async function chatStatus(gateway: Gateway, apiKey: string, routerId: string = gateway.router.id): Promise<number> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: routerId, messages: [{ role: 'user', content: 'metrics please' }] }),
  });
  await response.arrayBuffer();
  return response.status;
}
