import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

interface RoutingMeta {
  strategy: string;
  explored?: boolean;
  strongestModel?: string;
  counterfactualCostUsd?: number;
}
interface Meta {
  requestId: string;
  modelUsed: string;
  cost: number;
  routing: RoutingMeta;
}
interface ErrorBody {
  error: { message: string; type: string; code: string; param: string | null };
}

const PROMPT = 'Which of the following best describes the function of ribosomes?\nA. protein synthesis\nB. lipid storage\nC. DNA replication\nD. cell division\nAnswer:';

describe('feedback on auto requests, over real HTTP with a real key', () => {
  let gateway: Gateway;
  let plainRouterId: string;
  let otherKey: string;
  let otherRouterId: string;

  before(async () => {
    // Usage is written only when something asks for it: feedback must find its request's sample all the same.
    gateway = await startGateway({ models: ['sim:small', 'sim:medium', 'sim:large'], strategy: 'auto', env: { MODELPORT_USAGE_FLUSH_MS: '600000' } });
    plainRouterId = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'plain', models: ['sim:small', 'sim:large'], strategy: 'cost_optimized' })).id;
    await gateway.admin.createUser('other@example.com', 'correct horse battery');
    otherRouterId = (await gateway.admin.createRouter({ ownerEmail: 'other@example.com', name: 'theirs', models: ['sim:small', 'sim:large'], strategy: 'auto' })).id;
    otherKey = (await gateway.admin.createKey({ ownerEmail: 'other@example.com', name: 'theirs' })).value;
  });
  after(async () => {
    await gateway.close();
  });

  async function complete(routerId: string, key = gateway.apiKey): Promise<Meta> {
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: routerId, messages: [{ role: 'user', content: PROMPT }] }),
    });
    assert.equal(response.status, 200);
    return ((await response.json()) as { _meta: Meta })._meta;
  }

  async function feedback(body: unknown, path = '/feedback', key = gateway.apiKey): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${gateway.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('reports the strongest model, the counterfactual cost and exploration in _meta, and stores the counterfactual in the usage row', async () => {
    const meta = await complete(gateway.router.id);
    assert.equal(meta.routing.strategy, 'auto');
    assert.equal(typeof meta.routing.explored, 'boolean');
    assert.ok(['sim:small', 'sim:medium', 'sim:large'].includes(meta.routing.strongestModel ?? ''));
    const counterfactual = meta.routing.counterfactualCostUsd;
    assert.equal(typeof counterfactual, 'number');
    if (meta.modelUsed === meta.routing.strongestModel) assert.equal(counterfactual, meta.cost);
    await gateway.app.usage.flush();
    const row = await gateway.app.repositories.usage.findOwned(gateway.router.ownerId, meta.requestId);
    assert.equal(row?.counterfactual_cost_usd, counterfactual);
    const sample = await gateway.app.repositories.routingLabels.findSample(meta.requestId);
    assert.equal(sample?.model_id, meta.modelUsed);
    assert.equal(sample?.router_id, gateway.router.id);
  });

  it('a streamed auto answer carries the same fields in its last _meta and keeps a sample', async () => {
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: gateway.router.id, stream: true, messages: [{ role: 'user', content: PROMPT }] }),
    });
    const text = await response.text();
    const metas = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => (JSON.parse(line.slice(6)) as { _meta?: Meta })._meta)
      .filter((meta) => meta !== undefined);
    const meta = metas.at(-1);
    assert.ok(meta !== undefined);
    assert.equal(typeof meta.routing.counterfactualCostUsd, 'number');
    assert.equal(typeof meta.routing.strongestModel, 'string');
    const stored = await feedback({ request_id: meta.requestId, score: 1 });
    assert.equal(stored.status, 200);
    assert.equal(stored.body.model, meta.modelUsed);
  });

  it('stores feedback sent right after the answer (before its usage batch is written), idempotent per key', async () => {
    const meta = await complete(gateway.router.id);
    assert.equal(gateway.app.usage.stats().queued > 0, true);
    const first = await feedback({ request_id: meta.requestId, score: 0, comment: 'wrong answer' }, '/v1/feedback');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.request_id, meta.requestId);
    assert.equal(first.body.score, 0);
    assert.equal(first.body.comment, 'wrong answer');
    assert.equal(first.body.model, meta.modelUsed);
    assert.equal(first.body.router, gateway.router.id);
    assert.equal(typeof first.body.created_at, 'number');
    const again = await feedback({ request_id: meta.requestId, score: 0.75 });
    assert.equal(again.status, 200);
    assert.equal(again.body.id, first.body.id);
    assert.equal(again.body.score, 0.75);
    assert.equal(again.body.comment, null);
    const labels = await gateway.app.repositories.routingLabels.listNewest(gateway.router.id, 100);
    assert.equal(labels.filter((label) => label.requestId === meta.requestId).length, 1);
    // Feedback is not usage.
    await gateway.app.usage.flush();
    const rows = await gateway.app.repositories.usage.list({ ownerId: gateway.router.ownerId, limit: 1000 });
    assert.equal(rows.filter((row) => row.router_id === null).length, 0);
  });

  it('refuses malformed feedback with 400s in the OpenAI error shape', async () => {
    const meta = await complete(gateway.router.id);
    const cases: [unknown, string][] = [
      [{ score: 1 }, 'request_id'],
      [{ request_id: meta.requestId }, 'score'],
      [{ request_id: meta.requestId, score: 1.5 }, 'score'],
      [{ request_id: meta.requestId, score: -0.1 }, 'score'],
      [{ request_id: meta.requestId, score: 'good' }, 'score'],
      [{ request_id: meta.requestId, score: 1, comment: 'x'.repeat(2001) }, 'comment'],
      [{ request_id: 42, score: 1 }, 'request_id'],
    ];
    for (const [body, param] of cases) {
      const answer = await feedback(body);
      assert.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
      const error = (answer.body as unknown as ErrorBody).error;
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.param, param);
      assert.match(error.message, new RegExp(param));
    }
    assert.equal((await feedback('{not json')).status, 400);
    assert.equal((await feedback({ request_id: meta.requestId, score: 1, comment: 'x'.repeat(2000) })).status, 200);
  });

  it('answers 404 not_found for an unknown id, another owner request, and a request that was not auto-routed', async () => {
    const unknown = await feedback({ request_id: 'req_doesnotexist', score: 1 });
    assert.equal(unknown.status, 404);
    assert.equal((unknown.body as unknown as ErrorBody).error.code, 'not_found');

    const theirs = await complete(otherRouterId, otherKey);
    const foreign = await feedback({ request_id: theirs.requestId, score: 0 });
    assert.equal(foreign.status, 404);
    const foreignError = (foreign.body as unknown as ErrorBody).error;
    assert.equal(foreignError.code, 'not_found');
    // Said as of an unknown id: nothing tells that the id exists for someone else.
    assert.equal(foreignError.message, (unknown.body as unknown as ErrorBody).error.message.replace('req_doesnotexist', theirs.requestId));
    assert.equal((await gateway.app.repositories.routingLabels.listNewest(otherRouterId, 10)).length, 0);

    const plain = await complete(plainRouterId);
    const notAuto = await feedback({ request_id: plain.requestId, score: 1 });
    assert.equal(notAuto.status, 404);
    assert.match((notAuto.body as unknown as ErrorBody).error.message, /not answered by an auto router/);
    assert.equal(await gateway.app.repositories.routingLabels.findSample(plain.requestId), undefined);
    await gateway.app.usage.flush();
    assert.equal((await gateway.app.repositories.usage.findOwned(gateway.router.ownerId, plain.requestId))?.counterfactual_cost_usd, null);
  });

  it('needs a key', async () => {
    const response = await fetch(`${gateway.baseUrl}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request_id: 'req_x', score: 1 }) });
    assert.equal(response.status, 401);
  });
});
