import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const hello = [{ role: 'user', content: 'Hello' }];

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { error?: { type: string; code: string; message: string }; usage?: { total_tokens: number } };
}

async function chat(gateway: Gateway, key: string, body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: gateway.router.id, messages: hello, ...body }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Answer['body'] };
}

async function newKey(gateway: Gateway, limits: { rpmLimit?: number; tpmLimit?: number; maxConcurrency?: number }): Promise<string> {
  return (await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'limited', ...limits })).value;
}

describe('rate limits (in process, 3 s window)', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_RATE_WINDOW_MS: '3000' } });
  });
  after(async () => {
    await gateway.close();
  });

  it('requests per minute: N answered with x-ratelimit headers, then 429 with Retry-After, then free again once the window slides', async () => {
    const key = await newKey(gateway, { rpmLimit: 3 });
    for (let i = 0; i < 3; i += 1) {
      const answer = await chat(gateway, key, {});
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('x-ratelimit-limit-requests'), '3');
      assert.equal(answer.headers.get('x-ratelimit-remaining-requests'), String(2 - i));
      assert.match(answer.headers.get('x-ratelimit-reset-requests') ?? '', /^\d+(ms|s)$/);
    }
    const refused = await chat(gateway, key, {});
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error?.type, 'rate_limit_error');
    assert.equal(refused.body.error?.code, 'rate_limit_exceeded');
    assert.equal(refused.headers.get('x-ratelimit-remaining-requests'), '0');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 3, `retry-after ${retryAfter}`);
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
    assert.equal((await chat(gateway, key, {})).status, 200);
  });

  it('tokens per minute: counted from the prompt and max_tokens before the call, corrected from the usage after', async () => {
    const key = await newKey(gateway, { tpmLimit: 400 });
    const tooLarge = await chat(gateway, key, { max_tokens: 500 });
    assert.equal(tooLarge.status, 429);
    assert.match(tooLarge.body.error?.message ?? '', /Request too large/);
    assert.equal(tooLarge.headers.get('retry-after'), null, 'waiting would not help');

    const first = await chat(gateway, key, { max_tokens: 300 });
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-ratelimit-limit-tokens'), '400');
    const estimate = 400 - Number(first.headers.get('x-ratelimit-remaining-tokens'));
    assert.ok(estimate > 300, `estimate ${estimate} includes max_tokens`);
    const used = first.body.usage?.total_tokens ?? 0;
    assert.ok(used < estimate);
    // Once the first call is corrected to its real usage, a second 300-token request fits.
    let second: Answer | undefined;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      second = await chat(gateway, key, { max_tokens: 300 });
      if (second.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(second?.status, 200);
    assert.equal(Number(second?.headers.get('x-ratelimit-remaining-tokens')), 400 - used - estimate);
  });

  it("a router's own limit holds across its keys; a refused request does not use the key's requests", async () => {
    const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'limited router', models: ['sim:small'], strategy: 'cost_optimized', rpmLimit: 2 });
    const keys = [await newKey(gateway, { rpmLimit: 2 }), await newKey(gateway, {})];
    const send = (key: string) => chat(gateway, key, { model: router.id });
    assert.equal((await send(keys[0] as string)).status, 200);
    assert.equal((await send(keys[1] as string)).status, 200);
    const refused = await send(keys[0] as string);
    assert.equal(refused.status, 429);
    assert.match(refused.body.error?.message ?? '', /router/);
    // The key's own budget of 2 requests was not spent by the refusal: another router still answers.
    assert.equal((await chat(gateway, keys[0] as string, {})).status, 200);
  });
});

describe('concurrency cap per key', () => {
  let gateway: Gateway;
  before(async () => {
    // Real sim timing, so a request is still in flight when the next arrives.
    gateway = await startGateway({ env: { MODELPORT_SIM_TIME_SCALE: '1' } });
  });
  after(async () => {
    await gateway.close();
  });

  it('refuses a request beyond the cap with 429 and frees the slot when a request ends', async () => {
    const key = await newKey(gateway, { maxConcurrency: 1 });
    // A stream holds its slot until its last byte: once its first chunk has arrived it is surely in flight.
    const slow = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: gateway.router.id, messages: hello, stream: true, max_tokens: 50 }),
    });
    assert.equal(slow.status, 200);
    const reader = (slow.body ?? assert.fail('no stream')).getReader();
    assert.equal((await reader.read()).done, false);
    const refused = await chat(gateway, key, { max_tokens: 1 });
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error?.type, 'rate_limit_error');
    assert.match(refused.body.error?.message ?? '', /in flight/);
    let text = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += new TextDecoder().decode(part.value);
    assert.match(text, /data: \[DONE\]/);
    // The slot is freed when the stream ends ('close'); the next request may arrive a moment before that.
    let next = await chat(gateway, key, { max_tokens: 1 });
    for (let attempt = 0; attempt < 50 && next.status === 429; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      next = await chat(gateway, key, { max_tokens: 1 });
    }
    assert.equal(next.status, 200);
  });
});
