import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** `_meta.cost` of an answer, 0 for a refusal. */
  readonly cost: number;
}

/** One request; streams are read to the end and their cost taken from the `_meta` of the last chunk. */
async function send(gateway: Gateway, apiKey: string, routerId: string, stream: boolean): Promise<Sent> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: routerId, stream, messages: [{ role: 'user', content: 'Count the costs of this budget test, please.' }] }),
  });
  const body = await response.text();
  let cost = 0;
  if (response.status === 200) {
    const metas = stream
      ? body
          .split('\n')
          .filter((line) => line.startsWith('data: {'))
          .map((line) => (JSON.parse(line.slice('data: '.length)) as { _meta?: { cost: number } })._meta)
          .filter((meta) => meta !== undefined)
      : [(JSON.parse(body) as { _meta: { cost: number } })._meta];
    cost = metas.at(-1)?.cost ?? Number.NaN;
  }
  return { status: response.status, headers: response.headers, body, cost };
}

/** Sends one request at a time until the first refusal (at most `max`). */
async function spendUntilRefused(gateway: Gateway, apiKey: string, routerId: string, stream: (index: number) => boolean, max = 40) {
  const admitted: number[] = [];
  for (let index = 0; index < max; index += 1) {
    const sent = await send(gateway, apiKey, routerId, stream(index));
    if (sent.status !== 200) return { admitted, refusal: sent };
    assert.ok(sent.cost > 0, 'every answer has a cost');
    admitted.push(sent.cost);
  }
  return { admitted, refusal: undefined };
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

describe('budgets: spend caps per key and per router, checked before the call and charged from the real cost', () => {
  let gateway: Gateway;
  let costOfOne: number;
  before(async () => {
    gateway = await startGateway();
    const first = await send(gateway, gateway.apiKey, gateway.router.id, false);
    assert.equal(first.status, 200, first.body);
    costOfOne = first.cost;
  });
  after(async () => {
    await gateway.close();
  });

  it('stops a key at its daily budget (non-streamed and streamed alike) with 429 insufficient_quota naming the budget', async () => {
    const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'budgeted' });
    const budgetUsd = costOfOne * 4.5;
    await gateway.admin.setBudget(gateway.ownerEmail, 'key', key.id, { amountUsd: budgetUsd, period: 'day' });
    const { admitted, refusal } = await spendUntilRefused(gateway, value, gateway.router.id, (index) => index % 2 === 1);
    assert.ok(refusal !== undefined, 'the budget stopped the key');
    assert.equal(refusal.status, 429, refusal.body);
    const error = (JSON.parse(refusal.body) as { error: { type: string; code: string; message: string } }).error;
    assert.equal(error.type, 'insufficient_quota');
    assert.equal(error.code, 'insufficient_quota');
    assert.match(error.message, /Budget exceeded for this API key: \$[\d.]+ per day \(UTC\)/);
    assert.match(error.message, /resets at \d{4}-\d{2}-\d{2}T00:00:00\.000Z/);
    assert.ok(Number(refusal.headers.get('retry-after')) >= 1);
    // One request at a time: every request before the budget was reached got through, none after.
    assert.ok(sum(admitted) >= budgetUsd, `spent ${sum(admitted)} of ${budgetUsd}`);
    assert.ok(sum(admitted.slice(0, -1)) < budgetUsd, `admitted past the budget: ${admitted.join(', ')}`);
    // The key of the seeded router without a budget still answers.
    assert.equal((await send(gateway, gateway.apiKey, gateway.router.id, false)).status, 200);
  });

  it('stops every key of a router at the router budget, streamed requests charged from their counted cost', async () => {
    const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'budgeted router', models: ['sim:small'], strategy: 'cost_optimized' });
    const budgetUsd = costOfOne * 3.5;
    await gateway.admin.setBudget(gateway.ownerEmail, 'router', router.id, { amountUsd: budgetUsd, period: 'month' });
    const other = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'second key' });
    // Two keys share the router's budget: alternate them, every request streamed.
    const admitted: number[] = [];
    let refusal: Sent | undefined;
    for (let index = 0; index < 40 && refusal === undefined; index += 1) {
      const sent = await send(gateway, index % 2 === 0 ? gateway.apiKey : other.value, router.id, true);
      if (sent.status === 200) admitted.push(sent.cost);
      else refusal = sent;
    }
    assert.ok(refusal !== undefined, 'the router budget stopped both keys');
    assert.equal(refusal.status, 429, refusal.body);
    assert.match(refusal.body, new RegExp(`Budget exceeded for router ${router.id}: \\$[\\d.]+ per month \\(UTC\\)`));
    assert.ok(sum(admitted) >= budgetUsd);
    assert.ok(sum(admitted.slice(0, -1)) < budgetUsd, `admitted past the budget: ${admitted.join(', ')}`);
    // The owner's other router is not affected.
    assert.equal((await send(gateway, gateway.apiKey, gateway.router.id, true)).status, 200);
  });

  it('lets a key through again when its budget is raised or removed, without a restart', async () => {
    const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'raised' });
    await gateway.admin.setBudget(gateway.ownerEmail, 'key', key.id, { amountUsd: costOfOne / 2, period: 'day' });
    assert.equal((await send(gateway, value, gateway.router.id, false)).status, 200);
    await gateway.app.changes.poll();
    assert.equal((await send(gateway, value, gateway.router.id, false)).status, 429);
    await gateway.admin.setBudget(gateway.ownerEmail, 'key', key.id, { amountUsd: null });
    await gateway.app.changes.poll();
    assert.equal((await send(gateway, value, gateway.router.id, false)).status, 200);
  });

  it('refuses budgets that are not an amount above zero, and keys or routers of another owner', async () => {
    await assert.rejects(gateway.admin.setBudget(gateway.ownerEmail, 'router', gateway.router.id, { amountUsd: 0 }), /above 0/);
    await assert.rejects(gateway.admin.setBudget(gateway.ownerEmail, 'router', gateway.router.id, { amountUsd: Number.NaN }), /above 0/);
    await assert.rejects(gateway.admin.setBudget(gateway.ownerEmail, 'key', 'key_doesnotexist', { amountUsd: 1 }), /No key key_doesnotexist/);
  });
});
