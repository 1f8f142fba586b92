import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

interface RoutingMeta {
  strategy: string;
  candidates: Array<{ model: string; rank: number; score: number; reason: string; expectedCostUsd: number; expectedLatencyMs: number; expectedCarbonGrams: number; predictedQuality?: number }>;
  dropped: Array<{ model: string; reason: string }>;
}
interface Meta {
  modelUsed: string;
  routerDecision: string;
  attempts: Array<{ model: string; outcome: string }>;
  routing: RoutingMeta;
}

const SIM_MODELS = ['sim:small', 'sim:medium', 'sim:large'];

describe('routing strategies end to end, on the offline simulator', () => {
  let gateway: Gateway;
  const routers: Record<string, string> = {};

  before(async () => {
    gateway = await startGateway({ models: SIM_MODELS, strategy: 'cost_optimized' });
    routers.cost_optimized = gateway.router.id;
    for (const strategy of ['quality_optimized', 'carbon_optimized', 'latency_optimized', 'balanced', 'auto']) {
      routers[strategy] = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: strategy, models: SIM_MODELS, strategy })).id;
    }
  });
  after(async () => {
    await gateway.close();
  });

  async function chat(router: string, body: Record<string, unknown> = {}): Promise<{ response: Response; body: { model: string; _meta: Meta } }> {
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: router, messages: [{ role: 'user', content: 'Which model answers?' }], ...body }),
    });
    const text = await response.text();
    assert.equal(response.status, 200, text);
    return { response, body: JSON.parse(text) as { model: string; _meta: Meta } };
  }

  for (const [strategy, expected] of [
    ['cost_optimized', 'sim:small'],
    ['quality_optimized', 'sim:large'],
    ['carbon_optimized', 'sim:small'],
  ] as const) {
    it(`${strategy} picks ${expected} and says why`, async () => {
      const { response, body } = await chat(routers[strategy] ?? '');
      assert.equal(body.model, expected);
      assert.equal(body._meta.routerDecision, strategy);
      assert.equal(response.headers.get('x-modelport-router-decision'), strategy);
      assert.equal(response.headers.get('x-modelport-model'), expected);
      assert.match(response.headers.get('x-request-id') ?? '', /^req_/);
      const routing = body._meta.routing;
      assert.equal(routing.strategy, strategy);
      assert.deepEqual(routing.candidates.map((candidate) => candidate.rank), [1, 2, 3]);
      assert.deepEqual(routing.candidates.map((candidate) => candidate.model).sort(), [...SIM_MODELS].sort());
      assert.equal(routing.candidates[0]?.model, expected);
      assert.deepEqual(routing.dropped, []);
      for (const candidate of routing.candidates) {
        assert.ok(candidate.reason.length > 0);
        assert.ok(candidate.expectedCostUsd > 0 && candidate.expectedLatencyMs > 0 && candidate.expectedCarbonGrams > 0);
      }
      // The attempts stay as they were: one call, the first candidate.
      assert.deepEqual(body._meta.attempts.map((attempt) => [attempt.model, attempt.outcome]), [[expected, 'ok']]);
    });
  }

  it('latency_optimized measures every model first, then settles on the fastest', async () => {
    const chosen: string[] = [];
    let last: Meta | undefined;
    for (let request = 0; request < 30; request += 1) {
      const { response, body } = await chat(routers.latency_optimized ?? '');
      assert.equal(response.headers.get('x-modelport-router-decision'), 'latency_optimized');
      chosen.push(body.model);
      last = body._meta;
    }
    // Warm-up: a model with fewer than 3 measurements goes first, so every one was called.
    assert.deepEqual([...new Set(chosen)].sort(), [...SIM_MODELS].sort());
    // Then the fastest (sim:small: the lowest time to first token), but for 5% exploration.
    const settled = chosen.slice(9);
    assert.ok(settled.filter((model) => model === 'sim:small').length >= settled.length - 6, chosen.join(', '));
    for (const candidate of last?.routing.candidates ?? []) assert.match(candidate.reason, /\(measured, \d+ samples\)$/);
  });

  it('shows the expected cost and the quality rating as reasons', async () => {
    const cost = (await chat(routers.cost_optimized ?? '')).body._meta.routing;
    assert.match(cost.candidates[0]?.reason ?? '', /^expected \$0\.000\d+ \(\d+ prompt \+ 256 output tokens\)$/);
    assert.equal(cost.candidates[0]?.score, cost.candidates[0]?.expectedCostUsd);
    const quality = (await chat(routers.quality_optimized ?? '')).body._meta.routing;
    assert.deepEqual(quality.candidates.map((candidate) => [candidate.model, candidate.score]), [['sim:large', 1380], ['sim:medium', 1280], ['sim:small', 1200]]);
    assert.equal(quality.candidates[0]?.reason, 'quality 1380 (simulated rating)');
  });

  it('balanced reports a blend; auto reports each candidate\'s predicted quality against the target', async () => {
    const balanced = (await chat(routers.balanced ?? '')).body._meta.routing;
    assert.match(balanced.candidates[0]?.reason ?? '', /^blend \d\.\d{3} \(cost /);
    const auto = (await chat(routers.auto ?? '')).body._meta;
    assert.equal(auto.routerDecision, 'auto');
    assert.equal(auto.routing.candidates.length, 3);
    for (const candidate of auto.routing.candidates) {
      assert.match(candidate.reason, /^predicted 0\.\d\d [≥<] target 0\.8; expected \$/);
      assert.ok(candidate.predictedQuality !== undefined && candidate.predictedQuality > 0 && candidate.predictedQuality < 1);
      assert.equal(candidate.score, candidate.predictedQuality);
    }
    // The simulated models are rated sim:small < sim:medium < sim:large, so the predictor orders their chances likewise.
    const chance = new Map(auto.routing.candidates.map((candidate) => [candidate.model, candidate.predictedQuality ?? 0]));
    assert.ok((chance.get('sim:small') ?? 0) < (chance.get('sim:medium') ?? 0));
    assert.ok((chance.get('sim:medium') ?? 0) < (chance.get('sim:large') ?? 0));
  });

  it('lists the models dropped and why', async () => {
    // 150k output tokens fit only sim:large's 200k window.
    const { body } = await chat(routers.cost_optimized ?? '', { max_tokens: 150_000 });
    assert.equal(body.model, 'sim:large');
    assert.deepEqual(body._meta.routing.candidates.map((candidate) => candidate.model), ['sim:large']);
    assert.deepEqual(body._meta.routing.dropped.map((drop) => drop.model), ['sim:small', 'sim:medium']);
    for (const drop of body._meta.routing.dropped) assert.match(drop.reason, /^context window 128000 < 1500\d\d tokens needed$/);
  });

  it('puts _meta.routing on the last chunk of a stream', async () => {
    const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: routers.quality_optimized, stream: true, messages: [{ role: 'user', content: 'Stream please' }] }),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-modelport-router-decision'), 'quality_optimized');
    const events = (await response.text()).split('\n\n').filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]');
    const last = JSON.parse((events.at(-1) ?? '').slice('data: '.length)) as { _meta?: Meta };
    assert.equal(last._meta?.routing.strategy, 'quality_optimized');
    assert.equal(last._meta?.routing.candidates[0]?.model, 'sim:large');
  });

  it('puts _meta.routing on Anthropic-format answers', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': gateway.apiKey, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: routers.carbon_optimized, max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    const body = (await response.json()) as { model: string; _meta: Meta };
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-modelport-router-decision'), 'carbon_optimized');
    assert.equal(body.model, 'sim:small');
    assert.equal(body._meta.routing.strategy, 'carbon_optimized');
    assert.equal(body._meta.routing.candidates.length, 3);
  });

  it('router update takes effect on the running server within 1 s', async () => {
    const router = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'changing', models: SIM_MODELS, strategy: 'cost_optimized' })).id;
    assert.equal((await chat(router)).body.model, 'sim:small');

    const updated = await gateway.admin.updateRouter({ ownerEmail: gateway.ownerEmail, id: router, strategy: 'quality_optimized', settings: { maxCostPerRequestUsd: 0.001 } });
    assert.equal(updated.strategy, 'quality_optimized');
    assert.deepEqual(updated.settings, { maxCostPerRequestUsd: 0.001 });
    const started = Date.now();
    let body: { model: string; _meta: Meta } | undefined;
    while (Date.now() - started < 1_000) {
      body = (await chat(router)).body;
      if (body._meta.routerDecision === 'quality_optimized') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(body?._meta.routerDecision, 'quality_optimized', 'the update did not reach the server within 1 s');
    // The ceiling drops sim:large (about $0.004 for 256 output tokens): the strongest model left is sim:medium.
    assert.equal(body?.model, 'sim:medium');
    assert.deepEqual(body?._meta.routing.dropped.map((drop) => drop.model), ['sim:large']);
    assert.match(body?._meta.routing.dropped[0]?.reason ?? '', /ceiling of \$0\.0010/);
  });
});
