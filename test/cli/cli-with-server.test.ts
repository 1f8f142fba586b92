import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTempDatabase, parseJsonObject, runModelport } from './run-modelport.js';

const OWNER = 'ops@example.com';

/**
 * The operator's path end to end: users, routers and keys made with the CLI
 * on a SQLite file, served by a real gateway on the same file, and a
 * revocation by the real binary reaching the running server through the change counter.
 */
describe('CLI-made router and key, served by a running gateway', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args);
  let app: App;
  let origin = '';
  let routerId = '';
  let keyId = '';
  let apiKey = '';

  const chat = () =>
    fetch(`${origin}/api/router/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: routerId, messages: [{ role: 'user', content: 'Hello from the CLI test' }] }),
    });

  before(async () => {
    assert.equal((await cli('user', 'create', '--email', OWNER, '--password', 'correct horse battery')).code, 0);
    const router = await cli('router', 'create', '--owner', OWNER, '--name', 'cli router', '--models', 'sim:small,sim:medium', '--strategy', 'cost_optimized');
    assert.equal(router.code, 0, router.stderr);
    routerId = router.stdout.trim();
    const key = await cli('key', 'create', '--owner', OWNER, '--name', 'cli key', '--routers', routerId, '--json');
    assert.equal(key.code, 0, key.stderr);
    const body = parseJsonObject(key.stdout) as { key: { id: string }; value: string };
    keyId = body.key.id;
    apiKey = body.value;

    const config = loadConfig({
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      MODELPORT_BOOTSTRAP: 'false',
      MODELPORT_SIM_TIME_SCALE: '0',
      MODELPORT_CHANGE_POLL_MS: '50',
      MODELPORT_USAGE_FLUSH_MS: '50',
    });
    app = await createApp(config, pino({ level: 'silent' }));
    await app.server.listen({ port: config.port, host: config.host });
    const address = app.server.server.address();
    if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
    origin = `http://127.0.0.1:${address.port}`;
  });

  after(async () => {
    await app?.close();
    database.remove();
  });

  it('answers 200 with _meta for the CLI-made key and router', async () => {
    const response = await chat();
    assert.equal(response.status, 200);
    const body = (await response.json()) as { model: string; _meta: { modelUsed: string; routerDecision: string; cost: number } };
    assert.equal(body.model, 'sim:small');
    assert.equal(body._meta.modelUsed, 'sim:small');
    assert.equal(body._meta.routerDecision, 'cost_optimized');
    assert.ok(body._meta.cost > 0);
  });

  it('usage list and key list show the request once the server has flushed it', async () => {
    await app.usage.flush();
    const usage = await cli('usage', 'list', '--key', keyId, '--since', '1h', '--json');
    assert.equal(usage.code, 0, usage.stderr);
    const records = parseJsonObject(usage.stdout).usage as Array<{ keyId: string; routerId: string; model: string; status: number; totalTokens: number }>;
    assert.equal(records.length, 1);
    assert.equal(records[0]?.routerId, routerId);
    assert.equal(records[0]?.model, 'sim:small');
    assert.equal(records[0]?.status, 200);
    assert.ok((records[0]?.totalTokens ?? 0) > 0);

    const keys = parseJsonObject((await cli('key', 'list', '--owner', OWNER, '--json')).stdout).keys as Array<{ id: string; lastUsedAt: string | null }>;
    assert.ok(keys.find((key) => key.id === keyId)?.lastUsedAt !== null);
  });

  it('refuses the key with 401 within 1 s of "key revoke"', async () => {
    // From another process, as an operator's would be: the server hears of it only through the database.
    const revoked = await runModelport(database.url, ['key', 'revoke', '--owner', OWNER, '--id', keyId], { process: true });
    assert.equal(revoked.code, 0, revoked.stderr);
    const revokedAt = performance.now();
    let status = 0;
    let body: { error?: { code?: string } } = {};
    while (performance.now() - revokedAt < 1000) {
      const response = await chat();
      status = response.status;
      body = (await response.json()) as typeof body;
      if (status === 401) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const elapsed = performance.now() - revokedAt;
    assert.equal(status, 401, `still ${status} ${elapsed.toFixed(0)} ms after the revocation`);
    assert.equal(body.error?.code, 'invalid_api_key');
    assert.ok(elapsed < 1000);
  });
});
