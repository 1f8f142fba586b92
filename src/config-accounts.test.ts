import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './config.js';

const SMTP = { MODELPORT_SMTP_URL: 'smtps://user:secret@smtp.example.com:465', MODELPORT_MAIL_FROM: 'ModelPort <no-reply@example.com>', MODELPORT_PUBLIC_URL: 'https://dash.example.com/' };

describe('config: accounts (MODELPORT_SIGNUP, mail, quotas)', () => {
  it('closes sign-up without a mail server, opens it with one, and lets the operator choose either way', () => {
    assert.equal(loadConfig({}).accounts.signUp, 'closed');
    assert.equal(loadConfig({}).accounts.smtp, undefined);
    assert.equal(loadConfig(SMTP).accounts.signUp, 'open');
    assert.deepEqual(loadConfig(SMTP).accounts.smtp, { url: SMTP.MODELPORT_SMTP_URL, from: SMTP.MODELPORT_MAIL_FROM });
    assert.equal(loadConfig(SMTP).accounts.publicUrl, 'https://dash.example.com');
    assert.equal(loadConfig({ ...SMTP, MODELPORT_SIGNUP: 'closed' }).accounts.signUp, 'closed');
    assert.equal(loadConfig({ MODELPORT_SIGNUP: 'open' }).accounts.signUp, 'open');
    assert.throws(() => loadConfig({ MODELPORT_SIGNUP: 'yes' }), ConfigError);
  });

  it('needs a sender and a public address with SMTP, and never echoes the SMTP URL', () => {
    assert.throws(() => loadConfig({ MODELPORT_SMTP_URL: SMTP.MODELPORT_SMTP_URL, MODELPORT_PUBLIC_URL: SMTP.MODELPORT_PUBLIC_URL }), /MODELPORT_MAIL_FROM/);
    assert.throws(() => loadConfig({ MODELPORT_SMTP_URL: SMTP.MODELPORT_SMTP_URL, MODELPORT_MAIL_FROM: SMTP.MODELPORT_MAIL_FROM }), /MODELPORT_PUBLIC_URL/);
    assert.throws(() => loadConfig({ ...SMTP, MODELPORT_SMTP_URL: 'http://user:secret@mail' }), (error: Error) => error instanceof ConfigError && !error.message.includes('secret'));
    assert.throws(() => loadConfig({ MODELPORT_PUBLIC_URL: 'dash.example.com' }), ConfigError);
  });

  it('has quotas with defaults, each configurable', () => {
    const { accounts } = loadConfig({});
    assert.deepEqual([accounts.maxOrganizationsPerAccount, accounts.maxRoutersPerWorkspace, accounts.maxKeysPerWorkspace], [10, 100, 100]);
    const set = loadConfig({ MODELPORT_MAX_ORGANIZATIONS_PER_ACCOUNT: '0', MODELPORT_MAX_ROUTERS_PER_WORKSPACE: '5', MODELPORT_MAX_KEYS_PER_WORKSPACE: '7' }).accounts;
    assert.deepEqual([set.maxOrganizationsPerAccount, set.maxRoutersPerWorkspace, set.maxKeysPerWorkspace], [0, 5, 7]);
    assert.throws(() => loadConfig({ MODELPORT_MAX_KEYS_PER_WORKSPACE: '-1' }), ConfigError);
  });
});
