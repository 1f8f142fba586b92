import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { issueSignInLink, SIGN_IN_LINK_TTL_MS } from '../../src/dashboard/accounts.js';
import { openStorage } from '../../src/storage/database.js';
import { createSignupVerificationsRepository } from '../../src/storage/signup-verifications-repository.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

/** The line of the first start's banner that starts with `label :`. */
function bannerField(output: string, label: string): string {
  const match = new RegExp(`^\\s+${label}\\s*: (\\S+)`, 'm').exec(output);
  assert.ok(match?.[1] !== undefined, `no "${label}" in the banner:\n${output}`);
  return match[1];
}

const cookieOf = (response: Response): string | undefined => /mp_session=[^;]+/.exec(response.headers.get('set-cookie') ?? '')?.[0];

describe('the first start: from the printed banner to a signed-in dashboard', () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelport-first-start-'));
  const env = { DATABASE_URL: join(directory, 'first.db'), MODELPORT_BOOTSTRAP: 'true', LOG_LEVEL: 'warn', MODELPORT_SIGNUP: 'closed' };
  let gateway: GatewayProcess;
  let origin = '';
  let output = '';

  before(async () => {
    // LOG_LEVEL=warn would hide the "listening at" line the harness waits for: start at info.
    gateway = await startGatewayProcess({ ...env, LOG_LEVEL: 'info' });
    origin = `http://127.0.0.1:${gateway.port}`;
    // The banner is written before the harness sees the listening line; give stdout a moment anyway.
    for (let wait = 0; wait < 50 && !gateway.output().includes('====\n'); wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    output = gateway.output();
  });

  after(async () => {
    await gateway?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('prints the dashboard URL, a one-time sign-in link and the password, with the real port', () => {
    assert.match(output, /ModelPort first start/);
    assert.equal(bannerField(output, 'dashboard'), `${origin}/`);
    assert.match(bannerField(output, 'sign in'), new RegExp(`^${origin}/api/dashboard/auth/link\\?token=[A-Za-z0-9_-]{43}$`));
    assert.equal(bannerField(output, 'owner email'), 'admin@modelport.local');
    assert.match(bannerField(output, 'password'), /^[0-9A-Za-z]{20}$/);
  });

  it('the sign-in page is told this is a first start', async () => {
    const status = (await (await fetch(`${origin}/api/dashboard/auth/signup`)).json()) as { open: boolean; firstStart: boolean };
    assert.deepEqual(status, { open: false, firstStart: true });
  });

  it('the link signs the owner in once and opens the dashboard; used again, it lands on the sign-in page', async () => {
    const link = bannerField(output, 'sign in');
    const first = await fetch(link, { redirect: 'manual' });
    assert.equal(first.status, 303);
    assert.equal(first.headers.get('location'), '/');
    const cookie = cookieOf(first);
    assert.ok(cookie !== undefined, 'the link sets the session cookie');
    assert.match(first.headers.get('set-cookie') ?? '', /HttpOnly/i);
    const session = await fetch(`${origin}/api/dashboard/session`, { headers: { cookie } });
    assert.equal(session.status, 200);
    assert.equal(((await session.json()) as { user: { email: string } }).user.email, 'admin@modelport.local');

    const again = await fetch(link, { redirect: 'manual' });
    assert.equal(again.status, 303);
    assert.equal(again.headers.get('location'), '/signin?link=invalid');
    assert.equal(cookieOf(again), undefined);
    const garbage = await fetch(`${origin}/api/dashboard/auth/link?token=nope`, { redirect: 'manual' });
    assert.equal(garbage.headers.get('location'), '/signin?link=invalid');
  });

  it('an expired link is refused, and a sign-up confirmation cannot redeem a link', async () => {
    const storage = openStorage(env.DATABASE_URL);
    const verifications = createSignupVerificationsRepository(storage.db);
    const expired = await issueSignInLink(verifications, 'admin@modelport.local', Date.now() - SIGN_IN_LINK_TTL_MS - 1000);
    const fresh = await issueSignInLink(verifications, 'admin@modelport.local', Date.now());
    await storage.close();
    const refused = await fetch(`${origin}/api/dashboard/auth/link?token=${expired}`, { redirect: 'manual' });
    assert.equal(refused.headers.get('location'), '/signin?link=invalid');
    assert.equal(cookieOf(refused), undefined);
    // With sign-up closed, the confirmation route refuses first; the link still works afterwards.
    const verify = await fetch(`${origin}/api/dashboard/auth/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ token: fresh, password: 'sign-in-link' }),
    });
    assert.ok(verify.status >= 400);
    const used = await fetch(`${origin}/api/dashboard/auth/link?token=${fresh}`, { redirect: 'manual' });
    assert.equal(used.headers.get('location'), '/');
  });

  it('the printed password signs in too', async () => {
    const signIn = await fetch(`${origin}/api/dashboard/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email: 'admin@modelport.local', password: bannerField(output, 'password') }),
    });
    assert.equal(signIn.status, 200);
  });

  it('a later start prints one line with the dashboard URL and no banner', async () => {
    await gateway.stop();
    gateway = await startGatewayProcess({ ...env, LOG_LEVEL: 'info' });
    for (let wait = 0; wait < 50 && !gateway.output().includes('ModelPort dashboard:'); wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    const later = gateway.output();
    assert.match(later, new RegExp(`^ModelPort dashboard: http://127\\.0\\.0\\.1:${gateway.port}/$`, 'm'));
    assert.doesNotMatch(later, /first start|password/);
  });
});
