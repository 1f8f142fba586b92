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
  before(async () => {
    gateway = await startGateway();
    guarded = await startGateway({ env: { MODELPORT_METRICS_TOKEN: 'scrape-token-0123456789' } });
  });
  after(async () => {
    await gateway.close();
    await guarded.close();
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
});
