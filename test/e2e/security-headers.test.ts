import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { generate } from 'selfsigned';
import { Agent, fetch as undiciFetch } from 'undici';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));
const HSTS = 'max-age=31536000; includeSubDomains';

/** The CSP's directives by name. */
function directives(policy: string | null): Map<string, string[]> {
  assert.ok(policy !== null, 'no Content-Security-Policy');
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0] !== '')
      .map(([name, ...values]) => [name ?? '', values]),
  );
}

/** What every dashboard answer (page, asset or API) carries. */
function assertCommonHeaders(headers: Headers, what: string): void {
  assert.equal(headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
  assert.equal(headers.get('x-frame-options'), 'DENY', `${what}: X-Frame-Options`);
  assert.equal(headers.get('referrer-policy'), 'same-origin', `${what}: Referrer-Policy`);
  assert.deepEqual(directives(headers.get('content-security-policy')).get('frame-ancestors'), ["'none'"], `${what}: frame-ancestors`);
}

/** The site's CSP: only what the built app loads, its style nonce, and the nonce index.html hands the app. */
function assertSitePolicy(headers: Headers, html: string): string {
  const policy = directives(headers.get('content-security-policy'));
  assert.deepEqual(policy.get('default-src'), ["'none'"]);
  assert.deepEqual(policy.get('script-src')?.filter((source) => !source.startsWith("'nonce-")), ["'self'"]);
  assert.deepEqual(policy.get('connect-src'), ["'self'"]);
  assert.deepEqual(policy.get('base-uri'), ["'none'"]);
  assert.ok(!headers.get('content-security-policy')?.includes('unsafe-inline'), 'no unsafe-inline');
  assert.ok(!headers.get('content-security-policy')?.includes('unsafe-eval'), 'no unsafe-eval');
  const styleNonce = policy.get('style-src')?.find((source) => source.startsWith("'nonce-"));
  assert.ok(styleNonce !== undefined, 'style-src has a nonce');
  const nonce = styleNonce.slice("'nonce-".length, -1);
  assert.match(html, new RegExp(`<meta property="csp-nonce" nonce="${nonce}" />`), 'index.html hands the app the style nonce');
  return nonce;
}

describe('security headers on the dashboard and its API (helmet)', { skip: existsSync(join(WEB_DIST, 'index.html')) ? false : 'web/dist is not built (npm run build)' }, () => {
  let gateway: Gateway;
  let proxied: Gateway;
  before(async () => {
    gateway = await startGateway();
    proxied = await startGateway({ env: { MODELPORT_TRUSTED_PROXIES: '127.0.0.1' } });
  });
  after(async () => {
    await gateway.close();
    await proxied.close();
  });

  it('the pages (/, an app route, /index.html) carry a CSP the app satisfies, with a fresh style nonce each time', async () => {
    const nonces = new Set<string>();
    for (const path of ['/', '/signin', '/routers/rt_x', '/index.html', '/']) {
      const response = await fetch(`${gateway.origin}${path}`);
      assert.equal(response.status, 200, path);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      const html = await response.text();
      assert.match(html, /<div id="root">/);
      assertCommonHeaders(response.headers, path);
      nonces.add(assertSitePolicy(response.headers, html));
      assert.equal(response.headers.get('strict-transport-security'), null, `${path}: no HSTS over plain HTTP`);
    }
    assert.equal(nonces.size, 5, 'each answer has its own nonce');
  });

  it("the app's assets and the site's JSON 404 carry them too", async () => {
    const script = readdirSync(join(WEB_DIST, 'assets')).find((name) => name.endsWith('.js'));
    assert.ok(script !== undefined);
    const asset = await fetch(`${gateway.origin}/assets/${script}`);
    assert.equal(asset.status, 200);
    await asset.arrayBuffer();
    assertCommonHeaders(asset.headers, 'asset');
    const missing = await fetch(`${gateway.origin}/no-such-page`);
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
    assertCommonHeaders(missing.headers, 'site 404');
  });

  it('/api/dashboard answers, refused (401, 403) and answered (200), carry nosniff, Referrer-Policy and a CSP that loads nothing', async () => {
    const client = new DashboardClient(gateway.origin);
    const refused = await client.get('/api/dashboard/session');
    assert.equal(refused.status, 401);
    const crossSite = await client.request('POST', '/api/dashboard/auth/signin', { email: gateway.ownerEmail, password: 'x' }, { origin: 'https://evil.example' });
    assert.equal(crossSite.status, 403);
    const signedIn = await client.signIn(gateway.ownerEmail, 'correct horse battery');
    assert.equal(signedIn.status, 200);
    const session = await client.get('/api/dashboard/session');
    assert.equal(session.status, 200);
    for (const [what, response] of [['401', refused], ['403', crossSite], ['sign-in', signedIn], ['session', session]] as const) {
      assertCommonHeaders(response.headers, what);
      assert.deepEqual(directives(response.headers.get('content-security-policy')).get('default-src'), ["'none'"], what);
      assert.equal(response.headers.get('strict-transport-security'), null, `${what}: no HSTS over plain HTTP`);
    }
  });

  it('HSTS only on answers that came over HTTPS through a trusted proxy (X-Forwarded-Proto), never on plain HTTP', async () => {
    for (const path of ['/', '/api/dashboard/session']) {
      const overHttps = await fetch(`${proxied.origin}${path}`, { headers: { 'x-forwarded-proto': 'https' } });
      await overHttps.arrayBuffer();
      assert.equal(overHttps.headers.get('strict-transport-security'), HSTS, path);
      const overHttp = await fetch(`${proxied.origin}${path}`, { headers: { 'x-forwarded-proto': 'http' } });
      await overHttp.arrayBuffer();
      assert.equal(overHttp.headers.get('strict-transport-security'), null, path);
    }
    // A client the gateway does not trust cannot claim HTTPS.
    const claimed = await fetch(`${gateway.origin}/`, { headers: { 'x-forwarded-proto': 'https' } });
    await claimed.arrayBuffer();
    assert.equal(claimed.headers.get('strict-transport-security'), null);
  });

  it('HSTS on every dashboard answer when the gateway terminates TLS itself (TLS_CERT_FILE, TLS_KEY_FILE)', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'modelport-hsts-'));
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    writeFileSync(join(directory, 'cert.pem'), pems.cert);
    writeFileSync(join(directory, 'key.pem'), pems.private);
    const tls = await startGateway({ env: { TLS_CERT_FILE: join(directory, 'cert.pem'), TLS_KEY_FILE: join(directory, 'key.pem') } });
    const agent = new Agent({ connect: { ca: pems.cert } });
    try {
      for (const path of ['/', '/api/dashboard/session']) {
        const response = await undiciFetch(`${tls.origin}${path}`, { dispatcher: agent });
        await response.arrayBuffer();
        assert.equal(response.headers.get('strict-transport-security'), HSTS, path);
        assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      }
    } finally {
      await agent.close();
      await tls.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
