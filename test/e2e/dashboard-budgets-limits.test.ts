import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CalibrationView, CreatedKeyView, KeyView, RouterView } from '../../src/dashboard/dashboard-api-types.js';
import { createTempDatabase, runModelport } from '../cli/run-modelport.js';
import { DashboardClient, type DashboardResponse } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * What the CLI sets on routers and keys, set through the dashboard API and enforced by the gateway: router budgets
 * and rate limits, keys' token limits, concurrency caps and budgets, and `auto` calibration uploads. A bad value
 * gets the very message `modelport` prints for it. Real HTTP on loopback.
 */

type ErrorBody = { readonly error: { readonly type: string; readonly code: string; readonly param: string | null; readonly message: string } };

interface Sent {
  readonly status: number;
  readonly body: { readonly error?: ErrorBody['error']; readonly _meta?: { readonly cost: number } };
}

async function chat(gateway: Gateway, key: string, model: string, extra: Record<string, unknown> = {}): Promise<Sent> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Count the costs of this budget test, please.' }], ...extra }),
  });
  return { status: response.status, body: (await response.json()) as Sent['body'] };
}

/** Labelled examples in the `router calibrate` format, as JSON lines. */
function examples(count: number): string {
  return Array.from({ length: count }, (_, index) =>
    JSON.stringify({ prompt: index % 2 === 0 ? `Short question ${index}?` : `Explain in depth, with a derivation, topic ${index}.`, scores: { 'sim:small': index % 2 === 0 ? 1 : 0, 'sim:large': 1 } }),
  ).join('\n');
}

