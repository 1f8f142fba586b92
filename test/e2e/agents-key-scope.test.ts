import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * What an API key reads of its owner's agents (docs/agents.md, "What a key sees"): a key restricted to some
 * routers reads only the agents it may run and the executions made with itself; an unrestricted key reads all of
 * its owner's, dashboard runs included; another owner's ids are 404 to both. Runs on SQLite, or on the Postgres
 * in TEST_DATABASE_URL.
 */

interface Answer {
  readonly status: number;
  readonly body: Record<string, any>;
}

describe('agents: what a key sees', () => {
  let gateway: Gateway;
  let routerA: string;
  let routerB: string;
  /** Restricted to router A; `sameScope` is a second key with the same routers; `keyB` is restricted to router B. */
  let keyA: { id: string; value: string };
  let sameScope: { id: string; value: string };
  let keyB: { id: string; value: string };
  const runs: Record<'keyA' | 'sameScope' | 'unrestricted' | 'dashboard' | 'otherOwner', string> = {
    keyA: '',
    sameScope: '',
    unrestricted: '',
    dashboard: '',
    otherOwner: '',
  };

  const api = async (path: string, key: string, method = 'GET', body?: unknown): Promise<Answer> => {
    const response = await fetch(`${gateway.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const run = async (agent: string, key: string): Promise<Answer> => {
    const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: `agent:${agent}`, messages: [{ role: 'user', content: `private input of ${agent}` }] }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const executionOf = (answer: Answer): string => {
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return String(answer.body._meta.execution_id);
  };
  const create = async (definition: unknown, key = gateway.apiKey): Promise<void> => {
    const created = await api('/api/v1/agents', key, 'POST', definition);
    assert.equal(created.status, 201, JSON.stringify(created.body));
  };
  const step = (name: string, target: { router: string } | { model: string }) => ({ name, ...target, prompt: `${name}: {{input}}` });
  const names = (answer: Answer): string[] => (answer.body.data as { name: string }[]).map((agent) => agent.name).sort();
  const ids = (answer: Answer): string[] => (answer.body.data as { id: string }[]).map((entry) => entry.id).sort();

  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_DEFAULT_RPM: '100000' } });
    routerA = gateway.router.id;
    routerB = (await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'b', models: ['sim:small'], strategy: 'cost_optimized' })).id;
    const restricted = async (name: string, routerIds: string[]) => {
      const made = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name, routerIds });
      return { id: made.key.id, value: made.value };
    };
    keyA = await restricted('only a', [routerA]);
    sameScope = await restricted('also only a', [routerA]);
    keyB = await restricted('only b', [routerB]);

    await create({ name: 'on-a', steps: [step('one', { router: routerA }), step('two', { router: routerA })] });
    await create({ name: 'on-b', steps: [step('one', { router: routerB })] });
    await create({ name: 'a-and-b', steps: [step('one', { router: routerA }), step('two', { router: routerB })] });
    await create({ name: 'direct', steps: [step('one', { router: routerA }), step('two', { model: 'sim:small' })] });
    // Version 1 ran on router B; version 2 on router A.
    await create({ name: 'moved', steps: [step('one', { router: routerB })] });
    const moved = await api('/api/v1/agents/moved', gateway.apiKey, 'PUT', { steps: [step('one', { router: routerA })] });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));

    runs.keyA = executionOf(await run('on-a', keyA.value));
    runs.sameScope = executionOf(await run('on-a', sameScope.value));
    runs.unrestricted = executionOf(await run('on-a', gateway.apiKey));
    const dashboard = new DashboardClient(gateway.origin);
    const signedIn = await dashboard.signIn(gateway.ownerEmail, 'correct horse battery');
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
    runs.dashboard = executionOf(await dashboard.post(`${dashboard.ws}/agents/on-a/run`, { input: 'typed in the dashboard' }));

    await gateway.admin.createUser('other-owner@example.com', 'correct horse battery');
    const otherRouter = await gateway.admin.createRouter({ ownerEmail: 'other-owner@example.com', name: 'theirs', models: ['sim:small'], strategy: 'cost_optimized' });
    const otherKey = (await gateway.admin.createKey({ ownerEmail: 'other-owner@example.com', name: 'theirs' })).value;
    await create({ name: 'on-a', steps: [step('one', { router: otherRouter.id })] }, otherKey);
    runs.otherOwner = executionOf(await run('on-a', otherKey));
  });

  after(async () => {
    await gateway?.close();
  });

  it('a restricted key reads an execution made by the dashboard, another key or another owner as 404, and its own as 200', async () => {
    for (const other of [runs.dashboard, runs.sameScope, runs.unrestricted, runs.otherOwner]) {
      const read = await api(`/api/v1/executions/${other}`, keyA.value);
      assert.equal(read.status, 404, `${other}: ${JSON.stringify(read.body)}`);
      assert.equal(read.body.error.code, 'execution_not_found');
      assert.equal(read.body.input, undefined);
    }
    const own = await api(`/api/v1/executions/${runs.keyA}`, keyA.value);
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.equal(own.body.key_id, keyA.id);
    assert.match(String(own.body.input), /private input of on-a/);
    assert.deepEqual(own.body.steps.map((entry: { name: string }) => entry.name).sort(), ['one', 'two']);
  });

  it('a restricted key lists only its own executions of an agent', async () => {
    const listed = await api('/api/v1/agents/on-a/executions', keyA.value);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(ids(listed), [runs.keyA]);
    const other = await api('/api/v1/agents/on-a/executions', sameScope.value);
    assert.deepEqual(ids(other), [runs.sameScope]);
  });

  it('a restricted key lists only the agents it may run, as /v1/models does, with only the versions it could run', async () => {
    const listed = await api('/api/v1/agents', keyA.value);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(names(listed), ['moved', 'on-a']);
    assert.deepEqual(names(await api('/api/v1/agents', keyB.value)), ['on-b']);
    const models = await api('/api/router/v1/models', keyA.value);
    assert.deepEqual(ids(models), ['agent:moved', 'agent:on-a', routerA].sort());
    const moved = await api('/api/v1/agents/moved', keyA.value);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.deepEqual(moved.body.versions.map((version: { version: number }) => version.version), [2]);
  });

  it('a restricted key reading an agent it may not run gets the same 403 as running it', async () => {
    for (const agent of ['on-b', 'a-and-b', 'direct']) {
      const ran = await run(agent, keyA.value);
      assert.equal(ran.status, 403, `${agent}: ${JSON.stringify(ran.body)}`);
      for (const path of [`/api/v1/agents/${agent}`, `/api/v1/agents/${agent}/executions`]) {
        const read = await api(path, keyA.value);
        assert.equal(read.status, 403, `${path}: ${JSON.stringify(read.body)}`);
        assert.deepEqual(read.body.error, ran.body.error);
        assert.equal(read.body.definition, undefined);
      }
    }
    assert.equal((await api('/api/v1/agents/nobody', keyA.value)).body.error.code, 'agent_not_found');
  });

  it("an unrestricted key reads every agent and execution of its owner, dashboard runs included, and none of another owner's", async () => {
    assert.deepEqual(names(await api('/api/v1/agents', gateway.apiKey)), ['a-and-b', 'direct', 'moved', 'on-a', 'on-b']);
    const listed = await api('/api/v1/agents/on-a/executions', gateway.apiKey);
    assert.deepEqual(ids(listed), [runs.keyA, runs.sameScope, runs.unrestricted, runs.dashboard].sort());
    const dashboardRun = await api(`/api/v1/executions/${runs.dashboard}`, gateway.apiKey);
    assert.equal(dashboardRun.status, 200, JSON.stringify(dashboardRun.body));
    assert.equal(dashboardRun.body.key_id, 'dashboard');
    assert.equal((await api(`/api/v1/executions/${runs.keyA}`, gateway.apiKey)).body.key_id, keyA.id);
    const moved = await api('/api/v1/agents/moved', gateway.apiKey);
    assert.deepEqual(moved.body.versions.map((version: { version: number }) => version.version).sort(), [1, 2]);
    const foreign = await api(`/api/v1/executions/${runs.otherOwner}`, gateway.apiKey);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'execution_not_found');
  });
});
