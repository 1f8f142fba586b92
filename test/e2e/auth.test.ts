import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { generate } from 'selfsigned';
import { Agent, fetch as undiciFetch } from 'undici';
import { createAdminService } from '../../src/admin/admin-service.js';
import { generateApiKey } from '../../src/auth/api-key-format.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { bumpChangeCounter } from '../../src/storage/changes-repository.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { assertError, rawRequest, readFetchResponse, type RawResponse } from '../support/raw-http.js';

const hello = [{ role: 'user', content: 'Hello' }];

async function chat(gateway: Gateway, key: string | undefined, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key !== undefined ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify(body),
  });
  return readFetchResponse(response);
}

/** Polls until `check` passes or the deadline is gone; returns the time it took. Never a blind sleep. */
async function within(deadlineMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > deadlineMs) assert.fail(`not true within ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('keys and routers change on a running server', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(async () => {
    await gateway.close();
  });

  it('a key created with admin.createKey works within 1 s', async () => {
    const { value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'fresh' });
    await within(1000, async () => (await chat(gateway, value, { model: gateway.router.id, messages: hello })).status === 200);
  });

  it('a key that was refused (and remembered as unknown) works within 1 s once it is stored', async () => {
    const generated = generateApiKey();
    assertError(await chat(gateway, generated.value, { model: gateway.router.id, messages: hello }), { status: 401, type: 'authentication_error', code: 'invalid_api_key' });
    const owner = await gateway.app.repositories.users.findByEmail(gateway.ownerEmail);
    assert.ok(owner);
    await gateway.app.repositories.apiKeys.create({ ownerId: owner.id, name: 'late', keyHash: generated.hash, displayPrefix: generated.displayPrefix });
    await within(1000, async () => (await chat(gateway, generated.value, { model: gateway.router.id, messages: hello })).status === 200);
  });

  it('a router created on the running server works within 1 s', async () => {
    const router = await gateway.admin.createRouter({ ownerEmail: gateway.ownerEmail, name: 'new', models: ['sim:large'], strategy: 'quality_optimized' });
    await within(1000, async () => (await chat(gateway, gateway.apiKey, { model: router.id, messages: hello })).status === 200);
  });

  it('a router id that was unknown (and remembered as such) works within 1 s once the router exists', async () => {
    const id = 'rt_handwritten0000000000001';
    assertError(await chat(gateway, gateway.apiKey, { model: id, messages: hello }), { status: 404, type: 'not_found_error', code: 'router_not_found', param: 'model' });
    const owner = await gateway.app.repositories.users.findByEmail(gateway.ownerEmail);
    assert.ok(owner);
    await gateway.app.storage.db.transaction().execute(async (transaction) => {
      await transaction
        .insertInto('routers')
        .values({ id, owner_id: owner.id, name: 'by hand', strategy: 'cost_optimized', models: JSON.stringify(['sim:small']), created_at: Date.now(), updated_at: Date.now(), deleted_at: null })
        .execute();
      await bumpChangeCounter(transaction);
    });
    await within(1000, async () => (await chat(gateway, gateway.apiKey, { model: id, messages: hello })).status === 200);
  });

  it('a key revoked on the running server is refused within 1 s', async () => {
    const { key, value } = await gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: 'soon revoked' });
    await within(1000, async () => (await chat(gateway, value, { model: gateway.router.id, messages: hello })).status === 200);
    await gateway.admin.revokeKey(gateway.ownerEmail, key.id);
    await within(1000, async () => (await chat(gateway, value, { model: gateway.router.id, messages: hello })).status === 401);
    assertError(await chat(gateway, value, { model: gateway.router.id, messages: hello }), {
      status: 401,
      type: 'authentication_error',
      code: 'invalid_api_key',
      messageIncludes: ['revoked'],
    });
  });
});

describe('key format and storage', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(async () => {
    await gateway.close();
  });

  it('keys are mp_ + at least 32 base62 characters, all distinct, and only their SHA-256 is stored', async () => {
    const created = await Promise.all(Array.from({ length: 40 }, (_, index) => gateway.admin.createKey({ ownerEmail: gateway.ownerEmail, name: `key ${index}` })));
    const values = [gateway.apiKey, ...created.map((entry) => entry.value)];
    for (const value of values) assert.match(value, /^mp_[0-9A-Za-z]{32,}$/);
    assert.equal(new Set(values).size, values.length);

    const rows = await gateway.app.storage.db.selectFrom('api_keys').selectAll().execute();
    assert.equal(rows.length, values.length);
    const dump = JSON.stringify(rows);
    for (const value of values) {
      assert.ok(!dump.includes(value), 'the whole key is never stored');
      assert.ok(!dump.includes(value.slice(3)), 'nor its body without the prefix');
    }
    for (const { key, value } of created) {
      const row = rows.find((candidate) => candidate.id === key.id);
      assert.ok(row);
      assert.equal(row.key_hash, createHash('sha256').update(value).digest('hex'));
      assert.ok(value.startsWith(row.display_prefix));
      assert.ok(row.display_prefix.length <= 12, 'the display prefix is far too short to use as a key');
    }
  });
});

describe('keys never appear in the logs', () => {
  let app: App;
  let origin: string;
  let directory: string;
  const lines: string[] = [];

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelport-logs-'));
    const config = loadConfig({
      DATABASE_URL: join(directory, 'test.db'),
      LOG_LEVEL: 'trace',
      MODELPORT_BOOTSTRAP: 'false',
      MODELPORT_SIM_TIME_SCALE: '0',
      MODELPORT_CHANGE_POLL_MS: '50',
      MODELPORT_USAGE_FLUSH_MS: '50',
    });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    app = await createApp(config, pino({ level: 'trace' }, sink));
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    origin = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await app.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('neither the key nor its SHA-256 is logged, on success or failure, at level trace', async () => {
    const admin = createAdminService(app.repositories, app.catalog);
    await admin.createUser('logs@example.com', 'a long enough password');
    const router = await admin.createRouter({ ownerEmail: 'logs@example.com', name: 'logs', models: ['sim:small'], strategy: 'cost_optimized' });
    const { key, value } = await admin.createKey({ ownerEmail: 'logs@example.com', name: 'watched' });
    const limited = await admin.createKey({ ownerEmail: 'logs@example.com', name: 'limited', rpmLimit: 1 });
    const unknown = generateApiKey().value;
    const send = async (path: string, token: string, body?: unknown) => {
      const response = await fetch(`${origin}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      await response.arrayBuffer();
      return response.status;
    };

    assert.equal(await send('/api/router/chat/completions', value, { model: router.id, messages: hello }), 200);
    assert.equal(await send(`/api/router/v1/${router.id}/chat/completions?api_key=${value}`, value, { messages: hello, stream: true }), 200);
    assert.equal(await send('/api/router/v1/models', value), 200);
    assert.equal(await send('/api/router/chat/completions', value, '{not json'), 400);
    assert.equal(await send('/api/router/chat/completions', value, { model: 'rt_nope', messages: hello }), 404);
    assert.equal(await send('/api/router/chat/completions', value, { model: router.id, messages: [] }), 400);
    assert.equal(await send('/api/router/chat/completions', unknown, { model: router.id, messages: hello }), 401);
    assert.equal(await send('/api/router/chat/completions', `${value}x`, { model: router.id, messages: hello }), 401);
    assert.equal(await send('/api/router/chat/completions', 'mp_!!', { model: router.id, messages: hello }), 401);
    assert.equal(await send(`/nowhere/${value}`, value), 404);
    // A key pasted where the router id goes.
    assert.equal(await send(`/api/router/${value}/chat/completions`, value, { messages: hello }), 404);
    await send('/api/router/chat/completions', limited.value, { model: router.id, messages: hello });
    assert.equal(await send('/api/router/chat/completions', limited.value, { model: router.id, messages: hello }), 429);
    // Malformed HTTP that carries the key: Node hands the raw bytes to the error handler.
    const malformed = await rawRequest(origin, { method: 'POST', path: '/api/router/chat/completions', headers: [['Authorization', `Bearer ${value}`], ['X-Bad', 'a\u0001b']], body: '{}' });
    assert.equal(malformed.status, 400);
    const tooLarge = await rawRequest(origin, { path: '/api/router/models', headers: [['Authorization', `Bearer ${value}`], ['X-Big', 'x'.repeat(20_000)]] });
    assert.equal(tooLarge.status, 431);
    await admin.revokeKey('logs@example.com', key.id);
    await app.changes.poll();
    assert.equal(await send('/api/router/chat/completions', value, { model: router.id, messages: hello }), 401);
    await app.usage.flush();

    const log = lines.join('');
    assert.ok(log.includes('"msg":"request"'), 'the requests were logged');
    for (const secret of [value, limited.value, unknown]) {
      const hash = createHash('sha256').update(secret).digest('hex');
      assert.ok(!log.includes(secret), `a key appears in the logs: ${lines.filter((line) => line.includes(secret)).join('')}`);
      assert.ok(!log.includes(secret.slice(3)), 'a key body appears in the logs');
      assert.ok(!log.includes(hash), "a key's SHA-256 appears in the logs");
    }
  });
});

