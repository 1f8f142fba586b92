import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createCspWatch } from '../support/csp-violations.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_DIST = fileURLToPath(new URL('../../web/dist/index.html', import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

/** Waits for `check` to hold, re-running `step` (a refresh) between looks; fails with `what` after ~10 s. */
async function eventually(what: string, check: () => Promise<boolean>, step: () => Promise<void> = async () => undefined): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    if (await check()) return;
    await step();
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail(`timed out waiting for ${what}`);
}

// Page scripts as strings: the test's tsconfig has no DOM types.
const readClipboard = async (target: Page): Promise<string> => String(await target.evaluate('navigator.clipboard.readText()'));

const statusOf = async (call: Promise<unknown>): Promise<number> => {
  try {
    await call;
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined) return error.status;
    throw error;
  }
};

describe('dashboard in headless Chromium: sign up, router, key, SDK call, usage, revoke', { skip }, () => {
  let gateway: Gateway;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];
  const csp = createCspWatch();
  const shot = (name: string, target: Page = page) => target.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

  before(async () => {
    assert.ok(existsSync(WEB_DIST), 'web/dist is not built: run "npm run build" (npm test builds it first)');
    mkdirSync(SCREENSHOTS, { recursive: true });
    gateway = await startGateway();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1366, height: 860 }, reducedMotion: 'reduce', colorScheme: 'light' });
    await csp.watch(context);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.origin });
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  let routerId = '';
  let apiKey = '';

  it('signs up and lands on an empty routers page', async () => {
    await page.goto(`${gateway.origin}/`);
    await page.waitForURL('**/signin');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel(/^Email/).fill('ada@example.com');
    await page.getByLabel(/^Password/).fill('correct horse battery staple');
    await shot('signup');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await shot('signup-check-mail');
    // The mailed link, opened on this server (the harness's public address is a placeholder).
    const link = gateway.outbox.latestLink('ada@example.com');
    assert.ok(link !== undefined, 'a confirmation link was mailed');
    await page.goto(`${gateway.origin}${link.pathname}${link.hash}`);
    await page.getByLabel(/^Password/).fill('correct horse battery staple');
    await shot('signup-verify');
    await page.getByRole('button', { name: 'Confirm and create account' }).click();
    await page.getByRole('heading', { name: 'Address confirmed' }).waitFor();
    await shot('signup-verified');
    await page.getByRole('link', { name: 'Continue to your routers' }).click();
    await page.waitForURL('**/routers');
    await page.getByText('No routers yet').waitFor();
    await shot('routers-empty');
  });

  it('creates a router from the catalog and copies its ID', async () => {
    await page.getByRole('link', { name: 'New router' }).first().click();
    await page.getByLabel(/^Name/).fill('support-bot');
    await page.getByLabel('Search models').fill('sim:');
    await page.getByLabel('Use sim:small').check();
    await page.getByLabel('Use sim:medium').check();
    await page.getByRole('radio', { name: /cost_optimized/ }).check();
    await shot('router-new');
    await page.getByRole('button', { name: 'Create router' }).click();
    await page.waitForURL(/\/routers\/rt_/);
    const shown = (await page.getByTestId('router-id').textContent()) ?? '';
    assert.match(shown, /^rt_[A-Za-z0-9]+$/);
    await page.getByRole('button', { name: 'Copy router ID' }).click();
    routerId = await readClipboard(page);
    assert.equal(routerId, shown);
    assert.equal(new URL(page.url()).pathname, `/routers/${routerId}`);
    // The snippets carry the id and the gateway's base URL.
    await page.getByRole('tab', { name: 'OpenAI Node' }).click();
    const snippet = (await page.getByRole('tabpanel').textContent()) ?? '';
    assert.ok(snippet.includes(routerId) && snippet.includes(`${gateway.origin}/api/router/v1`), snippet);
    await page.getByRole('link', { name: 'Routers' }).click();
    await page.getByTestId('router-card').first().waitFor();
    await shot('routers');
    await page.goto(`${gateway.origin}/routers/${routerId}`);
    await page.getByText('Recent traffic').waitFor();
    await shot('router-detail');
  });

  it('generates a key shown once, in a dialog', async () => {
    await page.getByRole('link', { name: 'API Keys' }).click();
    await page.getByRole('button', { name: 'Generate New API Key' }).first().click();
    const form = page.getByRole('dialog', { name: 'Generate New API Key' });
    await form.getByLabel(/^Name/).fill('ci key');
    await shot('key-generate');
    await form.getByRole('button', { name: 'Generate key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    await dialog.getByText('you will not see this key again').waitFor();
    apiKey = (await dialog.getByTestId('new-key').textContent()) ?? '';
    assert.match(apiKey, /^mp_[A-Za-z0-9]{40}$/);
    await dialog.getByRole('button', { name: 'Copy API key' }).click();
    assert.equal(await readClipboard(page), apiKey);
    await shot('key-dialog');
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await dialog.waitFor({ state: 'detached' });
    const row = page.locator('[data-testid="key-row"][data-key-name="ci key"]');
    assert.equal(await row.getAttribute('data-status'), 'active');
    // The list never shows the key again, only its prefix.
    assert.equal(await page.getByText(apiKey).count(), 0);
    await shot('keys');
  });

  it('answers the openai SDK with that key and router, and the request shows in Usage', async () => {
    const client = new OpenAI({ apiKey, baseURL: `${gateway.origin}/api/router/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: routerId, messages: [{ role: 'user', content: 'Hello from the browser test' }] });
    assert.equal(completion.model, 'sim:small');
    await page.getByRole('link', { name: 'Usage' }).click();
    const rows = page.getByTestId('request-row');
    await eventually(
      'the request in Usage',
      async () => (await rows.count()) > 0,
      () => page.getByRole('button', { name: 'Refresh usage' }).click(),
    );
    const text = (await rows.first().textContent()) ?? '';
    assert.ok(text.includes('sim:small') && text.includes('ci key') && text.includes('support-bot'), text);
    await page.getByTestId('stat-requests').filter({ hasText: /^[1-9]/ }).waitFor();
    await shot('usage');
  });

  it('streams an answer with its _meta in the playground', async () => {
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByLabel('Message').fill('Say something short');
    await page.keyboard.press('Enter');
    const meta = page.getByTestId('turn-meta');
    await meta.waitFor();
    const text = (await meta.textContent()) ?? '';
    assert.ok(text.includes('Model: sim:small') && text.includes('Cost:'), text);
    assert.ok(((await page.getByTestId('turn-assistant').textContent()) ?? '').includes('Say something short'));
    await shot('playground');
  });

  it('fits a phone screen (390 px) without sideways scrolling', async () => {
    const phone = await browser.newContext({ storageState: await context.storageState(), viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' });
    await csp.watch(phone);
    try {
      const mobile = await phone.newPage();
      for (const [path, ready] of [
        ['/routers', 'router-card'],
        [`/routers/${routerId}`, 'router-id'],
        ['/settings/keys', 'keys-table'],
        ['/usage', 'request-table'],
      ] as const) {
        await mobile.goto(`${gateway.origin}${path}`);
        await mobile.getByTestId(ready).first().waitFor();
        const width = Number(await mobile.evaluate('document.documentElement.scrollWidth'));
        assert.ok(width <= 390, `${path} is ${width} px wide`);
        await shot(`phone${path.replace(/\/rt_\w+/, '-detail').replaceAll('/', '-')}`, mobile);
      }
      await mobile.getByRole('button', { name: 'Toggle navigation' }).click();
      await mobile.getByRole('link', { name: 'API Keys' }).waitFor();
      await mobile.screenshot({ path: `${SCREENSHOTS}phone-navigation.png` });
    } finally {
      await phone.close();
    }
  });

  it('revokes the key, and the gateway refuses it', async () => {
    await page.getByRole('link', { name: 'API Keys' }).click();
    await page.getByRole('button', { name: 'Actions for ci key' }).click();
    await page.getByRole('menuitem', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    const row = page.locator('[data-testid="key-row"][data-key-name="ci key"]');
    await eventually('the revoked status', async () => (await row.getAttribute('data-status')) === 'revoked');
    const client = new OpenAI({ apiKey, baseURL: `${gateway.origin}/api/router/v1`, maxRetries: 0 });
    // Caches drop the key within MODELPORT_CHANGE_POLL_MS (50 ms here).
    let status = 0;
    await eventually('401 for the revoked key', async () => {
      status = await statusOf(client.chat.completions.create({ model: routerId, messages: [{ role: 'user', content: 'still there?' }] }));
      return status === 401;
    });
    assert.equal(status, 401);
    await shot('keys-revoked');
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(csp.violations, [], 'the Content-Security-Policy blocked nothing the app did');
  });
});
