import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import OpenAI from 'openai';
import { openAIErrors, requestedModel, startFakeOpenAI, type FakeBehaviour, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * Agents end to end: a real gateway, a fake api.openai.com that answers each
 * step by its rendered prompt, the JSON API and the openai SDK.
 */

interface StepMeta {
  readonly name: string;
  readonly model: string | null;
  readonly cost: number;
  readonly latency: number;
  readonly carbon: number;
}

interface AgentMeta {
  readonly execution_id: string;
  readonly agent_name: string;
  readonly steps_executed: number;
  readonly total_cost: number;
  readonly total_latency: number;
  readonly total_carbon: number;
  readonly models_used: readonly string[];
  readonly steps: readonly StepMeta[];
}

interface StoredStep {
  readonly name: string;
  readonly status: string;
  readonly model: string | null;
  readonly attempts: number;
  readonly cost: number;
  readonly carbon: number;
  readonly output: string | null;
  readonly error: { code: string; message: string } | null;
}

interface StoredExecution {
  readonly id: string;
  readonly status: string;
  readonly agent_name: string;
  readonly total_cost: number;
  readonly total_carbon: number;
  readonly steps_executed: number;
  readonly output: string | null;
  readonly error: { code: string } | null;
  readonly steps: readonly StoredStep[];
}

const MINI = 'openai:gpt-4o-mini';
const FOUR_O = 'openai:gpt-4o';

/** The last message's text of a recorded upstream request. */
function promptOf(request: RecordedRequest): string {
  const messages = (request.body as { messages?: { content?: unknown }[] }).messages ?? [];
  const content = messages.at(-1)?.content;
  return typeof content === 'string' ? content : '';
}

describe('agents', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  let api: (method: string, path: string, body?: unknown, key?: string) => Promise<{ status: number; body: Record<string, unknown> }>;
  let chat: (model: string, key?: string) => Promise<{ status: number; body: Record<string, unknown>; headers: Headers }>;

  /** Holds steps "facts" and "risks" until both have reached the upstream (or 5 s passed, so a sequential run fails, not hangs). */
  let barrier: { arrived: number; release: () => void; promise: Promise<void> };
  const newBarrier = () => {
    let release: () => void = () => undefined;
    const promise = new Promise<void>((resolve) => {
      release = resolve;
    });
    const timer = setTimeout(release, 5_000);
    timer.unref();
    return { arrived: 0, release, promise };
  };

  const handler = (request: RecordedRequest): FakeBehaviour | undefined => {
    const prompt = promptOf(request);
    if (prompt.startsWith('Facts about')) {
      barrier.arrived += 1;
      if (barrier.arrived === 2) barrier.release();
      return { type: 'answer', content: 'FACTS-A', transport: { waitFor: barrier.promise } };
    }
    if (prompt.startsWith('Risks of')) {
      barrier.arrived += 1;
      if (barrier.arrived === 2) barrier.release();
      return { type: 'answer', content: '{"risk": "RISK-B", "level": 3}', transport: { waitFor: barrier.promise } };
    }
    if (prompt.startsWith('Combine')) return { type: 'answer', content: 'The final answer' };
    if (prompt.startsWith('FLAKY') && requestedModel(request) === 'gpt-4o-mini') return openAIErrors.serverError();
    if (prompt.startsWith('DOOMED')) return openAIErrors.overloaded();
    return undefined;
  };

  const researchAgent = (routerId: string) => ({
    name: 'research',
    description: 'Facts and risks, joined',
    steps: [
      { name: 'facts', router: routerId, prompt: 'Facts about {{input}}' },
      { name: 'risks', router: routerId, prompt: 'Risks of {{ input }}', response_format: { type: 'json_object' } },
      {
        name: 'combine',
        router: routerId,
        needs: ['facts', 'risks'],
        system: 'Be brief.',
        prompt: 'Combine: {{steps.facts.output}} | {{steps.risks.json.risk}} | level {{steps.risks.json.level}}',
      },
    ],
  });

  before(async () => {
    fake = await startFakeOpenAI();
    gateway = await startGateway({
      models: [MINI, FOUR_O],
      strategy: 'cost_optimized',
      env: { OPENAI_BASE_URL: fake.baseUrl, OPENAI_API_KEY: 'sk-test', MODELPORT_DEFAULT_RPM: '100000' },
    });
    api = async (method, path, body, key = gateway.apiKey) => {
      const response = await fetch(`${gateway.origin}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    chat = async (model, key = gateway.apiKey) => {
      const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'system', content: 'ignored by steps' }, { role: 'user', content: 'solar panels' }] }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
    };
    const created = await api('POST', '/api/v1/agents', researchAgent(gateway.router.id));
    assert.equal(created.status, 201, JSON.stringify(created.body));
  });

  after(async () => {
    await gateway?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.reset();
    fake.setHandler(handler);
    barrier = newBarrier();
  });

  it('runs a three-step agent: the first two in parallel, the third with their rendered outputs', async () => {
    const { status, body, headers } = await chat('agent:research');
    assert.equal(status, 200, JSON.stringify(body));
    const choices = body.choices as { message: { content: string } }[];
    assert.equal(choices[0]?.message.content, 'The final answer');
    assert.equal(body.model, MINI);
    const meta = body._meta as AgentMeta;
    assert.equal(meta.agent_name, 'research');
    assert.equal(meta.steps_executed, 3);
    assert.deepEqual(meta.models_used, [MINI]);
    assert.match(meta.execution_id, /^exe_/);
    assert.equal(headers.get('x-modelport-execution-id'), meta.execution_id);

    const requests = fake.chatRequests();
    assert.equal(requests.length, 3);
    const byPrompt = (start: string) => {
      const found = requests.find((request) => promptOf(request).startsWith(start));
      assert.ok(found, `no upstream request starting "${start}"`);
      return found;
    };
    const facts = byPrompt('Facts about');
    const risks = byPrompt('Risks of');
    const combine = byPrompt('Combine');
    assert.equal(promptOf(facts), 'Facts about solar panels');
    assert.equal(promptOf(risks), 'Risks of solar panels');
    assert.deepEqual((risks.body as { response_format?: unknown }).response_format, { type: 'json_object' });
    assert.deepEqual((combine.body as { messages: unknown }).messages, [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Combine: FACTS-A | RISK-B | level 3' },
    ]);
    // Parallel: each of the first two reached the upstream before the other's answer was complete.
    assert.ok(facts.completedAt !== undefined && risks.completedAt !== undefined);
    assert.ok(risks.arrivedAt < facts.completedAt, 'risks arrived before facts completed');
    assert.ok(facts.arrivedAt < risks.completedAt, 'facts arrived before risks completed');
    // The join came after both.
    assert.ok(combine.arrivedAt > facts.arrivedAt && combine.arrivedAt > risks.arrivedAt);

    const stored = await api('GET', `/api/v1/executions/${meta.execution_id}`);
    assert.equal(stored.status, 200);
    const execution = stored.body as unknown as StoredExecution;
    assert.equal(execution.status, 'succeeded');
    assert.equal(execution.output, 'The final answer');
    assert.deepEqual(
      execution.steps.map((step) => [step.name, step.status, step.model]).sort(),
      [
        ['combine', 'succeeded', MINI],
        ['facts', 'succeeded', MINI],
        ['risks', 'succeeded', MINI],
      ],
    );
    const stepCost = execution.steps.reduce((sum, step) => sum + step.cost, 0);
    const stepCarbon = execution.steps.reduce((sum, step) => sum + step.carbon, 0);
    assert.ok(stepCost > 0);
    assert.ok(Math.abs(meta.total_cost - stepCost) < 1e-12, `${meta.total_cost} vs ${stepCost}`);
    assert.ok(Math.abs(meta.total_carbon - stepCarbon) < 1e-12);
    assert.ok(Math.abs(execution.total_cost - stepCost) < 1e-12);
    for (const step of meta.steps) assert.equal(step.cost, execution.steps.find((entry) => entry.name === step.name)?.cost);

    // Each step is a usage record of its own.
    await gateway.app.usage.flush();
    const usage = (await gateway.app.repositories.usage.list()).filter((row) => row.id.startsWith(`${meta.execution_id}:`));
    assert.deepEqual(usage.map((row) => row.id.split(':')[1]).sort(), ['combine', 'facts', 'risks']);
    assert.ok(Math.abs(usage.reduce((sum, row) => sum + row.cost_usd, 0) - stepCost) < 1e-12);

    const runs = await api('GET', '/api/v1/agents/research/executions');
    assert.ok((runs.body.data as { id: string }[]).some((run) => run.id === meta.execution_id));
  });

  it('streams the final step through the openai SDK, with the agent _meta on the last chunk', async () => {
    const client = new OpenAI({ baseURL: gateway.baseUrl, apiKey: gateway.apiKey, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'agent:research', messages: [{ role: 'user', content: 'wind turbines' }], stream: true });
    let text = '';
    let meta: AgentMeta | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      const extra = (chunk as unknown as { _meta?: AgentMeta })._meta;
      if (extra !== undefined) meta = extra;
    }
    assert.equal(text, 'The final answer');
    assert.ok(meta !== undefined, 'a chunk carries _meta');
    assert.equal(meta.agent_name, 'research');
    assert.equal(meta.steps_executed, 3);
    assert.equal(fake.chatRequests().filter((request) => (request.body as { stream?: boolean }).stream === true).length, 1, 'only the final step streams');
    const stored = (await api('GET', `/api/v1/executions/${meta.execution_id}`)).body as unknown as StoredExecution;
    assert.equal(stored.status, 'succeeded');
    assert.equal(stored.output, 'The final answer');
    assert.ok(Math.abs(stored.total_cost - meta.total_cost) < 1e-12);
  });

  it("falls back within a step's router when its first model fails", async () => {
    const saved = await api('POST', '/api/v1/agents', { name: 'flaky', steps: [{ name: 'only', router: gateway.router.id, prompt: 'FLAKY {{input}}' }] });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const { status, body } = await chat('agent:flaky');
    assert.equal(status, 200, JSON.stringify(body));
    const meta = body._meta as AgentMeta;
    assert.deepEqual(meta.models_used, [FOUR_O]);
    const stored = (await api('GET', `/api/v1/executions/${meta.execution_id}`)).body as unknown as StoredExecution;
    assert.equal(stored.steps[0]?.model, FOUR_O);
    assert.equal(stored.steps[0]?.attempts, 2);
  });

  it('a step whose every model fails ends the run with 503 and an execution id whose record keeps the partial run', async () => {
    const saved = await api('POST', '/api/v1/agents', {
      name: 'doomed',
      steps: [
        { name: 'first', router: gateway.router.id, prompt: 'Combine {{input}}' },
        { name: 'second', router: gateway.router.id, prompt: 'DOOMED {{steps.first.output}}' },
      ],
    });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const { status, body } = await chat('agent:doomed');
    assert.equal(status, 503);
    const error = body.error as { code: string; type: string; message: string; execution_id: string };
    assert.equal(error.code, 'all_models_unavailable');
    assert.match(error.execution_id, /^exe_/);
    assert.match(error.message, /step "second"/);
    const stored = (await api('GET', `/api/v1/executions/${error.execution_id}`)).body as unknown as StoredExecution;
    assert.equal(stored.status, 'failed');
    assert.equal(stored.error?.code, 'all_models_unavailable');
    assert.equal(stored.steps_executed, 2);
    const first = stored.steps.find((step) => step.name === 'first');
    const second = stored.steps.find((step) => step.name === 'second');
    assert.equal(first?.status, 'succeeded');
    assert.equal(first?.output, 'The final answer');
    assert.equal(second?.status, 'failed');
    assert.equal(second?.error?.code, 'all_models_unavailable');
    assert.equal(second?.attempts, 2);
  });

  it('stops cleanly at the cost cap and at the timeout, each with an execution id', async () => {
    const capped = await api('POST', '/api/v1/agents', {
      name: 'capped',
      steps: [
        { name: 'first', router: gateway.router.id, prompt: 'Combine {{input}}' },
        { name: 'second', router: gateway.router.id, prompt: 'Combine again {{steps.first.output}}' },
      ],
      limits: { max_cost_usd: 0.000000001 },
    });
    assert.equal(capped.status, 201, JSON.stringify(capped.body));
    const overBudget = await chat('agent:capped');
    assert.equal(overBudget.status, 422, JSON.stringify(overBudget.body));
    const budgetError = overBudget.body.error as { code: string; execution_id: string };
    assert.equal(budgetError.code, 'agent_cost_limit_reached');
    assert.equal(fake.chatRequests().length, 1, 'the second step never started');
    const budgetRun = (await api('GET', `/api/v1/executions/${budgetError.execution_id}`)).body as unknown as StoredExecution;
    assert.equal(budgetRun.status, 'failed');
    assert.deepEqual(budgetRun.steps.map((step) => [step.name, step.status]), [['first', 'succeeded']]);

    fake.reset();
    fake.setHandler(() => ({ type: 'hang' }));
    const slow = await api('POST', '/api/v1/agents', { name: 'slow', steps: [{ name: 'only', router: gateway.router.id, prompt: 'anything' }], limits: { timeout_ms: 300 } });
    assert.equal(slow.status, 201, JSON.stringify(slow.body));
    const late = await chat('agent:slow');
    assert.equal(late.status, 504, JSON.stringify(late.body));
    const lateError = late.body.error as { code: string; execution_id: string };
    assert.equal(lateError.code, 'agent_timeout');
    const lateRun = (await api('GET', `/api/v1/executions/${lateError.execution_id}`)).body as unknown as StoredExecution;
    assert.equal(lateRun.steps[0]?.error?.code, 'agent_timeout');
  });

  it('refuses unknown agents (404) and keys restricted to other routers (403)', async () => {
    const missing = await chat('agent:nobody');
    assert.equal(missing.status, 404);
    assert.equal((missing.body.error as { code: string }).code, 'agent_not_found');

    const other = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'other', models: ['sim:small'], strategy: 'cost_optimized' });
    const restricted = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'restricted', routerIds: [other.id] });
    const denied = await chat('agent:research', restricted.value);
    assert.equal(denied.status, 403);
    assert.deepEqual(
      { type: (denied.body.error as { type: string }).type, code: (denied.body.error as { code: string }).code },
      { type: 'authorization_error', code: 'router_access_denied' },
    );
    const allowedKey = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'allowed', routerIds: [gateway.router.id] });
    const allowed = await chat('agent:research', allowedKey.value);
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    // A restricted key may read agents but not change them.
    const write = await api('POST', '/api/v1/agents', { name: 'nope', steps: [{ name: 'a', router: other.id, prompt: 'x' }] }, restricted.value);
    assert.equal(write.status, 403);
    const models = await fetch(`${gateway.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${gateway.apiKey}` } });
    const ids = ((await models.json()) as { data: { id: string }[] }).data.map((entry) => entry.id);
    assert.ok(ids.includes('agent:research'));
  });

  it('refuses invalid definitions when they are saved, naming the step and field', async () => {
    const cases: { definition: unknown; param: string; message: RegExp }[] = [
      { definition: { name: 'a1', steps: [{ name: 's', router: gateway.router.id, prompt: 'Hi {{user}}' }] }, param: 'steps[0].prompt', message: /unknown variable "\{\{user\}\}"/ },
      {
        definition: {
          name: 'a2',
          steps: [
            { name: 'x', router: gateway.router.id, prompt: '{{steps.y.output}}' },
            { name: 'y', router: gateway.router.id, prompt: '{{steps.x.output}}' },
            { name: 'z', router: gateway.router.id, prompt: 'end' },
          ],
        },
        param: 'steps',
        message: /cycle/,
      },
      { definition: { name: 'a3', steps: [{ name: 's', router: 'rt_doesnotexist', prompt: 'x' }] }, param: 'steps[0].router', message: /no router "rt_doesnotexist"/ },
      {
        definition: { name: 'a4', steps: Array.from({ length: 21 }, (_, index) => ({ name: `s${index}`, router: gateway.router.id, prompt: 'x' })) },
        param: 'steps',
        message: /more than the limit of 20/,
      },
      { definition: { name: 'a5', steps: [{ name: 's', prompt: 'x' }] }, param: 'steps[0]', message: /either "router".*or "model"/ },
      { definition: { name: 'a6', steps: [{ name: 's', model: 'openai:no-such-model', prompt: 'x' }] }, param: 'steps[0].model', message: /unknown model/ },
      {
        definition: { name: 'a7', steps: [{ name: 'p', router: gateway.router.id, prompt: 'x' }, { name: 'q', router: gateway.router.id, prompt: '{{steps.p.json.k}}' }] },
        param: 'steps[1].prompt',
        message: /no JSON response_format/,
      },
    ];
    for (const { definition, param, message } of cases) {
      const { status, body } = await api('POST', '/api/v1/agents', definition);
      const error = body.error as { code: string; param: string; message: string };
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(error.code, 'invalid_agent');
      assert.equal(error.param, param, error.message);
      assert.match(error.message, message);
    }
    assert.equal((await api('POST', '/api/v1/agents', researchAgent(gateway.router.id))).status, 409);
  });

  it('versions every save; executions remember the version that ran', async () => {
    const v2 = await api('PUT', '/api/v1/agents/flaky', { description: 'second', steps: [{ name: 'only', model: FOUR_O, prompt: 'Combine {{input}}' }] });
    assert.equal(v2.status, 200, JSON.stringify(v2.body));
    assert.equal(v2.body.version, 2);
    const { body } = await chat('agent:flaky');
    const meta = body._meta as AgentMeta;
    assert.deepEqual(meta.models_used, [FOUR_O]);
    const shown = await api('GET', '/api/v1/agents/flaky');
    assert.deepEqual((shown.body.versions as { version: number }[]).map((entry) => entry.version), [2, 1]);
    const stored = (await api('GET', `/api/v1/executions/${meta.execution_id}`)).body as unknown as { agent_version: number };
    assert.equal(stored.agent_version, 2);
  });
});
