import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { PlaygroundEmbeddingsView } from '../../src/dashboard/dashboard-api-types.js';
import { createCspWatch } from '../support/csp-violations.js';
import { DashboardClient } from '../support/dashboard-client.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_DIST = fileURLToPath(new URL('../../web/dist/index.html', import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/', import.meta.url));
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

const HEAT_PUMP = 'A heat pump moves heat from outside air into the house.';
const BOILER = 'A gas boiler burns fuel to heat water.';

/** The cosine of two vectors, worked out here apart from the page's own arithmetic. */
function cosine(a: readonly number[], b: readonly number[]): number {
  const dot = a.reduce((sum, value, index) => sum + value * (b[index] ?? 0), 0);
  const norm = (vector: readonly number[]) => Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
  return dot / (norm(a) * norm(b));
}

/** As the page prints numbers: fixed digits, a true minus sign. */
const printed = (value: number, digits: number): string => `${value < 0 ? '−' : ''}${Math.abs(value).toFixed(digits)}`;

describe('dashboard playground in headless Chromium: an embedding router embeds texts, a chat router still chats', { skip }, () => {
  let gateway: Gateway;
  let user: DashboardClient;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let vectors = '';
  const pageErrors: string[] = [];
  const csp = createCspWatch();
  const shot = (name: string, target: Page = page) => target.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true });

  before(async () => {
    assert.ok(existsSync(WEB_DIST), 'web/dist is not built: run "npm run build" (npm test builds it first)');
    mkdirSync(SCREENSHOTS, { recursive: true });
    gateway = await startGateway();
    user = new DashboardClient(gateway.origin);
    await user.signUp('grace@example.com');
    for (const [name, models] of [['support', ['sim:small']], ['vectors', ['sim:embed-small']]] as const) {
      const created = await user.post(`${user.ws}/routers`, { name, models, strategy: 'cost_optimized' });
      assert.equal(created.status, 201);
      if (name === 'vectors') vectors = created.body.id;
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    context = await browser.newContext({ viewport: { width: 1366, height: 860 }, reducedMotion: 'reduce', colorScheme: 'light' });
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

  it('opens on the chat router, offers both kinds grouped, and switches to the embedding form', async () => {
    await page.goto(`${gateway.origin}/playground`);
    await page.getByLabel('Message').waitFor();
    assert.equal(await page.getByTestId('playground-router').inputValue(), 'support');
    await page.getByTestId('playground-router').click();
    await page.getByText('Embeddings', { exact: true }).waitFor();
    assert.equal(await page.getByText('Chat', { exact: true }).count(), 1);
    await page.getByRole('option', { name: 'vectors' }).click();
    await page.getByLabel('Inputs').waitFor();
    assert.equal(await page.getByLabel('Message').count(), 0, 'no chat box for an embedding router');
    assert.match(page.url(), new RegExp(`router=${vectors}`));
    // The catalog says what the router's model gives.
    await page.getByText('Empty: 256. Shorter on request, 1 to 256.').waitFor();
  });

  it("shows each vector's length and first values, the cosine similarities and the call's _meta", async () => {
    await page.getByLabel('Inputs').fill(`${HEAT_PUMP}\n\n${HEAT_PUMP}\n${BOILER}\n`);
    assert.equal(await page.getByTestId('embedding-input-count').textContent(), '3 inputs', 'blank lines are no input');
    await page.getByLabel('Dimensions').fill('64');
    await page.getByRole('button', { name: 'Embed' }).click();
    const meta = page.getByTestId('embedding-meta');
    await meta.waitFor();
    const metaText = (await meta.textContent()) ?? '';
    for (const field of ['Model: sim:embed-small', 'Cost: $', 'Latency:', 'Carbon:', 'Strategy: cost_optimized', 'Attempts: 1']) assert.ok(metaText.includes(field), `${field} in ${metaText}`);

    // The same call through the API: the simulator embeds deterministically, so the page must show these numbers.
    const expected = await user.post<PlaygroundEmbeddingsView>(`${user.ws}/playground/embeddings`, { model: vectors, input: [HEAT_PUMP, HEAT_PUMP, BOILER], dimensions: 64 });
    const [first = [], , third = []] = expected.body.data.map((item) => item.embedding as number[]);
    assert.deepEqual(await page.getByTestId('embedding-length').allTextContents(), ['64', '64', '64']);
    const firstValues = (await page.getByTestId('embedding-row').first().locator('code').textContent()) ?? '';
    assert.ok(firstValues.startsWith(`[${first.slice(0, 6).map((value) => printed(value, 4)).join(', ')}, …]`), firstValues);
    assert.equal(await page.getByTestId('similarity-1-2').textContent(), '1.000', 'the same text, the same direction');
    assert.equal(await page.getByTestId('similarity-1-3').textContent(), printed(cosine(first, third), 3));
    assert.equal(await page.getByTestId('similarity-3-1').textContent(), printed(cosine(first, third), 3));
    await page.getByText(`3 vectors of 64 dimensions`).waitFor();
    await shot('playground-embeddings');
  });

  it("shows the server's refusal when the router cannot give the asked length", async () => {
    await page.getByLabel('Dimensions').fill('300');
    await page.getByRole('button', { name: 'Embed' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /No model of this router gives vectors of 300 dimensions \(sim:embed-small: up to 256\)/);
    assert.equal(await page.getByTestId('embedding-result').count(), 0);
    await page.getByLabel('Dimensions').fill('');
    await page.getByLabel('Inputs').fill(HEAT_PUMP);
    await page.getByRole('button', { name: 'Embed' }).click();
    await page.getByText('1 vector of 256 dimensions').waitFor();
    assert.equal(await page.getByTestId('similarity-matrix').count(), 0, 'one input has nothing to compare with');
  });

  it('fits a phone screen (390 px) without sideways scrolling', async () => {
    const phone = await browser.newContext({ storageState: await context.storageState(), viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, reducedMotion: 'reduce' });
    await csp.watch(phone);
    const mobile = await phone.newPage();
    await mobile.goto(`${gateway.origin}/playground?router=${vectors}`);
    await mobile.getByLabel('Inputs').fill(`${HEAT_PUMP}\n${BOILER}`);
    await mobile.getByRole('button', { name: 'Embed' }).click();
    await mobile.getByTestId('similarity-matrix').waitFor();
    const width = Number(await mobile.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `the embedding playground is ${width} px wide`);
    await shot('phone-playground-embeddings', mobile);
    await phone.close();
  });

  it('back on the chat router, the chat works as before', async () => {
    await page.getByTestId('playground-router').click();
    await page.getByRole('option', { name: 'support' }).click();
    await page.getByLabel('Message').fill('Say something short');
    await page.keyboard.press('Enter');
    const meta = page.getByTestId('turn-meta');
    await meta.waitFor();
    assert.ok(((await meta.textContent()) ?? '').includes('Model: sim:small'));
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(csp.violations, [], 'the Content-Security-Policy blocked nothing the app did');
  });
});
