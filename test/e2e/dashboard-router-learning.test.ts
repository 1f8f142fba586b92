import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CalibrationView, FeedbackView, RouterView, SavingsReportView, UsageRequestView } from '../../src/dashboard/dashboard-api-types.js';
import { DashboardClient, type DashboardResponse } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * An `auto` router's learning through the dashboard API: calibration uploads (JSON lines), thumbs on its requests,
 * and its savings against always using the strongest model. Real HTTP on loopback; SQLite, or Postgres with
 * TEST_DATABASE_URL.
 */

type ErrorBody = { readonly error: { readonly code: string; readonly param: string | null; readonly message: string } };

const PROMPTS = [
  'What is 2 + 2?',
  'Prove that there are infinitely many primes, step by step, and discuss the history of the proof.',
  'Translate "good morning" into French.',
];

/** A JSON-lines upload as the router page sends it: the session cookie, the CSRF token and a raw body. */
async function upload(user: DashboardClient, path: string, text: string, contentType = 'application/x-ndjson'): Promise<DashboardResponse> {
  const response = await fetch(`${user.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': contentType, cookie: user.cookie ?? '', 'x-csrf-token': user.csrfToken ?? '' },
    body: text,
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** Labelled examples in the `router calibrate` format: the small model right on short prompts, the large one always. */
function examples(count: number, models: Record<string, (index: number) => number>): string {
  return Array.from({ length: count }, (_, index) => {
    const prompt = index % 2 === 0 ? `Short question ${index}?` : `Explain in detail, with a worked derivation, topic number ${index} and why it matters.`;
    return JSON.stringify({ prompt, scores: Object.fromEntries(Object.entries(models).map(([model, score]) => [model, score(index)])) });
  }).join('\n');
}

async function eventually<T>(what: string, read: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 80; attempt += 1) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('dashboard: an auto router learns from calibration uploads and thumbs, and shows its savings', () => {
  let gateway: Gateway;
  let alice: DashboardClient;
  let bob: DashboardClient;
  let routerId = '';
  let otherRouterId = '';
  let requestIds: string[] = [];

  before(async () => {
    gateway = await startGateway();
    alice = new DashboardClient(gateway.origin);
    bob = new DashboardClient(gateway.origin);
    await alice.signUp('alice-learning@example.com');
    await bob.signUp('bob-learning@example.com');
    const created = await alice.post(`${alice.ws}/routers`, { name: 'auto', models: ['sim:small', 'sim:large'], strategy: 'auto' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    routerId = created.body.id;
    otherRouterId = (await alice.post(`${alice.ws}/routers`, { name: 'cheap', models: ['sim:small'], strategy: 'cost_optimized' })).body.id;
    const key = (await alice.post(`${alice.ws}/keys`, { name: 'sdk' })).body.key as string;
    for (const model of [routerId, routerId, routerId, otherRouterId]) {
      const index = requestIds.length;
      const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: PROMPTS[index % PROMPTS.length] }] }),
      });
      assert.equal(response.status, 200);
      requestIds.push(((await response.json()) as { _meta: { requestId: string } })._meta.requestId);
    }
    // Usage records (and auto's samples with them) are written in batches.
    await eventually('the usage records', async () => {
      const page = await alice.get<{ requests: UsageRequestView[] }>(`${alice.ws}/usage/requests?limit=10`);
      return page.body.requests.length === requestIds.length ? page.body.requests : undefined;
    });
  });
  after(async () => gateway?.close());

  it("the request log gives auto requests the strongest model's cost, and no other", async () => {
    const { requests } = (await alice.get<{ requests: UsageRequestView[] }>(`${alice.ws}/usage/requests?limit=10`)).body;
    for (const request of requests) {
      if (request.routerId === routerId) assert.ok(typeof request.counterfactualCostUsd === 'number' && request.counterfactualCostUsd >= 0, JSON.stringify(request));
      else assert.equal(request.counterfactualCostUsd, null);
    }
  });

  it('thumbs store one label per person and request: a repeat replaces the score', async () => {
    const [first = ''] = requestIds;
    const up = await alice.post<FeedbackView>(`${alice.ws}/usage/requests/${first}/feedback`, { score: 1 });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.requestId, first);
    assert.equal(up.body.score, 1);
    assert.equal(typeof up.body.createdAt, 'string');
    const down = await alice.post<FeedbackView>(`${alice.ws}/usage/requests/${first}/feedback`, { score: 0, comment: 'wrong answer' });
    assert.equal(down.status, 200);
    assert.deepEqual([down.body.score, down.body.comment], [0, 'wrong answer']);
  });

  it('refuses bad feedback with 400, and requests it cannot rate with 404', async () => {
    const [first = ''] = requestIds;
    const path = (id: string, user: DashboardClient = alice) => `${user.ws}/usage/requests/${id}/feedback`;
    const invalid: Array<[unknown, string]> = [
      [{ score: 2 }, 'score'],
      [{ score: 'up' }, 'score'],
      [{}, 'score'],
      [{ score: 1, comment: 'x'.repeat(2001) }, 'comment'],
      [{ score: 1, extra: true }, ''],
    ];
    for (const [body, param] of invalid) {
      const answer = await alice.post<ErrorBody>(path(first), body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      if (param !== '') assert.equal(answer.body.error.param, param, JSON.stringify(answer.body));
    }
    const unknown = await alice.post<ErrorBody>(path('req_doesnotexist'), { score: 1 });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'request_not_found');
    // A request of a router that does not learn (cost_optimized) has nothing to label.
    assert.equal((await alice.post(path(requestIds[3] ?? ''), { score: 1 })).status, 404);
    // Another workspace can neither rate it nor learn that it exists.
    const foreign = await bob.post<ErrorBody>(path(first, bob), { score: 1 });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'request_not_found');
    assert.equal((await bob.post<ErrorBody>(`${alice.ws}/usage/requests/${first}/feedback`, { score: 1 })).status, 404);
    const noCsrf = await alice.request('POST', path(first), { score: 1 }, { 'x-csrf-token': '' });
    assert.equal(noCsrf.status, 403);
  });

  it('a calibration upload fits the router at once; the router page reads the fit', async () => {
    const body = examples(40, { 'sim:small': (index) => (index % 2 === 0 ? 1 : 0), 'sim:large': () => 1, 'acme:other': () => 0 });
    const answer = await upload(alice, `${alice.ws}/routers/${routerId}/calibration`, `${body}\n`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const calibration = answer.body as CalibrationView;
    assert.equal(calibration.examples, 40);
    assert.deepEqual([...calibration.modelsFitted].sort(), ['sim:large', 'sim:small']);
    assert.deepEqual(calibration.ignored, ['acme:other']);
    assert.ok(calibration.fit.labels >= 40, JSON.stringify(calibration.fit));
    const router = (await alice.get<RouterView>(`${alice.ws}/routers/${routerId}`)).body;
    const fit = router.settings.autoFit;
    assert.ok(fit !== undefined, JSON.stringify(router.settings));
    assert.equal(fit.fittedAt, calibration.fit.fittedAt);
    assert.ok(Number.isFinite(Date.parse(fit.fittedAt)));
    assert.deepEqual(Object.keys(fit.models).sort(), ['sim:large', 'sim:small']);
    // The feedback above may add one label to the model that answered.
    assert.ok((fit.models['sim:small']?.labels ?? 0) >= 40, JSON.stringify(fit));
    assert.equal('weights' in (fit.models['sim:small'] ?? {}), false, 'the weights stay on the server');
  });

  it('refuses a bad upload with a 400 naming the line, as `router calibrate` does', async () => {
    const path = `${alice.ws}/routers/${routerId}/calibration`;
    const good = JSON.stringify({ prompt: 'hi', scores: { 'sim:small': 1 } });
    const cases: Array<[string, RegExp]> = [
      [`${good}\n${good}\nnot json`, /^examples\.jsonl line 3 is not valid JSON\.$/],
      [`${good}\n{"scores": {"sim:small": 1}}`, /line 2 has no "prompt" string/],
      [`${good}\n${JSON.stringify({ prompt: 'x', scores: { 'sim:small': 2 } })}`, /line 2: "scores" needs a number from 0 to 1 for "sim:small"/],
      ['\n\n', /has no prompts/],
    ];
    for (const [text, message] of cases) {
      const answer = await upload(alice, `${path}?name=examples.jsonl`, text);
      assert.equal(answer.status, 400, text);
      assert.match((answer.body as ErrorBody).error.message, message);
    }
    const noneOfItsModels = await upload(alice, path, JSON.stringify({ prompt: 'x', scores: { 'acme:other': 1 } }));
    assert.equal(noneOfItsModels.status, 400, JSON.stringify(noneOfItsModels.body));
    const asJson = await upload(alice, path, good, 'application/json');
    assert.equal(asJson.status, 400);
    assert.match((asJson.body as ErrorBody).error.message, /application\/x-ndjson/);
    const tooLarge = await upload(alice, path, `${good}\n`.repeat(Math.ceil((9 * 1024 * 1024) / good.length)));
    assert.equal(tooLarge.status, 413);
    assert.equal((await upload(bob, `${bob.ws}/routers/${routerId}/calibration`, good)).status, 404);
    assert.equal((await upload(bob, path, good)).status, 404);
  });

  it('savings: cost against always the strongest model, per bucket, with the measured quality', async () => {
    const to = new Date(Date.now() + 60_000).toISOString();
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const answer = await alice.get<SavingsReportView & ErrorBody>(`${alice.ws}/routers/${routerId}/savings?from=${from}&to=${to}&bucket=hour`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { totals, points } = answer.body;
    assert.equal(totals.requests, 3);
    const records = (await alice.get<{ requests: UsageRequestView[] }>(`${alice.ws}/usage/requests?limit=10&routerId=${routerId}`)).body.requests;
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    assert.ok(Math.abs(totals.costUsd - sum(records.map((record) => record.costUsd))) < 1e-9);
    assert.ok(Math.abs(totals.counterfactualCostUsd - sum(records.map((record) => record.counterfactualCostUsd ?? 0))) < 1e-9);
    assert.ok(Math.abs(totals.savedUsd - (totals.counterfactualCostUsd - totals.costUsd)) < 1e-9);
    assert.deepEqual(totals.feedback, { count: 1, meanScore: 0 });
    assert.equal(sum(points.map((point) => point.requests)), 3);
    assert.ok(points.every((point) => typeof point.t === 'string'));
    assert.equal((await alice.get<ErrorBody>(`${alice.ws}/routers/${routerId}/savings?bucket=week`)).body.error.param, 'bucket');
    assert.equal((await bob.get(`${bob.ws}/routers/${routerId}/savings`)).status, 404);
  });

  it('the exploration share is edited with the other settings, 0..1', async () => {
    const path = `${alice.ws}/routers/${routerId}`;
    const set = await alice.patch<RouterView>(path, { settings: { exploration: 0.2 } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.settings.exploration, 0.2);
    assert.ok(set.body.settings.autoFit !== undefined, 'a settings change keeps the fit');
    const tooMuch = await alice.patch<ErrorBody>(path, { settings: { exploration: 1.5 } });
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.error.param, 'settings.exploration');
    const reset = await alice.patch<RouterView>(path, { settings: { exploration: null } });
    assert.equal(reset.body.settings.exploration, undefined);
  });
});
