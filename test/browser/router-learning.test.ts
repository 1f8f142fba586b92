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

const jsonl = (lines: readonly unknown[]) => Buffer.from(lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'));

describe("dashboard in headless Chromium: an auto router's calibration upload and thumbs on its answers", { skip }, () => {
  let gateway: Gateway;
  let browser: Browser;
  let page: Page;
  let routerId = '';
  const pageErrors: string[] = [];
  const csp = createCspWatch();
  const shot = (name: string) => page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

  before(async () => {
    assert.ok(existsSync(WEB_DIST), 'web/dist is not built: run "npm run build" (npm test builds it first)');
    mkdirSync(SCREENSHOTS, { recursive: true });
    gateway = await startGateway();
    const user = new DashboardClient(gateway.origin);
    await user.signUp('grace@example.com');
    routerId = (await user.post(`${user.ws}/routers`, { name: 'learner', models: ['sim:small', 'sim:large'], strategy: 'auto' })).body.id;
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

  it('uploads labelled examples on the router page: a bad line is named, a good file fits the router', async () => {
    await page.goto(`${gateway.origin}/routers/${routerId}`);
    await page.getByText('Not fitted yet').waitFor();
    const file = page.getByTestId('calibration-file');
    await file.setInputFiles({ name: 'broken.jsonl', mimeType: 'application/x-ndjson', buffer: jsonl([{ prompt: 'a', scores: { 'sim:small': 1 } }, 'not json']) });
    const refusal = page.getByRole('alert').filter({ hasText: 'line 2' });
    await refusal.waitFor();
    assert.match((await refusal.textContent()) ?? '', /broken\.jsonl line 2 is not valid JSON/);

    const examples = Array.from({ length: 30 }, (_, index) => ({ prompt: `Question ${index}: what is ${index} + ${index}?`, scores: { 'sim:small': index % 3 === 0 ? 0 : 1, 'sim:large': 1, 'acme:other': 1 } }));
    await file.setInputFiles({ name: 'labelled.jsonl', mimeType: 'application/x-ndjson', buffer: jsonl(examples) });
    const result = page.getByTestId('calibration-result');
    await result.waitFor();
    const text = (await result.textContent()) ?? '';
    assert.ok(text.includes('30 examples in labelled.jsonl') && text.includes('acme:other'), text);
    assert.equal(await page.getByRole('alert').filter({ hasText: 'line 2' }).count(), 0, 'the earlier refusal is gone');
    // The router reloads with its fit.
    await page.getByTestId('fit-models').filter({ hasText: '2' }).waitFor();
    await page.getByText('sim:small: 30 labels').waitFor();
    await page.getByTestId('savings-card').waitFor();
    await shot('router-calibration');
  });

  it('rates an answer in the playground: the thumb stays chosen, and the router page counts it', async () => {
    await page.goto(`${gateway.origin}/playground?router=${routerId}`);
    await page.getByLabel('Message').fill('What is 2 + 2?');
    await page.keyboard.press('Enter');
    await page.getByTestId('turn-meta').waitFor();
    const good = page.getByRole('button', { name: 'Good answer' });
    await good.click();
    // The usage record (and so the request's sample) is written within about a second; the click waits for it.
    await page.getByTestId('feedback-thumbs').and(page.locator('[data-score="1"]')).waitFor();
    assert.equal(await good.getAttribute('aria-pressed'), 'true');
    assert.equal(await page.getByRole('button', { name: 'Bad answer' }).getAttribute('aria-pressed'), 'false');
    await page.getByText('the router learns from it').waitFor();
    await shot('playground-feedback');

    await page.goto(`${gateway.origin}/routers/${routerId}`);
    await page.getByTestId('savings-quality').filter({ hasText: '100 %' }).waitFor();
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(csp.violations, [], 'the Content-Security-Policy blocked nothing the app did');
  });
});
