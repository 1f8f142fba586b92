import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../support/databases.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/** The `data:` payloads of an SSE body, `[DONE]` left out. */
function sseChunks(text: string): any[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`dashboard agents API (${dialect})`, async () => {
    const database: TestDatabase | undefined = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
    let gateway: Gateway;
    let alice: DashboardClient;
    let bob: DashboardClient;
    let router: string;
    let executionId: string;
    const definition = () => ({
      name: 'research',
      description: 'Facts, then a summary',
      steps: [
        { name: 'facts', router, prompt: 'Facts about {{input}}' },
        { name: 'summary', router, system: 'Be brief.', prompt: 'Summarise: {{steps.facts.output}}', max_tokens: 200 },
      ],
    });

    before(async () => {
      if (database === undefined) return;
      gateway = await startGateway({ env: { DATABASE_URL: database.url } });
      alice = new DashboardClient(gateway.origin);
      bob = new DashboardClient(gateway.origin);
      await alice.signUp(`alice-agents-${dialect}@example.com`);
      await bob.signUp(`bob-agents-${dialect}@example.com`);
      router = (await alice.post(`${alice.ws}/routers`, { name: 'sim', models: ['sim:small', 'sim:medium'], strategy: 'cost_optimized' })).body.id;
    });
    after(async () => {
      if (database === undefined) return;
      await gateway.close();
      await database.drop();
    });

    it('refuses a definition with the field at fault, then creates it as version 1', { skip: database === undefined }, async () => {
      assert.deepEqual((await alice.get(`${alice.ws}/agents`)).body, { agents: [] });
      const bad = definition();
      bad.steps[1] = { ...bad.steps[1]!, prompt: 'Summarise: {{steps.fact.output}}' };
      const refused = await alice.post(`${alice.ws}/agents`, bad);
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'invalid_agent');
      assert.equal(refused.body.error.param, 'steps[1].prompt');
      const unknownRouter = await alice.post(`${alice.ws}/agents`, { ...definition(), steps: [{ name: 'only', router: 'rt_nope', prompt: '{{input}}' }] });
      assert.equal(unknownRouter.body.error.param, 'steps[0].router');
      const created = await alice.post(`${alice.ws}/agents`, definition());
      assert.equal(created.status, 201);
      assert.equal(created.body.name, 'research');
      assert.equal(created.body.model, 'agent:research');
      assert.equal(created.body.version, 1);
      assert.match(created.body.createdAt, /^\d{4}-\d\d-\d\dT/);
      assert.equal((await alice.post(`${alice.ws}/agents`, definition())).status, 409);
      const listed = await alice.get(`${alice.ws}/agents`);
      assert.deepEqual(listed.body.agents.map((agent: { name: string }) => agent.name), ['research']);
    });

    it('saves an edit as a new version and keeps the old ones', { skip: database === undefined }, async () => {
      const changed = { ...definition(), description: 'Second version' };
      const saved = await alice.request('PUT', `${alice.ws}/agents/research`, changed);
      assert.equal(saved.status, 200);
      assert.equal(saved.body.version, 2);
      const renamed = await alice.request('PUT', `${alice.ws}/agents/research`, { ...changed, name: 'other' });
      assert.equal(renamed.body.error.param, 'name');
      const fieldError = await alice.request('PUT', `${alice.ws}/agents/research`, { ...changed, limits: { max_parallel: 0 } });
      assert.equal(fieldError.status, 400);
      assert.match(fieldError.body.error.param, /^limits\./);
      const read = await alice.get(`${alice.ws}/agents/research`);
      assert.equal(read.body.description, 'Second version');
      assert.deepEqual(read.body.versions.map((version: { version: number }) => version.version).sort(), [1, 2]);
      const versions = await alice.get(`${alice.ws}/agents/research/versions`);
      assert.equal(versions.body.versions.length, 2);
      assert.equal((await alice.get(`${alice.ws}/agents/nope`)).body.error.code, 'agent_not_found');
    });

    it('runs plain: the chat-completions answer with the agent _meta, recorded under the playground key', { skip: database === undefined }, async () => {
      const ran = await alice.post(`${alice.ws}/agents/research/run`, { input: 'heat pumps' });
      assert.equal(ran.status, 200);
      assert.equal(ran.body.object, 'chat.completion');
      assert.equal(typeof ran.body.choices[0].message.content, 'string');
      const meta = ran.body._meta;
      assert.equal(meta.agent_name, 'research');
      assert.equal(meta.steps_executed, 2);
      assert.deepEqual(meta.steps.map((step: { name: string }) => step.name).sort(), ['facts', 'summary']);
      executionId = ran.headers.get('x-modelport-execution-id') ?? '';
      assert.equal(meta.execution_id, executionId);
      await gateway.app.usage.flush();
      const requests = (await alice.get(`${alice.ws}/usage/requests`)).body.requests;
      assert.equal(requests.length, 2);
      for (const request of requests) assert.equal(request.keyId, 'dashboard');
      assert.equal((await alice.post(`${alice.ws}/agents/research/run`, {})).body.error.param, 'input');
      assert.equal((await alice.post(`${alice.ws}/agents/nope/run`, { input: 'x' })).body.error.code, 'agent_not_found');
    });

    it('runs streamed: SSE chunks, the _meta on the last one', { skip: database === undefined }, async () => {
      const response = await fetch(`${gateway.origin}${alice.ws}/agents/research/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: alice.cookie ?? '', 'x-csrf-token': alice.csrfToken ?? '' },
        body: JSON.stringify({ input: 'solar panels', stream: true }),
      });
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
      const text = await response.text();
      assert.ok(text.trimEnd().endsWith('data: [DONE]'));
      const chunks = sseChunks(text);
      const content = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
      assert.ok(content.length > 0);
      const last = chunks.at(-1);
      assert.equal(last._meta.agent_name, 'research');
      assert.equal(last._meta.steps_executed, 2);
      for (const chunk of chunks.slice(0, -1)) assert.equal(chunk._meta, undefined);
    });

    it('lists executions and opens one with every step', { skip: database === undefined }, async () => {
      const listed = await alice.get(`${alice.ws}/agents/research/executions`);
      assert.equal(listed.body.executions.length, 2);
      assert.ok(listed.body.executions.every((execution: { status: string }) => execution.status === 'succeeded'));
      const detail = await alice.get(`${alice.ws}/executions/${executionId}`);
      assert.equal(detail.status, 200);
      assert.equal(detail.body.id, executionId);
      assert.equal(detail.body.agentName, 'research');
      assert.equal(detail.body.keyId, 'dashboard');
      assert.equal(detail.body.ownerId, undefined);
      assert.match(detail.body.startedAt, /^\d{4}-/);
      assert.deepEqual(detail.body.steps.map((step: { name: string; status: string }) => [step.name, step.status]), [['facts', 'succeeded'], ['summary', 'succeeded']]);
      for (const step of detail.body.steps) {
        assert.match(step.model, /^sim:/);
        assert.equal(typeof step.output, 'string');
        assert.ok(step.costUsd > 0);
      }
      assert.equal((await alice.get(`${alice.ws}/executions/exe_nope`)).body.error.code, 'execution_not_found');
    });

    it('viewers read and run but cannot write; outsiders see nothing', { skip: database === undefined }, async () => {
      const org = await alice.post('/api/dashboard/organizations', { name: `Agents ${dialect}` });
      const base = `/api/dashboard/workspaces/${org.body.id}`;
      const orgRouter = (await alice.post(`${base}/routers`, { name: 'shared', models: ['sim:small'], strategy: 'cost_optimized' })).body.id;
      const shared = { name: 'shared', steps: [{ name: 'only', router: orgRouter, prompt: '{{input}}' }] };
      assert.equal((await alice.post(`${base}/agents`, shared)).status, 201);
      assert.equal((await bob.get(`${base}/agents`)).body.error.code, 'workspace_not_found');
      assert.equal((await bob.post(`${base}/agents/shared/run`, { input: 'x' })).status, 404);
      await alice.post(`${base}/members`, { email: `bob-agents-${dialect}@example.com`, role: 'viewer' });
      assert.equal((await bob.get(`${base}/agents`)).body.agents.length, 1);
      assert.equal((await bob.get(`${base}/agents/shared`)).status, 200);
      const ran = await bob.post(`${base}/agents/shared/run`, { input: 'hello' });
      assert.equal(ran.status, 200);
      assert.equal((await bob.get(`${base}/executions/${ran.body._meta.execution_id}`)).status, 200);
      for (const [method, path, body] of [
        ['POST', `${base}/agents`, { ...shared, name: 'mine' }],
        ['PUT', `${base}/agents/shared`, shared],
        ['DELETE', `${base}/agents/shared`, undefined],
      ] as const) {
        const denied = await bob.request(method, path, body);
        assert.equal(denied.status, 403, `${method} ${path}`);
        assert.equal(denied.body.error.code, 'workspace_role_required');
      }
      assert.equal((await alice.delete(`${base}/agents/shared`)).status, 204);
      assert.equal((await alice.get(`${base}/agents/shared`)).body.error.code, 'agent_not_found');
    });
  });
}
