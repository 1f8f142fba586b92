import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import OpenAI from 'openai';
import { chromium, type Browser, type Page } from 'playwright-core';
import { requestedModel, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const WEB_DIST = fileURLToPath(new URL('../../web/dist/index.html', import.meta.url));
const SCREENSHOTS = fileURLToPath(new URL('../../test-artifacts/screenshots/first-hour/', import.meta.url));
const skip = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;

const PROVIDER_KEY = 'sk-first-hour-owner-key-5e5e';

/** The line of the first start's banner that starts with `label :`. */
function bannerField(output: string, label: string): string {
  const match = new RegExp(`^\\s*${label}\\s*: (\\S+)`, 'm').exec(output);
  return match?.[1] ?? assert.fail(`no "${label}" in the banner:\n${output}`);
}

/**
 * A new user's first hour, in the browser, on a fresh install: the banner's sign-in link, the demo router's traffic,
 * their own key for an OpenAI-compatible upstream (a local fake of api.openai.com), a router over its models, a key,
 * a call from the openai SDK, that request opened in the log with its attempts, and body logging on, then off.
 */
describe('the first hour, in headless Chromium, from the first start to the request log', { skip }, () => {
  const directory = mkdtempSync(join(tmpdir(), 'modelport-first-hour-'));
  let fake: FakeOpenAI;
  let gateway: GatewayProcess;
  let origin = '';
  let banner = '';
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  let step = 0;
  const shot = async (name: string) => {
    step += 1;
    await page.screenshot({ path: `${SCREENSHOTS}${String(step).padStart(2, '0')}-${name}.png`, fullPage: true });
  };
  let routerId = '';
  let apiKey = '';
  let loggedRequestId = '';

  before(async () => {
    assert.ok(existsSync(WEB_DIST), 'web/dist is not built: run "npm run build" (npm test builds it first)');
    mkdirSync(SCREENSHOTS, { recursive: true });
    fake = await startFakeOpenAI({ apiKey: PROVIDER_KEY });
    fake.setHandler((request) => ({ type: 'answer', content: `Real answer from ${requestedModel(request) ?? 'the upstream'}.` }));
    gateway = await startGatewayProcess({
      DATABASE_URL: join(directory, 'fresh.db'),
      MODELPORT_BOOTSTRAP: 'true',
      MODELPORT_SIGNUP: 'closed',
      OPENAI_BASE_URL: fake.baseUrl,
    });
    origin = `http://127.0.0.1:${gateway.port}`;
    for (let wait = 0; wait < 100 && !gateway.output().includes('====\n'); wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    banner = gateway.output();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, reducedMotion: 'reduce', colorScheme: 'light' });
    page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });
  after(async () => {
    await browser?.close();
    await gateway?.stop();
    await fake?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('signs in from the banner and sees the demo router and the traffic sent to it', async () => {
    const demoKey = bannerField(banner, 'API key');
    const demoRouter = bannerField(banner, 'router id');
    const demo = new OpenAI({ apiKey: demoKey, baseURL: `${origin}/api/router/v1`, maxRetries: 0 });
    for (const text of ['Hello!', 'And again.']) {
      const answer = await demo.chat.completions.create({ model: demoRouter, messages: [{ role: 'user', content: text }] });
      assert.match(answer.choices[0]?.message.content ?? '', /simulat/i);
    }

    await page.goto(bannerField(banner, 'sign in'));
    await page.getByTestId('router-card').first().waitFor();
    assert.ok((await page.getByTestId('router-card').first().textContent())?.includes('demo'), 'the demo router is listed');
    await shot('signed-in-from-the-banner');

    await page.getByRole('link', { name: 'Usage' }).click();
    // Usage records are written off the request path: refresh until the two requests are counted.
    const counted = page.getByTestId('stat-requests').filter({ hasText: /^[2-9]/ });
    for (let tries = 0; tries < 50 && (await counted.count()) === 0; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      await page.getByRole('button', { name: 'Refresh usage' }).click();
    }
    await counted.waitFor();
    assert.ok((await page.getByTestId('request-row').count()) >= 2, 'the demo traffic is in the log');
    await shot('demo-traffic');
  });

  it('adds the owner’s own key for OpenAI, builds a router over its models and generates a key', async () => {
    await page.goto(`${origin}/settings/providers`);
    await page.getByRole('heading', { name: 'Providers' }).waitFor();
    await page.getByRole('button', { name: 'Add provider key' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add provider key' });
    await dialog.getByLabel(/^Provider/).click();
    await page.getByRole('option', { name: /^OpenAI$/ }).click();
    await dialog.getByTestId('provider-api-key').fill(PROVIDER_KEY);
    await dialog.getByRole('button', { name: 'Save key' }).click();
    const row = page.getByTestId('provider-row').and(page.locator('[data-provider="openai"]'));
    await row.waitFor();
    assert.ok(!(await page.content()).includes(PROVIDER_KEY), 'the key is never shown again');
    await row.getByRole('button', { name: 'Test' }).click();
    await row.getByTestId('provider-test-result').waitFor();
    assert.equal(await row.getByTestId('provider-test-result').getAttribute('data-ok'), 'true', (await row.getByTestId('provider-test-result').textContent()) ?? '');
    await shot('provider-key-added-and-tested');

    await page.goto(`${origin}/routers/new`);
    await page.getByLabel(/^Name/).fill('real models');
    await page.getByLabel('Search models').fill('openai:gpt-4o-mini');
    await page.getByLabel('Use openai:gpt-4o-mini', { exact: true }).check();
    await page.getByRole('radio', { name: /cost_optimized/ }).check();
    await shot('router-form');
    await page.getByRole('button', { name: 'Create router' }).click();
    routerId = ((await page.getByTestId('router-id').textContent()) ?? '').trim();
    assert.match(routerId, /^rt_/);

    await page.goto(`${origin}/settings/keys`);
    await page.getByRole('button', { name: 'Generate New API Key' }).first().click();
    const form = page.getByRole('dialog', { name: 'Generate New API Key' });
    await form.getByLabel(/^Name/).fill('first-hour key');
    await form.getByRole('button', { name: 'Generate key' }).click();
    const shown = page.getByRole('dialog', { name: 'Your new API key' });
    apiKey = ((await shown.getByTestId('new-key').textContent()) ?? '').trim();
    assert.match(apiKey, /^mp_/);
    await shot('key-generated');
    await shown.getByRole('button', { name: 'I have copied it' }).click();
  });

  it('calls the router from the openai SDK and opens that request in the log, with its attempts', async () => {
    const client = new OpenAI({ apiKey, baseURL: `${origin}/api/router/v1`, maxRetries: 0 });
    const answer = await client.chat.completions.create({ model: routerId, messages: [{ role: 'user', content: 'Which model answers?' }] });
    assert.equal(answer.choices[0]?.message.content, 'Real answer from gpt-4o-mini.');
    const meta = (answer as unknown as { _meta: { requestId: string; modelUsed: string } })._meta;
    assert.equal(meta.modelUsed, 'openai:gpt-4o-mini');
    assert.equal(fake.chatRequests().at(-1)?.headers.authorization, `Bearer ${PROVIDER_KEY}`, "the owner's key went upstream");

    await page.goto(`${origin}/usage`);
    await page.getByLabel('Open a request').fill(meta.requestId);
    await page.getByTestId('open-request').getByRole('button', { name: 'Open' }).click();
    await page.getByTestId('request-detail').waitFor();
    const attempts = page.getByTestId('attempt-row');
    await attempts.first().waitFor();
    assert.equal(await attempts.count(), 1);
    assert.match((await attempts.first().textContent()) ?? '', /openai:gpt-4o-mini/);
    await page.getByTestId('routing-candidates').waitFor();
    assert.equal(await page.getByTestId('request-bodies').count(), 0, 'no bodies while logging is off');
    await shot('request-opened-with-attempts');
  });

  it('keeps the bodies once logging is on, and deletes them when it is turned off', async () => {
    const setLogging = async (on: boolean) => {
      await page.goto(`${origin}/routers/${routerId}/edit`);
      const toggle = page.getByLabel('Keep request and response bodies');
      await toggle.waitFor();
      if ((await toggle.isChecked()) !== on) await toggle.click({ force: true });
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByTestId('router-id').waitFor();
    };
    await setLogging(true);
    await shot('body-logging-on');

    const client = new OpenAI({ apiKey, baseURL: `${origin}/api/router/v1`, maxRetries: 0 });
    const marker = 'a question worth keeping 7f3a';
    const answer = await client.chat.completions.create({ model: routerId, messages: [{ role: 'user', content: marker }] });
    loggedRequestId = (answer as unknown as { _meta: { requestId: string } })._meta.requestId;

    const bodies = page.getByTestId('request-bodies');
    // The detail is written with the usage record, off the request path: reload until it is there.
    for (let tries = 0; tries < 50; tries += 1) {
      await page.goto(`${origin}/usage/requests/${loggedRequestId}`);
      await page.getByTestId('request-detail').or(page.getByRole('alert')).first().waitFor();
      if ((await bodies.count()) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const text = (await bodies.textContent()) ?? '';
    assert.ok(text.includes(marker), 'the request body is kept');
    assert.ok(text.includes('Real answer from gpt-4o-mini.'), 'the response body is kept');
    assert.ok(!text.includes(apiKey), 'no key in the kept bodies');
    await shot('bodies-visible');

    await setLogging(false);
    await page.goto(`${origin}/usage/requests/${loggedRequestId}`);
    await page.getByTestId('request-detail').waitFor();
    assert.equal(await bodies.count(), 0, 'the bodies are gone once logging is off');
    assert.ok((await page.getByTestId('attempt-row').count()) >= 1, 'the rest of the detail stays');
    await shot('bodies-gone');
    assert.deepEqual(pageErrors, []);
  });
});
