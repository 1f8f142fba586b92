import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../support/databases.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const DAY = 86_400_000;
const hello = [{ role: 'user', content: 'Hello' }];

async function chat(gateway: Gateway, key: string, router: string) {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: router, messages: hello }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Polls until the gateway's key cache has seen a change (MODELPORT_CHANGE_POLL_MS is 50 ms in tests). */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`dashboard routers, keys, usage, organisations and tenant isolation (${dialect})`, async () => {
    const database: TestDatabase | undefined = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
    let gateway: Gateway;
    const a = () => new DashboardClient(gateway.origin);
    let alice: DashboardClient;
    let bob: DashboardClient;
    let aliceRouter: string;
    let aliceKeyId: string;
    let aliceKey: string;

    before(async () => {
      if (database === undefined) return;
      gateway = await startGateway({ env: { DATABASE_URL: database.url } });
      alice = a();
      bob = a();
      await alice.signUp(`alice-${dialect}@example.com`);
      await bob.signUp(`bob-${dialect}@example.com`);
    });
    after(async () => {
      if (database === undefined) return;
      await gateway.close();
      await database.drop();
    });

    it('creates, reads, edits and deletes routers with the CLI rules, errors at the field', { skip: database === undefined }, async () => {
      const created = await alice.post(`${alice.ws}/routers`, { name: 'support', models: ['sim:small', 'sim:medium'], strategy: 'cost_optimized' });
      assert.equal(created.status, 201);
      aliceRouter = created.body.id;
      assert.match(aliceRouter, /^rt_/);
      const badStrategy = await alice.post(`${alice.ws}/routers`, { name: 'x', models: ['sim:small'], strategy: 'fastest' });
      assert.equal(badStrategy.status, 400);
      assert.equal(badStrategy.body.error.param, 'strategy');
      const badWeights = await alice.post(`${alice.ws}/routers`, { name: 'x', models: ['sim:small'], strategy: 'balanced', settings: { weights: { cost: -1 } } });
      assert.equal(badWeights.body.error.param, 'settings.weights.cost');
      const edited = await alice.patch(`${alice.ws}/routers/${aliceRouter}`, { strategy: 'balanced', settings: { weights: { cost: 1 } } });
      assert.equal(edited.status, 200);
      assert.deepEqual(edited.body.settings, { weights: { cost: 1 } });
      const reset = await alice.patch(`${alice.ws}/routers/${aliceRouter}`, { settings: { weights: null } });
      assert.deepEqual(reset.body.settings, {});
      const doomed = await alice.post(`${alice.ws}/routers`, { name: 'doomed', models: ['sim:small'], strategy: 'quality_optimized' });
      assert.equal((await alice.delete(`${alice.ws}/routers/${doomed.body.id}`)).status, 204);
      assert.deepEqual((await alice.get(`${alice.ws}/routers`)).body.routers.map((router: { id: string }) => router.id), [aliceRouter]);
      const catalog = await alice.get(`/api/dashboard/catalog?workspace=${alice.userId}`);
      const small = catalog.body.models.find((model: { id: string }) => model.id === 'sim:small');
      assert.equal(small.available, true);
      assert.equal(typeof small.contextWindow, 'number');
      assert.ok((await alice.get('/api/dashboard/strategies')).body.some((strategy: { id: string }) => strategy.id === 'cost_optimized'));
    });

    it('generates a key shown once that opens the gateway, lists it without the secret, revokes it', { skip: database === undefined }, async () => {
      const created = await alice.post(`${alice.ws}/keys`, { name: 'production', routerIds: [aliceRouter], rpmLimit: 100 });
      assert.equal(created.status, 201);
      assert.match(created.body.key, /^mp_/);
      aliceKey = created.body.key;
      aliceKeyId = created.body.id;
      assert.equal(await chat(gateway, aliceKey, aliceRouter), 200);
      const listed = await alice.get(`${alice.ws}/keys`);
      assert.ok(!JSON.stringify(listed.body).includes(aliceKey));
      const view = listed.body.keys.find((key: { id: string }) => key.id === aliceKeyId);
      assert.deepEqual([view.status, view.routerIds, view.rpmLimit, view.prefix], ['active', [aliceRouter], 100, aliceKey.slice(0, view.prefix.length)]);
      const scoped = await alice.post(`${alice.ws}/keys`, { name: 'past', expiresAt: new Date(Date.now() - 1000).toISOString() });
      assert.equal(scoped.body.error.param, 'expiresAt');
      const temp = await alice.post(`${alice.ws}/keys`, { name: 'temp' });
      const revoked = await alice.post(`${alice.ws}/keys/${temp.body.id}/revoke`);
      assert.equal(revoked.body.status, 'revoked');
      assert.ok(await eventually(async () => (await chat(gateway, temp.body.key, aliceRouter)) === 401));
      assert.equal((await alice.post(`${alice.ws}/keys/${temp.body.id}/revoke`)).status, 409);
    });

    it('rotates a key: same settings, the old key works during the grace period then ends', { skip: database === undefined }, async () => {
      const rotated = await alice.post(`${alice.ws}/keys/${aliceKeyId}/rotate`, { graceMinutes: 60 });
      assert.equal(rotated.status, 201);
      assert.deepEqual([rotated.body.name, rotated.body.routerIds, rotated.body.rpmLimit, rotated.body.replaces], ['production', [aliceRouter], 100, aliceKeyId]);
      const old = (await alice.get(`${alice.ws}/keys`)).body.keys.find((key: { id: string }) => key.id === aliceKeyId);
      assert.equal(old.status, 'rotating');
      assert.equal(old.replacedBy, rotated.body.id);
      const graceEnd = Date.parse(old.expiresAt) - Date.now();
      assert.ok(graceEnd > 50 * 60_000 && graceEnd <= 60 * 60_000);
      assert.equal(await chat(gateway, aliceKey, aliceRouter), 200);
      assert.equal(await chat(gateway, rotated.body.key, aliceRouter), 200);
      const again = await alice.post(`${alice.ws}/keys/${rotated.body.id}/rotate`, { graceMinutes: 0 });
      assert.equal(again.status, 201);
      assert.ok(await eventually(async () => (await chat(gateway, rotated.body.key, aliceRouter)) === 401));
      assert.equal(await chat(gateway, again.body.key, aliceRouter), 200);
      aliceKey = again.body.key;
      aliceKeyId = again.body.id;
    });

    it('flags keys older than 90 days and keys unused for 30', { skip: database === undefined }, async () => {
      const { apiKeys } = gateway.app.repositories;
      const now = Date.now();
      const make = (name: string, createdAt: number) =>
        apiKeys.create({ ownerId: alice.userId, name, keyHash: `${name}-${dialect}-${now}`.padEnd(64, '0'), displayPrefix: 'mp_test', createdAt });
      await make('ancient', now - 100 * DAY);
      await make('idle', now - 40 * DAY);
      const flags = Object.fromEntries((await alice.get(`${alice.ws}/keys`)).body.keys.map((key: { name: string; flags: string[] }) => [key.name, key.flags]));
      assert.deepEqual(flags.ancient, ['old', 'unused']);
      assert.deepEqual(flags.idle, ['unused']);
      assert.deepEqual(flags.temp, []);
    });

    it('reports usage over time and by router, model and key, and the playground goes through the same pipeline', { skip: database === undefined }, async () => {
      const play = await alice.post(`${alice.ws}/playground/chat`, { model: aliceRouter, messages: hello });
      assert.equal(play.status, 200);
      assert.equal(play.body.object, 'chat.completion');
      assert.equal(play.body._meta.routerId, aliceRouter);
      const stream = await alice.post(`${alice.ws}/playground/chat`, { model: aliceRouter, messages: hello, stream: true });
      assert.match(stream.body, /"_meta"/);
      assert.match(stream.body, /data: \[DONE\]/);
      await gateway.app.usage.flush();
      const usage = await alice.get(`${alice.ws}/usage?from=${new Date(Date.now() - 2 * 3_600_000).toISOString()}`);
      assert.equal(usage.status, 200);
      assert.ok(usage.body.totals.requests >= 6);
      assert.equal(usage.body.series.reduce((sum: number, bucket: { requests: number }) => sum + bucket.requests, 0), usage.body.totals.requests);
      assert.equal(typeof usage.body.totals.p95LatencyMs, 'number');
      assert.deepEqual(usage.body.byRouter.map((entry: { id: string }) => entry.id), [aliceRouter]);
      const playground = usage.body.byKey.find((entry: { id: string }) => entry.id === 'dashboard');
      assert.equal(playground.requests, 2);
      const page = await alice.get(`${alice.ws}/usage/requests?limit=2`);
      assert.equal(page.body.requests.length, 2);
      const next = await alice.get(`${alice.ws}/usage/requests?limit=2&before=${encodeURIComponent(page.body.nextBefore)}`);
      assert.ok(!next.body.requests.some((record: { id: string }) => page.body.requests.some((seen: { id: string }) => seen.id === record.id)));
      const traffic = await alice.get(`${alice.ws}/routers/${aliceRouter}/traffic?range=24h`);
      assert.ok(traffic.body.hourly.length >= 24);
      assert.ok(traffic.body.recent.length > 0);
    });

    it('organisations: owners manage members; admins write; viewers read and use the playground but cannot write', { skip: database === undefined }, async () => {
      const org = await alice.post('/api/dashboard/organizations', { name: 'Acme' });
      assert.equal(org.status, 201);
      const base = `/api/dashboard/workspaces/${org.body.id}`;
      assert.equal((await bob.get(`${base}/routers`)).status, 404);
      const added = await alice.post(`${base}/members`, { email: `bob-${dialect}@example.com`, role: 'viewer' });
      assert.equal(added.status, 201);
      assert.equal((await alice.post(`${base}/members`, { email: 'ghost@example.com', role: 'viewer' })).body.error.code, 'user_not_found');
      const router = await alice.post(`${base}/routers`, { name: 'shared', models: ['sim:small'], strategy: 'cost_optimized' });
      assert.equal(router.status, 201);
      const session = await bob.get('/api/dashboard/session');
      assert.deepEqual(session.body.workspaces[1], { id: org.body.id, name: 'Acme', kind: 'organization', role: 'viewer' });
      assert.equal((await bob.get(`${base}/routers`)).body.routers.length, 1);
      const denied = await bob.post(`${base}/routers`, { name: 'nope', models: ['sim:small'], strategy: 'cost_optimized' });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.error.code, 'workspace_role_required');
      assert.equal((await bob.post(`${base}/keys`, { name: 'nope' })).status, 403);
      assert.equal((await bob.delete(`${base}/routers/${router.body.id}`)).status, 403);
      assert.equal((await bob.post(`${base}/playground/chat`, { model: router.body.id, messages: hello })).status, 200);
      assert.equal((await bob.patch(`${base}/members/${alice.userId}`, { role: 'viewer' })).status, 403);
      assert.equal((await alice.patch(`${base}/members/${bob.userId}`, { role: 'admin' })).body.role, 'admin');
      const key = await bob.post(`${base}/keys`, { name: 'org key' });
      assert.equal(key.status, 201);
      // The organisation's key opens its routers through the gateway, as a user's does.
      assert.equal(await chat(gateway, key.body.key, router.body.id), 200);
      assert.equal((await alice.patch(`${base}/members/${alice.userId}`, { role: 'admin' })).body.error.code, 'last_owner');
      assert.equal((await bob.delete(`${base}/members/${bob.userId}`)).status, 204);
      assert.equal((await bob.get(`${base}/routers`)).status, 404);
      assert.equal((await alice.post(`${alice.ws}/members`, { email: `bob-${dialect}@example.com`, role: 'viewer' })).body.error.code, 'personal_workspace');
    });

    it("tenant isolation: Bob can neither see, change nor use Alice's routers, keys or usage through any endpoint", { skip: database === undefined }, async () => {
      const aliceWs = alice.ws;
      const agent = { name: 'helper', steps: [{ name: 'only', router: aliceRouter, prompt: '{{input}}' }] };
      assert.equal((await alice.post(`${aliceWs}/agents`, agent)).status, 201);
      const aliceExecution = (await alice.post(`${aliceWs}/agents/helper/run`, { input: 'hi' })).body._meta.execution_id;
      const foreignWorkspace: Array<[string, string, unknown?]> = [
        ['GET', `${aliceWs}/routers`],
        ['POST', `${aliceWs}/routers`, { name: 'x', models: ['sim:small'], strategy: 'cost_optimized' }],
        ['GET', `${aliceWs}/routers/${aliceRouter}`],
        ['PATCH', `${aliceWs}/routers/${aliceRouter}`, { name: 'pwned' }],
        ['DELETE', `${aliceWs}/routers/${aliceRouter}`],
        ['GET', `${aliceWs}/routers/${aliceRouter}/traffic`],
        ['GET', `${aliceWs}/keys`],
        ['POST', `${aliceWs}/keys`, { name: 'x' }],
        ['POST', `${aliceWs}/keys/${aliceKeyId}/revoke`],
        ['POST', `${aliceWs}/keys/${aliceKeyId}/rotate`, { graceMinutes: 0 }],
        ['GET', `${aliceWs}/usage`],
        ['GET', `${aliceWs}/usage/requests`],
        ['POST', `${aliceWs}/playground/chat`, { model: aliceRouter, messages: hello }],
        ['GET', `${aliceWs}/members`],
        ['POST', `${aliceWs}/members`, { email: `bob-${dialect}@example.com`, role: 'owner' }],
        ['GET', `/api/dashboard/catalog?workspace=${alice.userId}`],
        ['GET', `${aliceWs}/agents`],
        ['POST', `${aliceWs}/agents`, { ...agent, name: 'pwned' }],
        ['GET', `${aliceWs}/agents/helper`],
        ['GET', `${aliceWs}/agents/helper/versions`],
        ['PUT', `${aliceWs}/agents/helper`, agent],
        ['DELETE', `${aliceWs}/agents/helper`],
        ['POST', `${aliceWs}/agents/helper/run`, { input: 'hi' }],
        ['GET', `${aliceWs}/agents/helper/executions`],
        ['GET', `${aliceWs}/executions/${aliceExecution}`],
      ];
      for (const [method, path, body] of foreignWorkspace) {
        const response = await bob.request(method, path, body);
        assert.equal(response.status, 404, `${method} ${path}`);
        assert.equal(response.body.error.code, 'workspace_not_found', `${method} ${path}`);
      }
      // Alice's ids through Bob's own workspace.
      const ownWorkspace: Array<[string, string, unknown, string]> = [
        ['GET', `${bob.ws}/routers/${aliceRouter}`, undefined, 'router_not_found'],
        ['PATCH', `${bob.ws}/routers/${aliceRouter}`, { name: 'pwned' }, 'router_not_found'],
        ['DELETE', `${bob.ws}/routers/${aliceRouter}`, undefined, 'router_not_found'],
        ['GET', `${bob.ws}/routers/${aliceRouter}/traffic`, undefined, 'router_not_found'],
        ['POST', `${bob.ws}/keys/${aliceKeyId}/revoke`, undefined, 'key_not_found'],
        ['POST', `${bob.ws}/keys/${aliceKeyId}/rotate`, { graceMinutes: 0 }, 'key_not_found'],
        ['POST', `${bob.ws}/playground/chat`, { model: aliceRouter, messages: hello }, 'router_not_found'],
        ['POST', `${bob.ws}/keys`, { name: 'x', routerIds: [aliceRouter] }, 'invalid_value'],
        ['GET', `${bob.ws}/agents/helper`, undefined, 'agent_not_found'],
        ['PUT', `${bob.ws}/agents/helper`, agent, 'invalid_agent'],
        ['DELETE', `${bob.ws}/agents/helper`, undefined, 'agent_not_found'],
        ['POST', `${bob.ws}/agents/helper/run`, { input: 'hi' }, 'agent_not_found'],
        ['GET', `${bob.ws}/agents/helper/executions`, undefined, 'agent_not_found'],
        ['GET', `${bob.ws}/executions/${aliceExecution}`, undefined, 'execution_not_found'],
        ['POST', `${bob.ws}/agents`, agent, 'invalid_agent'],
      ];
      for (const [method, path, body, code] of ownWorkspace) {
        const response = await bob.request(method, path, body);
        assert.equal(response.body.error?.code, code, `${method} ${path}`);
      }
      await gateway.app.usage.flush();
      assert.deepEqual((await bob.get(`${bob.ws}/usage/requests`)).body.requests, []);
      assert.equal((await bob.get(`${bob.ws}/usage`)).body.totals.requests, 0);
      assert.deepEqual((await bob.get(`${bob.ws}/keys`)).body.keys, []);
      assert.deepEqual((await bob.get(`${bob.ws}/agents`)).body.agents, []);
      assert.equal((await alice.get(`${aliceWs}/agents/helper`)).body.version, 1);
      // Nothing of Alice's changed, and her key still works.
      const router = await alice.get(`${aliceWs}/routers/${aliceRouter}`);
      assert.equal(router.body.name, 'support');
      assert.equal(await chat(gateway, aliceKey, aliceRouter), 200);
      assert.equal((await alice.get(`${aliceWs}/keys`)).body.keys.find((key: { id: string }) => key.id === aliceKeyId).status, 'active');
    });
  });
}