describe('HTTPS', () => {
  let directory: string;
  let cert: string;
  let certFile: string;
  let keyFile: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'modelport-tls-'));
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
      ],
    });
    cert = pems.cert;
    certFile = join(directory, 'cert.pem');
    keyFile = join(directory, 'key.pem');
    writeFileSync(certFile, pems.cert);
    writeFileSync(keyFile, pems.private);
  });
  after(() => {
    rmSync(directory, { recursive: true, force: true });
  });

  describe('TLS terminated by the gateway (TLS_CERT_FILE, TLS_KEY_FILE)', () => {
    let gateway: Gateway;
    let agent: Agent;
    before(async () => {
      gateway = await startGateway({ env: { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile, MODELPORT_REQUIRE_HTTPS: 'true' } });
      agent = new Agent({ connect: { ca: cert } });
    });
    after(async () => {
      await agent.close();
      await gateway.close();
    });

    it('answers over https to a client that trusts the certificate, with HTTPS required', async () => {
      assert.match(gateway.origin, /^https:\/\//);
      const response = await undiciFetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: gateway.router.id, messages: hello }),
      });
      const body = (await response.json()) as { object: string; _meta: { modelUsed: string } };
      assert.equal(response.status, 200);
      assert.equal(body.object, 'chat.completion');
      assert.equal(body._meta.modelUsed, 'sim:small');
    });

    it('is refused by a client that does not trust the certificate', async () => {
      await assert.rejects(undiciFetch(`${gateway.origin}/healthz`));
    });
  });

  describe('MODELPORT_REQUIRE_HTTPS=true behind a proxy', () => {
    const requireHttps = { status: 403, type: 'invalid_request_error', code: 'https_required', messageIncludes: ['HTTPS'] } as const;

    it('refuses plain HTTP, with or without a key; healthz still answers', async () => {
      const gateway = await startGateway({ env: { MODELPORT_REQUIRE_HTTPS: 'true' } });
      try {
        assertError(await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }), requireHttps);
        assertError(await chat(gateway, undefined, { model: gateway.router.id, messages: hello }), requireHttps);
        // Without trusted proxies the header is never believed, whoever sends it.
        assertError(await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }, { 'x-forwarded-proto': 'https' }), requireHttps);
        assertError(await readFetchResponse(await fetch(`${gateway.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${gateway.apiKey}` } })), requireHttps);
        assert.equal((await fetch(`${gateway.origin}/healthz`)).status, 200);
      } finally {
        await gateway.close();
      }
    });

    it('believes X-Forwarded-Proto: https from a trusted proxy', async () => {
      const gateway = await startGateway({ env: { MODELPORT_REQUIRE_HTTPS: 'true', MODELPORT_TRUSTED_PROXIES: '127.0.0.1' } });
      try {
        const response = await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }, { 'x-forwarded-proto': 'https' });
        assert.equal(response.status, 200, response.text);
        // The proxy's own hop is the last entry: a client-supplied "https" in front of it does not count.
        assertError(await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }, { 'x-forwarded-proto': 'https, http' }), requireHttps);
        assertError(await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }, { 'x-forwarded-proto': 'http' }), requireHttps);
        assertError(await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }), requireHttps);
      } finally {
        await gateway.close();
      }
    });

    it('ignores X-Forwarded-Proto from an address that is not a trusted proxy', async () => {
      const gateway = await startGateway({ env: { MODELPORT_REQUIRE_HTTPS: 'true', MODELPORT_TRUSTED_PROXIES: '10.9.9.9' } });
      try {
        assertError(await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }, { 'x-forwarded-proto': 'https' }), requireHttps);
        assertError(
          await chat(gateway, gateway.apiKey, { model: gateway.router.id, messages: hello }, { 'x-forwarded-proto': 'https', 'x-forwarded-for': '10.9.9.9' }),
          requireHttps,
        );
      } finally {
        await gateway.close();
      }
    });
  });
});
