import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTempDatabase, hasStackTrace, parseJsonObject, runModelport, type CliRun } from './run-modelport.js';

const OWNER = 'owner@example.com';

interface RouterJson {
  id: string;
  name: string;
  strategy: string;
  models: string[];
  settings: { weights: Record<string, number> | null; qualityTarget: number | null; maxCostPerRequestUsd: number | null };
  updatedAt: string;
}

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

describe('modelport router settings and router update', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args);
  const routerOf = (run: CliRun) => parseJsonObject(run.stdout).router as RouterJson;
  let routerId = '';

  before(async () => {
    assertExit(await cli('user', 'create', '--email', OWNER, '--password', 'correct horse battery'), 0);
  });
  after(() => database.remove());

  it('router create takes --weights, --quality-target and --max-cost', async () => {
    const run = await cli(
      'router', 'create', '--owner', OWNER, '--name', 'mix', '--models', 'sim:small,sim:large', '--strategy', 'balanced',
      '--weights', 'cost=0.5,latency=0.2,quality=0.2,carbon=0.1', '--quality-target', '0.9', '--max-cost', '0.01', '--json',
    );
    assertExit(run, 0);
    const router = routerOf(run);
    routerId = router.id;
    assert.deepEqual(router.settings, { weights: { cost: 0.5, latency: 0.2, quality: 0.2, carbon: 0.1 }, qualityTarget: 0.9, maxCostPerRequestUsd: 0.01 });
    const plain = await cli('router', 'create', '--owner', OWNER, '--name', 'plain', '--models', 'sim:small', '--strategy', 'cost_optimized', '--json');
    assert.deepEqual(routerOf(plain).settings, { weights: null, qualityTarget: null, maxCostPerRequestUsd: null });
  });

  it('router update changes what is given and keeps the rest', async () => {
    // The real executable: what a script captures on stdout (the id) and what goes to stderr.
    const run = await runModelport(database.url, ['router', 'update', '--owner', OWNER, '--id', routerId, '--strategy', 'quality_optimized', '--weights', 'quality=1', '--max-cost', 'none'], { process: true });
    assertExit(run, 0);
    assert.equal(run.stdout, `${routerId}\n`);
    assert.match(run.stderr, /Updated router "mix": quality_optimized over sim:small, sim:large; weights cost=0,latency=0,quality=1,carbon=0; quality target 0\.9; cost ceiling none\./);
    const listed = (parseJsonObject((await cli('router', 'list', '--json')).stdout).routers as RouterJson[]).find((router) => router.id === routerId);
    assert.equal(listed?.strategy, 'quality_optimized');
    assert.equal(listed?.name, 'mix');
    assert.deepEqual(listed?.models, ['sim:small', 'sim:large']);
    assert.deepEqual(listed?.settings, { weights: { cost: 0, latency: 0, quality: 1, carbon: 0 }, qualityTarget: 0.9, maxCostPerRequestUsd: null });

    const renamed = routerOf(await cli('router', 'update', '--owner', OWNER, '--id', routerId, '--name', 'renamed', '--models', 'sim:medium', '--weights', 'equal', '--json'));
    assert.equal(renamed.name, 'renamed');
    assert.deepEqual(renamed.models, ['sim:medium']);
    assert.equal(renamed.settings.weights, null);
    assert.ok(Date.parse(renamed.updatedAt) >= Date.parse(listed?.updatedAt ?? ''));
  });

  it('refuses bad settings and updates with exit 1 and a clear message', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--weights', 'cost=0,quality=0'], /weights: must sum to more than 0/],
      [['--weights', 'speed=1'], /--weights takes criterion=number pairs/],
      [['--weights', 'cost=1,cost=2'], /--weights gives cost twice/],
      [['--weights', 'cost=-1'], /--weights takes criterion=number pairs/],
      [['--quality-target', '0'], /qualityTarget: must be more than 0/],
      [['--quality-target', '1.5'], /qualityTarget: must be at most 1/],
      [['--max-cost', '0'], /maxCostPerRequestUsd: must be more than 0 USD/],
      [['--max-cost', 'cheap'], /--max-cost must be a decimal number/],
      [['--strategy', 'cheapest'], /Unknown strategy "cheapest"/],
      [['--models', 'sim:nope'], /Unknown model\(s\): sim:nope/],
      [[], /Nothing to change/],
    ];
    for (const [flags, message] of cases) {
      const run = await cli('router', 'update', '--owner', OWNER, '--id', routerId, ...flags);
      assertExit(run, 1);
      assert.match(run.stderr, message);
      assert.ok(!hasStackTrace(run.stderr), run.stderr);
    }
    const foreign = await cli('router', 'update', '--owner', OWNER, '--id', 'rt_doesnotexist', '--name', 'x');
    assertExit(foreign, 1);
    assert.match(foreign.stderr, /No router rt_doesnotexist belongs to owner@example\.com/);
  });

  it('router calibrate fits the router from a labelled file, keeps the other settings, and refuses files that score none of its models', async () => {
    const { writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const file = join(database.directory, 'labelled.jsonl');
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ prompt: `Question ${i}: which is true?\nA. ${i}\nB. yes\nC. no\nD. maybe\nAnswer:`, scores: { 'sim:small': 1, 'sim:large': i % 2, 'acme:other': 0 } }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const before = routerOf(
      await cli('router', 'create', '--owner', OWNER, '--name', 'auto', '--models', 'sim:small,sim:large', '--strategy', 'auto', '--quality-target', '0.85', '--json'),
    );
    const autoId = before.id;
    const run = await cli('router', 'calibrate', '--owner', OWNER, '--id', autoId, '--file', file, '--json');
    assertExit(run, 0);
    const output = parseJsonObject(run.stdout) as { router: RouterJson & { settings: { autoFit?: { labels: number; models: Record<string, { labels: number }> } } }; ignored: string[]; modelsFitted: string[] };
    assert.deepEqual(output.ignored, ['acme:other']);
    assert.deepEqual([...output.modelsFitted].sort(), ['sim:large', 'sim:small']);
    const fit = output.router.settings.autoFit;
    assert.deepEqual(Object.keys(fit?.models ?? {}).sort(), ['sim:large', 'sim:small']);
    assert.equal(fit?.models['sim:small']?.labels, 12);
    assert.equal(output.router.settings.qualityTarget, before.settings.qualityTarget);
    const human = await cli('router', 'calibrate', '--owner', OWNER, '--id', autoId, '--file', file);
    assertExit(human, 0);
    assert.equal(human.stdout, `${autoId}\n`);
    assert.match(human.stderr, /sim:small: 12 labels/);
    writeFileSync(file, JSON.stringify({ prompt: 'x', scores: { 'acme:other': 1 } }));
    const none = await cli('router', 'calibrate', '--owner', OWNER, '--id', autoId, '--file', file);
    assertExit(none, 1);
    assert.match(none.stderr, /score none of the router's models/);
    assert.equal(hasStackTrace(none.stderr), false);
  });
});
