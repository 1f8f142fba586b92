import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_WEB_ROOT } from '../../src/http/dashboard/static-site.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { DashboardClient } from '../support/dashboard-client.js';

describe('dashboard accounts: sign-up, sign-in, sign-out, cookies, CSRF, throttling', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(async () => {
    await gateway.close();
  });

  it('signs up with a session cookie that is HttpOnly, SameSite=Lax, Path=/ and not Secure over HTTP', async () => {
    const client = new DashboardClient(gateway.origin);
    const response = await client.signUp('Ada@Example.com');
    assert.equal(response.status, 201);
    assert.equal(response.body.user.email, 'ada@example.com');
    assert.match(response.body.csrfToken, /^[\w-]{40,}$/);
    const cookie = response.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^mp_session=[\w-]{40,};/);
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Lax/);
    assert.match(cookie, /Path=\//);
    assert.doesNotMatch(cookie, /Secure/);
    const session = await client.get('/api/dashboard/session');
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.workspaces, [{ id: response.body.user.id, name: 'Personal', kind: 'personal', role: 'owner' }]);
    assert.equal(session.body.csrfToken, response.body.csrfToken);
  });

  it('stores only the SHA-256 of the session cookie', async () => {
    const client = new DashboardClient(gateway.origin);
    await client.signUp('hash@example.com');
    const value = client.cookie?.split('=')[1] ?? '';
    const rows = await gateway.app.storage.db.selectFrom('sessions').select('id_hash').execute();
    assert.ok(rows.length > 0);
    assert.ok(rows.every((row) => row.id_hash !== value && /^[0-9a-f]{64}$/.test(row.id_hash)));
  });

  it('refuses bad sign-ups: short password, bad email, taken email', async () => {
    const client = new DashboardClient(gateway.origin);
    const short = await client.signUp('short@example.com', 'tooshort');
    assert.equal(short.status, 400);
    assert.equal(short.body.error.param, 'password');
    const email = await client.signUp('not-an-email');
    assert.equal(email.body.error.param, 'email');
    await client.signUp('taken@example.com');
    const taken = await new DashboardClient(gateway.origin).signUp('TAKEN@example.com');
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.code, 'email_taken');
  });

  it('signs in, and refuses wrong passwords and unknown emails with the same 401', async () => {
    await new DashboardClient(gateway.origin).signUp('bob@example.com');
    const client = new DashboardClient(gateway.origin);
    const wrong = await client.signIn('bob@example.com', 'wrong password!!');
    const unknown = await client.signIn('nobody@example.com', 'wrong password!!');
    assert.equal(wrong.status, 401);
    assert.deepEqual(wrong.body, unknown.body);
    assert.equal(wrong.body.error.code, 'invalid_credentials');
    const ok = await client.signIn('bob@example.com');
    assert.equal(ok.status, 200);
    assert.equal((await client.get('/api/dashboard/session')).status, 200);
  });

  it('requires a session, and ends it on sign-out (the old cookie no longer works)', async () => {
    const anonymous = new DashboardClient(gateway.origin);
    const refused = await anonymous.get('/api/dashboard/session');
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'session_required');
    const client = new DashboardClient(gateway.origin);
    await client.signUp('leaver@example.com');
    const oldCookie = client.cookie;
    const out = await client.post('/api/dashboard/auth/signout');
    assert.equal(out.status, 204);
    assert.match(out.headers.get('set-cookie') ?? '', /mp_session=;/);
    const replay = await client.request('GET', '/api/dashboard/session', undefined, { cookie: oldCookie ?? '' });
    assert.equal(replay.status, 401);
  });

  it('refuses state-changing calls without the CSRF token, with a wrong one, or from a foreign Origin', async () => {
    const client = new DashboardClient(gateway.origin);
    await client.signUp('csrf@example.com');
    const body = { name: 'r', models: ['sim:small'], strategy: 'cost_optimized' };
    const missing = await client.request('POST', `${client.ws}/routers`, body, { 'x-csrf-token': '' });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.error.code, 'csrf_token_invalid');
    const wrong = await client.request('POST', `${client.ws}/routers`, body, { 'x-csrf-token': 'x'.repeat(43) });
    assert.equal(wrong.body.error.code, 'csrf_token_invalid');
    const foreign = await client.request('POST', `${client.ws}/routers`, body, { origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    const foreignSignIn = await new DashboardClient(gateway.origin).request('POST', '/api/dashboard/auth/signin', { email: 'csrf@example.com', password: 'a long enough password' }, { origin: 'https://evil.example' });
    assert.equal(foreignSignIn.status, 403);
    const sameOrigin = await client.request('POST', `${client.ws}/routers`, body, { origin: gateway.origin });
    assert.equal(sameOrigin.status, 201);
    assert.equal((await client.get(`${client.ws}/routers`)).body.routers.length, 1);
  });

  it('throttles sign-in per email and IP after 5 failures, with Retry-After, even for the right password', async () => {
    await new DashboardClient(gateway.origin).signUp('target@example.com');
    const client = new DashboardClient(gateway.origin);
    for (let attempt = 0; attempt < 5; attempt += 1) assert.equal((await client.signIn('target@example.com', 'guess number ' + attempt)).status, 401);
    const blocked = await client.signIn('target@example.com');
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.error.code, 'too_many_attempts');
    assert.ok(Number(blocked.headers.get('retry-after')) > 0);
    // Another account from the same address is not blocked by it.
    await new DashboardClient(gateway.origin).signUp('other@example.com');
    assert.equal((await client.signIn('other@example.com')).status, 200);
  });

  it('answers JSON 404s under /api and the web app elsewhere', async () => {
    const api = await fetch(`${gateway.origin}/api/dashboard/nope`);
    assert.equal(api.status, 404);
    assert.equal(((await api.json()) as { error: { code: string } }).error.code, 'endpoint_not_found');
    const page = await fetch(`${gateway.origin}/routers/rt_123`);
    assert.equal((await fetch(`${gateway.origin}/nope`)).status, 404);
    // A client-side route gets index.html once the web app is built (npm run build), a JSON 404 before.
    const built = existsSync(join(DEFAULT_WEB_ROOT, 'index.html'));
    assert.equal(page.status, built ? 200 : 404);
    if (built) assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  });
});

describe('dashboard cookie over HTTPS (behind a trusted proxy)', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_TRUSTED_PROXIES: '127.0.0.1' } });
  });
  after(async () => {
    await gateway.close();
  });

  it('marks the session cookie Secure', async () => {
    const client = new DashboardClient(gateway.origin, { 'x-forwarded-proto': 'https' });
    const response = await client.signUp('secure@example.com');
    assert.equal(response.status, 201);
    assert.match(response.headers.get('set-cookie') ?? '', /; Secure/);
  });
});
