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

describe('dashboard agents in headless Chromium: form with a field error, run, execution', { skip }, () => {
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
    // Signed up and given a router through the API; the browser shares the session cookie.
    const user = new DashboardClient(gateway.origin);
    await user.signUp('grace@example.com');
    const router = await user.post(`${user.ws}/routers`, { name: 'sim-router', models: ['sim:small', 'sim:medium'], strategy: 'cost_optimized' });
    assert.equal(router.status, 201);
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

  const chooseRouter = async (step: ReturnType<Page['getByRole']>) => {
    await step.getByPlaceholder('Choose a router').click();
    await page.getByRole('option', { name: /^sim-router/ }).click();
  };

  it('creates a two-step agent through the form, after a field error at the prompt', async () => {
    await page.goto(`${gateway.origin}/agents`);
    await page.getByText('No agents yet').waitFor();
    await shot('agents-empty');
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.waitForURL('**/agents/new');
    await page.getByLabel(/^Name/).fill('research');
    await page.getByLabel(/^Description/).fill('Facts, then a short summary');
    // The form starts with the answer step; "Add step" puts the new step before it, where the answer can read it.
    const answerStep = page.getByRole('group', { name: /^Step 1/ });
    await answerStep.getByLabel(/^Step name/).fill('summary');
    await chooseRouter(answerStep);
    await answerStep.getByLabel(/^Prompt/).fill('Summarise: {{steps.fcts.output}}');
    await page.getByRole('button', { name: 'Add step' }).click();
    const second = page.getByRole('group', { name: /^Step 2: summary/ });
    await second.waitFor();
    await page.getByRole('group', { name: /^Step 1$/ }).getByLabel(/^Step name/).fill('facts');
    const first = page.getByRole('group', { name: /^Step 1: facts/ });
    await chooseRouter(first);
    // A step that reads the answer step is named, with the move that fixes it.
    await first.getByLabel(/^Prompt/).fill('Check {{steps.summary.output}}');
    await page.getByRole('status').filter({ hasText: 'Step "facts" reads the answer step' }).getByRole('button', { name: 'Move "facts" to the end' }).waitFor();
    await first.getByLabel(/^Prompt/).fill('List three facts about {{input}}');
    await page.getByText('reads the answer step').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Create agent' }).click();
    // The server's 400 names steps[1].prompt: the message shows under that field, and nowhere else.
    const prompt = second.getByLabel(/^Prompt/);
    await second.getByText(/names no step/).waitFor();
    assert.equal(await prompt.getAttribute('aria-invalid'), 'true');
    assert.notEqual(await first.getByLabel(/^Prompt/).getAttribute('aria-invalid'), 'true');
    assert.equal(new URL(page.url()).pathname, '/agents/new');
    await shot('agent-form-error');
    await prompt.fill('Summarise: {{steps.facts.output}}');
    await second.getByRole('switch', { name: /JSON output/ }).waitFor();
    await shot('agent-form');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.waitForURL('**/agents/research');
    await page.getByRole('region', { name: 'Definition' }).getByText('summary').first().waitFor();
  });

  it('runs the agent in its page: the answer streams in, then the steps with model, cost and latency', async () => {
    await page.getByLabel(/^Input/).fill('heat pumps');
    await page.getByRole('button', { name: 'Run agent' }).click();
    const meta = page.getByTestId('agent-meta');
    await meta.waitFor();
    const answer = (await page.getByTestId('agent-answer').textContent()) ?? '';
    assert.ok(answer.length > 0 && answer !== 'Running…', answer);
    const text = (await meta.textContent()) ?? '';
    for (const expected of ['Steps: 2', 'facts', 'summary', 'sim:', 'Total cost', 'Carbon']) assert.ok(text.includes(expected), `${expected} in ${text}`);
    await page.getByRole('region', { name: 'Executions' }).getByRole('link').first().waitFor();
    await shot('agent-run');
  });

  it('opens the execution and shows both steps', async () => {
    await page.getByRole('link', { name: /^Open execution/ }).click();
    await page.waitForURL('**/executions/**');
    for (const name of ['facts', 'summary']) {
      const step = page.getByRole('region', { name: `Step ${name}` });
      await step.getByText('succeeded').waitFor();
      assert.ok(((await step.textContent()) ?? '').includes('sim:'));
    }
    await shot('agent-execution');
    await page.getByRole('link', { name: 'Agents' }).first().click();
    await page.getByRole('link', { name: 'agent:research' }).waitFor();
    await shot('agents');
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(csp.violations, [], 'the Content-Security-Policy blocked nothing the app did');
  });
});
