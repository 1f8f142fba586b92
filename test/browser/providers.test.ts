import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DashboardClient } from '../support/dashboard-client.js';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_DIST = fileURLToPath(new URL('../../web/dist/index.html', import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

const GOOD_KEY = 'sk-browser-good-key-7c7c';
const WRONG_KEY = 'sk-browser-wrong-key-3d3d';

describe('dashboard in headless Chromium: Settings → Providers and Settings → Models', { skip }, () => {
  let fake: FakeOpenAI;
  let gateway: Gateway;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

  before(async () => {
    assert.ok(existsSync(WEB_DIST), 'web/dist is not built: run "npm run build" (npm test builds it first)');
    mkdirSync(SCREENSHOTS, { recursive: true });
    fake = await startFakeOpenAI({ apiKey: GOOD_KEY });
    gateway = await startGateway({ env: { MODELPORT_ALLOW_PRIVATE_UPSTREAMS: 'true' } });
    const user = new DashboardClient(gateway.origin);
    await user.signUp('ada-providers@example.com');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, reducedMotion: 'reduce', colorScheme: 'light' });
    const [name = '', value = ''] = (user.cookie ?? '').split('=');
    await context.addCookies([{ name, value, url: gateway.origin }]);
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    await fake?.close();
  });

  it('adds a custom provider’s key (shown only by its tail), tests it, and shows the provider’s 401', async () => {
    await page.goto(`${gateway.origin}/settings/keys`);
    await page.getByRole('link', { name: 'Providers' }).click();
    await page.getByRole('heading', { name: 'Providers' }).waitFor();
    await page.getByRole('button', { name: 'Add provider key' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add provider key' });
    await dialog.getByLabel(/^Provider/).click();
    await page.getByRole('option', { name: 'Custom (OpenAI-compatible)' }).click();
    await dialog.getByLabel(/^Name/).fill('acme');
    await dialog.getByTestId('provider-api-key').fill(WRONG_KEY);
    assert.equal(await dialog.getByTestId('provider-api-key').getAttribute('type'), 'password');
    await dialog.getByLabel(/^Base URL/).fill(fake.baseUrl);
    await dialog.getByRole('button', { name: 'Save key' }).click();

    const row = page.getByTestId('provider-row').and(page.locator('[data-provider="acme"]'));
    await row.waitFor();
    assert.equal(await row.getByTestId('provider-key').textContent(), `…${WRONG_KEY.slice(-4)}`);
    assert.ok(!(await page.content()).includes(WRONG_KEY), 'the key is nowhere on the page');

    await row.getByLabel('Model to ping for acme').fill('llama-local');
    await row.getByRole('button', { name: 'Test' }).click();
    const outcome = row.getByTestId('provider-test-result');
    await outcome.waitFor();
    assert.equal(await outcome.getAttribute('data-ok'), 'false');
    assert.match((await outcome.textContent()) ?? '', /HTTP 401, invalid_api_key/);
    await shot('providers-test-failed');
    assert.deepEqual(pageErrors, []);
  });

  it('declares a model: a missing output price is refused at its field with the CLI’s message, then saved', async () => {
    await page.getByRole('link', { name: 'Models' }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    await page.getByRole('button', { name: 'Add model' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add model' });
    await dialog.getByLabel(/^Model id/).fill('acme:llama-local');
    await dialog.getByLabel(/^Input price/).fill('0.5');
    await dialog.getByRole('button', { name: 'Add model' }).click();
    await dialog.getByText('A chat model needs --output-price (USD per million completion tokens).').waitFor();
    await dialog.getByLabel(/^Output price/).fill('1.5');
    await dialog.getByRole('button', { name: 'Add model' }).click();
    const row = page.getByTestId('custom-model-row').and(page.locator('[data-model-id="acme:llama-local"]'));
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /\$0\.5.*\$1\.50/);
    await shot('custom-models');
    assert.deepEqual(pageErrors, []);
  });
});
