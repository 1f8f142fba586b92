import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { usageRecordOf } from '../support/usage-records.js';

/**
 * A Responses API call is the same routed call as a chat completion: the same usage record (tokens, cost, model,
 * router, streamed, status), the same budgets, requests and tokens per minute, and the same /metrics.
 */

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly requestId: string;
}

async function send(gateway: Gateway, path: 'chat/completions' | 'responses', key: string, body: Record<string, unknown>): Promise<Sent> {
  const response = await fetch(`${gateway.baseUrl}/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: gateway.router.id, ...body }),
  });
  return { status: response.status, headers: response.headers, text: await response.text(), requestId: response.headers.get('x-request-id') ?? '' };
}

const chat = (gateway: Gateway, key: string, text: string, extra: Record<string, unknown> = {}) =>
  send(gateway, 'chat/completions', key, { messages: [{ role: 'user', content: text }], ...extra });
const responses = (gateway: Gateway, key: string, text: string, extra: Record<string, unknown> = {}) => send(gateway, 'responses', key, { input: text, ...extra });

function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{`) && wanted.every((label) => candidate.includes(label)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('Responses API calls are counted like chat completions', () => {
  let gateway: Gateway;
  const record = (id: string) => usageRecordOf(gateway, id);
  const newKey = async (name: string, limits: { rpmLimit?: number; tpmLimit?: number } = {}) => gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name, ...limits });

  before(async () => {
    // /metrics is read below by router: public with router labels, as on a deployment only its operator reaches.
    gateway = await startGateway({ env: { MODELPORT_METRICS_PUBLIC: 'true', MODELPORT_METRICS_ROUTER_LABELS: 'true' } });
  });
  after(async () => {
    await gateway.close();
  });

  for (const stream of [false, true]) {
    it(`the same question by both surfaces gives the same usage record (${stream ? 'streamed' : 'whole'})`, async () => {
      const question = `Count this question the same way, ${stream ? 'streamed' : 'whole'}.`;
      const byChat = await chat(gateway, gateway.apiKey, question, { stream });
      const byResponses = await responses(gateway, gateway.apiKey, question, { stream });
      assert.equal(byChat.status, 200, byChat.text);
      assert.equal(byResponses.status, 200, byResponses.text);
      const [a, b] = [await record(byChat.requestId), await record(byResponses.requestId)];
      const fields = (row: typeof a) => ({
        status: row.status,
        model: row.model,
        router: row.router_id,
        key: row.key_id,
        streamed: row.streamed,
        prompt: row.prompt_tokens,
        completion: row.completion_tokens,
        cost: row.cost_usd,
        attempts: row.attempts,
      });
      assert.deepEqual(fields(b), fields(a));
      assert.ok(b.prompt_tokens > 0 && b.completion_tokens > 0 && b.cost_usd > 0);
      const meta = stream
        ? (JSON.parse(byResponses.text.trim().split('\n').at(-1)?.slice('data: '.length) ?? '{}') as { response: { _meta: { cost: number } } }).response._meta
        : (JSON.parse(byResponses.text) as { _meta: { cost: number } })._meta;
      assert.equal(meta.cost, b.cost_usd);
    });
  }

  it('a key over its budget is refused before the call, whole or streamed, with insufficient_quota', async () => {
    const { key, value } = await newKey('tiny budget');
    await gateway.admin.setBudget(gateway.ownerEmail, 'key', key.id, { amountUsd: 1e-9, period: 'day' });
    assert.equal((await responses(gateway, value, 'Spend once.')).status, 200);
    for (const stream of [false, true]) {
      const refused = await responses(gateway, value, 'Spend again.', { stream });
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('content-type') ?? '', /application\/json/, 'a JSON error, not a stream');
      assert.equal((JSON.parse(refused.text) as { error: { code: string } }).error.code, 'insufficient_quota');
    }
  });

  it("requests per minute: the key's limit counts Responses calls", async () => {
    const { value } = await newKey('one a minute', { rpmLimit: 1 });
    const first = await responses(gateway, value, 'Once.');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-ratelimit-limit-requests'), '1');
    const second = await responses(gateway, value, 'Twice.');
    assert.equal(second.status, 429);
    assert.equal((JSON.parse(second.text) as { error: { code: string } }).error.code, 'rate_limit_exceeded');
    assert.ok(Number(second.headers.get('retry-after')) >= 1);
  });

  it('tokens per minute: the prompt and max_output_tokens are counted before the call', async () => {
    const { value } = await newKey('400 tokens a minute', { tpmLimit: 400 });
    const tooLarge = await responses(gateway, value, 'Hello', { max_output_tokens: 500 });
    assert.equal(tooLarge.status, 429);
    assert.match(tooLarge.text, /Request too large/);
    const fits = await responses(gateway, value, 'Hello', { max_output_tokens: 300 });
    assert.equal(fits.status, 200, fits.text);
    assert.equal(fits.headers.get('x-ratelimit-limit-tokens'), '400');
    const estimate = 400 - Number(fits.headers.get('x-ratelimit-remaining-tokens'));
    assert.ok(estimate > 300, `estimate ${estimate} includes max_output_tokens`);
  });

  it('/metrics counts Responses calls like chat completions; reading stored responses is not a request of a model', async () => {
    const fresh = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'metrics', models: ['sim:small'], strategy: 'cost_optimized' });
    const labels = { router: fresh.id, model: 'sim:small', status: '200' };
    const read = async () => (await fetch(`${gateway.origin}/metrics`)).text();
    assert.equal(sample(await read(), 'modelport_requests_total', labels), undefined);
    const created: string[] = [];
    for (const stream of [false, false, true]) {
      const sent = await send(gateway, 'responses', gateway.apiKey, { model: fresh.id, input: 'metrics please', stream });
      assert.equal(sent.status, 200);
      if (!stream) created.push((JSON.parse(sent.text) as { id: string }).id);
    }
    assert.equal((await chat(gateway, gateway.apiKey, 'metrics please', { model: fresh.id })).status, 200);
    for (const id of created) {
      await fetch(`${gateway.baseUrl}/responses/${id}`, { headers: { authorization: `Bearer ${gateway.apiKey}` } });
      await fetch(`${gateway.baseUrl}/responses/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${gateway.apiKey}` } });
    }
    let text = '';
    for (let tries = 0; tries < 100; tries += 1) {
      text = await read();
      if (sample(text, 'modelport_requests_total', labels) === 4) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(sample(text, 'modelport_requests_total', labels), 4);
    assert.equal(sample(text, 'modelport_request_duration_seconds_count', labels), 4);
    assert.ok((sample(text, 'modelport_tokens_total', { model: 'sim:small', kind: 'completion' }) ?? 0) > 0);
  });
});
