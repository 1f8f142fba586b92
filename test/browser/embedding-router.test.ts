import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createCspWatch } from '../support/csp-violations.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_DIST = fileURLToPath(new URL('../../web/dist/index.html', import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

describe('dashboard embedding routers in headless Chromium: the form offers one kind and one vector space', { skip }, () => {
  let gateway: Gateway;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const csp = createCspWatch();
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

  before(async () => {
    assert.ok(existsSync(WEB_DIST), 'web/dist is not built: run "npm run build" (npm test builds it first)');
    mkdirSync(SCREENSHOTS, { recursive: true });
    gateway = await startGateway();
    const user = new DashboardClient(gateway.origin);
    await user.signUp('hedy@example.com');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, reducedMotion: 'reduce', colorScheme: 'light' });
    await csp.watch(context);
    const [name = '', value = ''] = (user.cookie ?? '').split('=');
    await context.addCookies([{ name, value, url: gateway.origin }]);
    page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  it('creates an embedding router: only embedding models, dimensions shown, other spaces locked, no auto', async () => {
    await page.goto(`${gateway.origin}/routers/new`);
    await page.getByLabel(/^Name/).fill('vectors');
    await page.getByLabel('Search models').fill('sim:');
    await page.getByLabel('Use sim:small').waitFor();
    assert.equal(await page.getByLabel('Use sim:embed-small').count(), 0, 'a chat router offers no embedding model');

    await page.getByText('Embeddings', { exact: true }).click();
    await page.getByLabel('Use sim:embed-small').waitFor();
    assert.equal(await page.getByLabel('Use sim:small').count(), 0, 'an embedding router offers no chat model');
    await page.getByRole('columnheader', { name: 'Dimensions' }).waitFor();
    await page.getByText('256, shortenable').waitFor();
    assert.equal(await page.getByRole('radio', { name: /\(auto\)/ }).count(), 0, 'auto is not offered');

    await page.getByLabel('Use sim:embed-small').check();
    // Models of another vector space cannot join it (shown with every model, available or not).
    await page.getByLabel('Available only').uncheck();
    await page.getByLabel('Search models').fill('text-embedding-3-small');
    assert.equal(await page.getByLabel('Use openai:text-embedding-3-small').isDisabled(), true);
    await shot('router-new-embeddings');

    await page.getByRole('radio', { name: /latency_optimized/ }).check();
    await page.getByRole('button', { name: 'Create router' }).click();
    await page.waitForURL(/\/routers\/rt_/);
    assert.equal(await page.getByTestId('router-kind').textContent(), 'Embeddings');
    assert.equal(await page.getByRole('link', { name: 'Try it' }).count(), 0, 'the chat playground cannot try it');
    await page.getByRole('tab', { name: 'OpenAI Node' }).click();
    const snippet = (await page.getByRole('tabpanel').textContent()) ?? '';
    assert.ok(snippet.includes('client.embeddings.create'), snippet);
    await page.getByText('Recent traffic').waitFor();
    await shot('router-detail-embeddings');

    await page.getByRole('link', { name: 'Routers' }).click();
    await page.getByTestId('router-card').first().waitFor();
    assert.equal(await page.getByTestId('router-kind').first().textContent(), 'Embeddings');
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(csp.violations, [], 'the Content-Security-Policy blocked nothing the app did');
  });
});
