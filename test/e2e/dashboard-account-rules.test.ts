import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../support/databases.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const PASSWORD = 'a long enough password';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`dashboard account rules: verification, passwords, emails, quotas, enumeration (${dialect})`, async () => {
    const database: TestDatabase | undefined = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
    let gateway: Gateway;
    const client = () => new DashboardClient(gateway.origin);
    const pendingRows = (email: string) => gateway.app.storage.db.selectFrom('signup_verifications').selectAll().where('email', '=', email).execute();
    const userRow = (email: string) => gateway.app.storage.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();

    before(async () => {
      if (database === undefined) return;
      gateway = await startGateway({
        env: {
          DATABASE_URL: database.url,
          MODELPORT_PUBLIC_URL: 'https://dashboard.example.com/',
          MODELPORT_MAX_ORGANIZATIONS_PER_ACCOUNT: '2',
          MODELPORT_MAX_ROUTERS_PER_WORKSPACE: '2',
          MODELPORT_MAX_KEYS_PER_WORKSPACE: '2',
        },
      });
    });
    after(async () => {
      if (database === undefined) return;
      await gateway.close();
      await database.drop();
    });

    it('a sign-up is no account until its mailed link comes back with the same password; signing in before is refused', { skip: database === undefined }, async () => {
      const email = `colleague-${dialect}@example.com`;
      const squatter = client();
      const requested = await squatter.requestSignUp(email, PASSWORD);
      assert.equal(requested.status, 202);
      assert.deepEqual(requested.body, { verification: 'sent' });
      assert.equal(requested.headers.get('set-cookie'), null);
      assert.equal((await squatter.get('/api/dashboard/session')).status, 401);
      const early = await client().signIn(email, PASSWORD);
      assert.equal(early.status, 401);
      assert.equal(early.body.error.code, 'invalid_credentials');
      assert.equal(await userRow(email), undefined);

      const mail = gateway.outbox.messages.filter((message) => message.to === email);
      assert.equal(mail.length, 1);
      assert.match(mail[0]?.link ?? '', /^https:\/\/dashboard\.example\.com\/signup\/verify#token=[\w-]{43}$/);
      assert.ok(mail[0]?.text.includes(mail[0].link));
      const token = gateway.outbox.latestToken(email) ?? '';
      const [row] = await pendingRows(email);
      assert.equal(row?.token_hash, sha256(token), 'only the SHA-256 of the token is stored');
      assert.ok(!JSON.stringify(row).includes(token));

      // The mailbox's owner, following a link someone else asked for, cannot confirm it without that someone's password.
      const hijack = await client().verify(token, 'the owner does not know it');
      assert.equal(hijack.status, 401);
      assert.equal(hijack.body.error.code, 'invalid_credentials');
      assert.equal(await userRow(email), undefined);

      const person = client();
      const confirmed = await person.verify(token, PASSWORD);
      assert.equal(confirmed.status, 201);
      assert.equal(confirmed.body.user.email, email);
      assert.match(confirmed.headers.get('set-cookie') ?? '', /^mp_session=/);
      assert.equal((await person.get('/api/dashboard/session')).status, 200);
      assert.equal((await client().signIn(email, PASSWORD)).status, 200);
      const again = await client().verify(token, PASSWORD);
      assert.equal(again.status, 400);
      assert.equal(again.body.error.code, 'verification_invalid');
      assert.deepEqual(await pendingRows(email), []);
    });

    it('an expired or made-up link is refused', { skip: database === undefined }, async () => {
      const email = `late-${dialect}@example.com`;
      assert.equal((await client().requestSignUp(email)).status, 202);
      const token = gateway.outbox.latestToken(email) ?? '';
      await gateway.app.storage.db.updateTable('signup_verifications').set({ expires_at: Date.now() - 1 }).where('email', '=', email).execute();
      const expired = await client().verify(token);
      assert.equal(expired.status, 400);
      assert.equal(expired.body.error.code, 'verification_invalid');
      assert.equal(expired.body.error.param, 'token');
      assert.equal((await client().verify('A'.repeat(43))).body.error.code, 'verification_invalid');
      assert.equal((await client().verify('not a token')).body.error.code, 'verification_invalid');
      assert.equal((await client().signIn(email)).status, 401);
    });

    it('an organisation cannot add an address that has not been confirmed', { skip: database === undefined }, async () => {
      const owner = client();
      assert.equal((await owner.signUp(`org-owner-${dialect}@example.com`)).status, 201);
      const org = await owner.post('/api/dashboard/organizations', { name: 'Verified only' });
      assert.equal(org.status, 201);
      const carol = `carol-${dialect}@example.com`;
      assert.equal((await client().requestSignUp(carol)).status, 202);
      const refused = await owner.post(`/api/dashboard/workspaces/${org.body.id}/members`, { email: carol, role: 'admin' });
      assert.equal(refused.status, 404);
      assert.equal(refused.body.error.code, 'user_not_found');
      assert.equal((await client().verify(gateway.outbox.latestToken(carol) ?? '')).status, 201);
      const added = await owner.post(`/api/dashboard/workspaces/${org.body.id}/members`, { email: carol, role: 'admin' });
      assert.equal(added.status, 201);
    });

    it('refuses the reported weak passwords, naming the rule, and mails nothing', { skip: database === undefined }, async () => {
      const email = `weak-${dialect}@example.com`;
      const sent = gateway.outbox.messages.length;
      for (const [password, rule] of [
        ['aaaaaaaaaa', /repeats one character/],
        [' '.repeat(10), /repeats one character/],
        [email, /contains your email address/],
      ] as const) {
        const refused = await client().requestSignUp(email, password);
        assert.equal(refused.status, 400, JSON.stringify(password));
        assert.equal(refused.body.error.param, 'password');
        assert.equal(refused.body.error.code, 'password_too_weak');
        assert.match(refused.body.error.message, rule);
      }
      assert.equal(gateway.outbox.messages.length, sent);
      assert.deepEqual(await pendingRows(email), []);
    });

    it('refuses emails with control characters or markup, and mails nothing', { skip: database === undefined }, async () => {
      const sent = gateway.outbox.messages.length;
      for (const email of [`nul\u0000-${dialect}@example.com`, `bell-${dialect}@exa\u0007mple.com`, '<script>alert(1)</script>@example.com', '"><img src=x onerror=alert(1)>@example.com', `mark-${dialect}@<b>example</b>.com`]) {
        const refused = await client().requestSignUp(email);
        assert.equal(refused.status, 400, JSON.stringify(email));
        assert.equal(refused.body.error.param, 'email');
      }
      assert.equal(gateway.outbox.messages.length, sent);
      const stored = await gateway.app.storage.db.selectFrom('users').select('email').execute();
      assert.ok(stored.every((row) => !/[\u0000-\u001f<>"]/.test(row.email)));
    });

    it('answers a taken address exactly as a free one; only the link tells its mailbox the account exists', { skip: database === undefined }, async (t) => {
      const timed = async (email: string) => {
        const started = performance.now();
        const response = await client().requestSignUp(email);
        return { response, ms: performance.now() - started };
      };
      const taken = await timed(gateway.ownerEmail);
      const free = await timed(`fresh-${dialect}@example.com`);
      assert.equal(taken.response.status, free.response.status);
      assert.deepEqual(taken.response.body, free.response.body);
      assert.equal(taken.response.headers.get('set-cookie'), free.response.headers.get('set-cookie'));
      // Both did the same work: a hash, a stored request and a mail each.
      assert.equal((await pendingRows(gateway.ownerEmail)).length, 1);
      assert.equal((await pendingRows(`fresh-${dialect}@example.com`)).length, 1);
      t.diagnostic(`sign-up answered in ${taken.ms.toFixed(0)} ms for a taken address, ${free.ms.toFixed(0)} ms for a free one (not asserted)`);
      const fromMailbox = await client().verify(gateway.outbox.latestToken(gateway.ownerEmail) ?? '');
      assert.equal(fromMailbox.status, 409);
      assert.equal(fromMailbox.body.error.code, 'email_taken');
    });

    it('mails one address at most three times an hour, with the same answer', { skip: database === undefined }, async () => {
      const email = `flooded-${dialect}@example.com`;
      for (let attempt = 0; attempt < 5; attempt += 1) assert.equal((await client().requestSignUp(email)).status, 202);
      assert.equal(gateway.outbox.messages.filter((message) => message.to === email).length, 3);
    });

    it('stops at the quotas on organisations, routers and keys with 409 quota_exceeded, parallel requests included', { skip: database === undefined }, async () => {
      const user = client();
      assert.equal((await user.signUp(`quota-${dialect}@example.com`)).status, 201);
      for (let index = 0; index < 2; index += 1) assert.equal((await user.post('/api/dashboard/organizations', { name: `org ${index}` })).status, 201);
      const thirdOrg = await user.post('/api/dashboard/organizations', { name: 'one too many' });
      assert.equal(thirdOrg.status, 409);
      assert.equal(thirdOrg.body.error.code, 'quota_exceeded');
      assert.equal(thirdOrg.body.error.limit, 2);

      const router = { name: 'r', models: ['sim:small'], strategy: 'cost_optimized' };
      const burst = await Promise.all(Array.from({ length: 5 }, () => user.post(`${user.ws}/routers`, router)));
      assert.deepEqual(burst.map((response) => response.status).sort(), [201, 201, 409, 409, 409]);
      assert.ok(burst.filter((response) => response.status === 409).every((response) => response.body.error.code === 'quota_exceeded'));
      assert.equal((await user.get(`${user.ws}/routers`)).body.routers.length, 2);
      const [first] = burst.filter((response) => response.status === 201);
      assert.equal((await user.delete(`${user.ws}/routers/${first?.body.id}`)).status, 204);
      assert.equal((await user.post(`${user.ws}/routers`, router)).status, 201);

      const keys = await Promise.all(Array.from({ length: 4 }, (_, index) => user.post(`${user.ws}/keys`, { name: `k${index}` })));
      assert.deepEqual(keys.map((response) => response.status).sort(), [201, 201, 409, 409]);
      const live = keys.filter((response) => response.status === 201);
      // A rotation replaces a key: allowed at the quota.
      assert.equal((await user.post(`${user.ws}/keys/${live[0]?.body.id}/rotate`, { graceMinutes: 0 })).status, 201);
      assert.equal((await user.post(`${user.ws}/keys`, { name: 'over' })).body.error.code, 'quota_exceeded');
      // A revoked key no longer counts.
      assert.equal((await user.post(`${user.ws}/keys/${live[1]?.body.id}/revoke`)).status, 200);
      assert.equal((await user.post(`${user.ws}/keys`, { name: 'in again' })).status, 201);
    });
  });
}

describe('dashboard sign-up closed (the default without a mail server)', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ env: { MODELPORT_SIGNUP: '' } });
  });
  after(async () => {
    await gateway.close();
  });

  it('says so, refuses sign-ups with 403 signup_closed, and mails nothing; accounts the operator made sign in', async () => {
    const client = new DashboardClient(gateway.origin);
    assert.deepEqual((await client.get('/api/dashboard/auth/signup')).body, { open: false, firstStart: false });
    const refused = await client.requestSignUp('someone@example.com');
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'signup_closed');
    assert.deepEqual(gateway.outbox.messages, []);
    assert.equal((await client.verify('A'.repeat(43))).body.error.code, 'signup_closed');
    assert.equal((await client.signIn(gateway.ownerEmail, 'correct horse battery')).status, 200);
  });
});