async function upload(user: DashboardClient, path: string, text: string): Promise<DashboardResponse> {
  const response = await fetch(`${user.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', cookie: user.cookie ?? '', 'x-csrf-token': user.csrfToken ?? '' },
    body: text,
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe('dashboard: router budgets and rate limits, key limits and budgets, auto calibration, as the CLI sets them', () => {
  let gateway: Gateway;
  let alice: DashboardClient;
  let key = '';

  before(async () => {
    gateway = await startGateway();
    alice = new DashboardClient(gateway.origin);
    await alice.signUp('alice-limits@example.com');
    key = (await alice.post<CreatedKeyView>(`${alice.ws}/keys`, { name: 'sdk' })).body.key;
  });
  after(async () => gateway?.close());

  it("a router's rate limit set in the form holds across the workspace's keys", async () => {
    const created = await alice.post<RouterView>(`${alice.ws}/routers`, { name: 'limited', models: ['sim:small'], strategy: 'cost_optimized', rpmLimit: 2, tpmLimit: 100_000 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual([created.body.rpmLimit, created.body.tpmLimit, created.body.budget], [2, 100_000, null]);
    const other = (await alice.post<CreatedKeyView>(`${alice.ws}/keys`, { name: 'second' })).body.key;
    assert.equal((await chat(gateway, key, created.body.id)).status, 200);
    assert.equal((await chat(gateway, other, created.body.id)).status, 200);
    const refused = await chat(gateway, key, created.body.id);
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal(refused.body.error?.code, 'rate_limit_exceeded');
    assert.match(refused.body.error?.message ?? '', /router/);

    // Cleared in the form: null removes the limit, as "--rpm none" does.
    const cleared = await alice.patch<RouterView>(`${alice.ws}/routers/${created.body.id}`, { rpmLimit: null });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.deepEqual([cleared.body.rpmLimit, cleared.body.tpmLimit], [null, 100_000]);
    await gateway.app.changes.poll();
    assert.equal((await chat(gateway, key, created.body.id)).status, 200);
  });

  it("a router's budget set alone stops every key with 429 insufficient_quota, and removing it lets them through", async () => {
    const created = await alice.post<RouterView>(`${alice.ws}/routers`, { name: 'budgeted', models: ['sim:small'], strategy: 'cost_optimized' });
    const path = `${alice.ws}/routers/${created.body.id}`;
    // The cost of one request, measured on another router so the budgeted one has spent nothing yet.
    const measuring = await alice.post<RouterView>(`${alice.ws}/routers`, { name: 'measuring', models: ['sim:small'], strategy: 'cost_optimized' });
    const first = await chat(gateway, key, measuring.body.id);
    assert.equal(first.status, 200);
    const costOfOne = first.body._meta?.cost ?? Number.NaN;
    assert.ok(costOfOne > 0);

    const budgetUsd = costOfOne * 2.5;
    const set = await alice.patch<RouterView>(path, { budget: { usd: budgetUsd, period: 'day' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.budget, { usd: budgetUsd, period: 'day' });
    assert.deepEqual([set.body.name, set.body.models, set.body.strategy], ['budgeted', ['sim:small'], 'cost_optimized'], 'a budget alone changes nothing else');
    assert.deepEqual((await alice.get<RouterView>(path)).body.budget, { usd: budgetUsd, period: 'day' });
    await gateway.app.changes.poll();

    const spent: number[] = [];
    let refusal: Sent | undefined;
    for (let index = 0; index < 10 && refusal === undefined; index += 1) {
      const sent = await chat(gateway, key, created.body.id);
      if (sent.status === 200) spent.push(sent.body._meta?.cost ?? Number.NaN);
      else refusal = sent;
    }
    assert.ok(refusal !== undefined, 'the budget stopped the router');
    assert.equal(refusal.status, 429, JSON.stringify(refusal.body));
    assert.equal(refusal.body.error?.code, 'insufficient_quota');
    assert.match(refusal.body.error?.message ?? '', new RegExp(`Budget exceeded for router ${created.body.id}: \\$[\\d.]+ per day \\(UTC\\)`));
    const total = spent.reduce((sum, cost) => sum + cost, 0);
    assert.ok(total >= budgetUsd && total - (spent.at(-1) ?? 0) < budgetUsd, `spent ${spent.join(', ')} of ${budgetUsd}`);

    const removed = await alice.patch<RouterView>(path, { budget: null });
    assert.equal(removed.body.budget, null);
    await gateway.app.changes.poll();
    assert.equal((await chat(gateway, key, created.body.id)).status, 200);
  });

  it("a key's token limit, concurrency cap and budget are set at creation, enforced, listed and kept by rotation", async () => {
    const created = await alice.post<CreatedKeyView>(`${alice.ws}/keys`, { name: 'batch', tpmLimit: 400, maxConcurrency: 3, budget: { usd: 5, period: 'day' } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual([created.body.tpmLimit, created.body.maxConcurrency, created.body.budget], [400, 3, { usd: 5, period: 'day' }]);
    const routerId = (await alice.post<RouterView>(`${alice.ws}/routers`, { name: 'open', models: ['sim:small'], strategy: 'cost_optimized' })).body.id;
    // Prompt plus max_tokens is counted before the call: 500 can never fit in 400 tokens a minute.
    const tooLarge = await chat(gateway, created.body.key, routerId, { max_tokens: 500 });
    assert.equal(tooLarge.status, 429, JSON.stringify(tooLarge.body));
    assert.match(tooLarge.body.error?.message ?? '', /Request too large/);
    assert.equal((await chat(gateway, created.body.key, routerId, { max_tokens: 20 })).status, 200);
    // The workspace's other key has no token limit.
    assert.equal((await chat(gateway, key, routerId, { max_tokens: 500 })).status, 200);

    const listed = (await alice.get<{ keys: KeyView[] }>(`${alice.ws}/keys`)).body.keys.find((view) => view.id === created.body.id);
    assert.deepEqual([listed?.tpmLimit, listed?.maxConcurrency, listed?.budget], [400, 3, { usd: 5, period: 'day' }]);
    const rotated = await alice.post<CreatedKeyView>(`${alice.ws}/keys/${created.body.id}/rotate`, { graceMinutes: 0 });
    assert.equal(rotated.status, 201, JSON.stringify(rotated.body));
    assert.deepEqual([rotated.body.tpmLimit, rotated.body.maxConcurrency, rotated.body.budget], [400, 3, { usd: 5, period: 'day' }]);
  });

  it('an auto calibration upload changes the router fit, and a second upload replaces the first', async () => {
    const created = await alice.post<RouterView>(`${alice.ws}/routers`, { name: 'auto', models: ['sim:small', 'sim:large'], strategy: 'auto' });
    const path = `${alice.ws}/routers/${created.body.id}`;
    assert.equal(created.body.settings.autoFit, undefined);
    const first = await upload(alice, `${path}/calibration?name=labelled.jsonl`, examples(40));
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((first.body as CalibrationView).examples, 40);
    const fitted = (await alice.get<RouterView>(path)).body.settings.autoFit;
    assert.deepEqual(fitted?.models, { 'sim:large': { labels: 40 }, 'sim:small': { labels: 40 } });
    const second = await upload(alice, `${path}/calibration`, examples(24));
    assert.equal(second.status, 200, JSON.stringify(second.body));
    const refitted = (await alice.get<RouterView>(path)).body.settings.autoFit;
    assert.deepEqual(refitted?.models, { 'sim:large': { labels: 24 }, 'sim:small': { labels: 24 } });
    assert.equal(refitted?.labels, (second.body as CalibrationView).fit.labels);
  });

  it('refuses bad values with the message the CLI prints for them, naming the field, and creates nothing', async () => {
    const database = createTempDatabase();
    const owner = 'cli-limits@example.com';
    const cli = (...args: string[]) => runModelport(database.url, args);
    try {
      assert.equal((await cli('user', 'create', '--email', owner, '--password', 'a long budget passphrase')).code, 0);
      const cliRouter = (await cli('router', 'create', '--owner', owner, '--name', 'r', '--models', 'sim:small', '--strategy', 'cost_optimized')).stdout.trim();
      const cliError = async (...args: string[]): Promise<string> => {
        const run = await cli(...args);
        assert.equal(run.code, 1, run.stderr);
        return /^error: (.*)$/m.exec(run.stderr)?.[1] ?? assert.fail(run.stderr);
      };
      const routerId = (await alice.post<RouterView>(`${alice.ws}/routers`, { name: 'target', models: ['sim:small'], strategy: 'cost_optimized' })).body.id;
      const newRouter = { name: 'bad', models: ['sim:small'], strategy: 'cost_optimized' };
      const routerCreate = ['router', 'create', '--owner', owner, '--name', 'bad', '--models', 'sim:small', '--strategy', 'cost_optimized'];
      const cases: Array<[string, () => Promise<DashboardResponse<ErrorBody>>, string[], string]> = [
        ['router rpm 0', () => alice.post(`${alice.ws}/routers`, { ...newRouter, rpmLimit: 0 }), [...routerCreate, '--rpm', '0'], 'rpmLimit'],
        ['router tpm 0', () => alice.patch(`${alice.ws}/routers/${routerId}`, { tpmLimit: 0 }), ['router', 'update', '--owner', owner, '--id', cliRouter, '--tpm', '0'], 'tpmLimit'],
        ['router budget 0', () => alice.post(`${alice.ws}/routers`, { ...newRouter, budget: { usd: 0 } }), [...routerCreate, '--budget-usd', '0'], 'budget.usd'],
        ['router budget period', () => alice.patch(`${alice.ws}/routers/${routerId}`, { budget: { usd: 5, period: 'week' } }), ['router', 'update', '--owner', owner, '--id', cliRouter, '--budget-usd', '5', '--budget-period', 'week'], 'budget.period'],
        ['key tpm 0', () => alice.post(`${alice.ws}/keys`, { name: 'bad', tpmLimit: 0 }), ['key', 'create', '--owner', owner, '--name', 'bad', '--tpm', '0'], 'tpmLimit'],
        ['key concurrency 0', () => alice.post(`${alice.ws}/keys`, { name: 'bad', maxConcurrency: 0 }), ['key', 'create', '--owner', owner, '--name', 'bad', '--max-concurrency', '0'], 'maxConcurrency'],
        ['key budget -3', () => alice.post(`${alice.ws}/keys`, { name: 'bad', budget: { usd: -3 } }), ['key', 'create', '--owner', owner, '--name', 'bad', '--budget-usd=-3'], 'budget.usd'],
      ];
      // The CLI's messages first, all at once: each run is a process of its own.
      const expected = await Promise.all(cases.map(([, , args]) => cliError(...args)));
      const before = [(await alice.get<{ routers: RouterView[] }>(`${alice.ws}/routers`)).body.routers.length, (await alice.get<{ keys: KeyView[] }>(`${alice.ws}/keys`)).body.keys.length];
      for (const [index, [label, send, , param]] of cases.entries()) {
        const answer = await send();
        assert.equal(answer.status, 400, `${label}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error.message, expected[index], label);
        assert.equal(answer.body.error.param, param, label);
      }
      const afterwards = [(await alice.get<{ routers: RouterView[] }>(`${alice.ws}/routers`)).body.routers.length, (await alice.get<{ keys: KeyView[] }>(`${alice.ws}/keys`)).body.keys.length];
      assert.deepEqual(afterwards, before, 'a refused value leaves no router or key behind');
      assert.equal((await alice.get<RouterView>(`${alice.ws}/routers/${routerId}`)).body.budget, null);
    } finally {
      database.remove();
    }
  });
});
