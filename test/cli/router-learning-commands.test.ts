import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createTempDatabase, hasStackTrace, parseJsonObject, runModelport, type CliRun } from './run-modelport.js';

const OWNER = 'learner@example.com';
const OTHER = 'stranger@example.com';

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

interface UsageJson {
  id: string;
  routerId: string | null;
  costUsd: number;
  counterfactualCostUsd: number | null;
}

interface SummaryJson {
  routers: { id: string; requests: number; costUsd: number; counterfactualCostUsd: number; savedUsd: number; feedback: { count: number; meanScore: number | null } }[];
}

/**
 * An auto router's learning from the command line: `router calibrate` fits it from a file, `feedback` scores its
 * answers, `usage list` and `usage summary` show what it cost against always using its strongest model. The binary
 * and a gateway share one SQLite file.
 */
describe('modelport router calibrate, feedback and usage summary for an auto router', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args);
  let app: App;
  let autoId = '';
  let cheapId = '';
  const requestIds: string[] = [];

  before(async () => {
    assertExit(await cli('user', 'create', '--email', OWNER, '--password', 'correct horse battery'), 0);
    assertExit(await cli('user', 'create', '--email', OTHER, '--password', 'correct horse battery'), 0);
    autoId = (await cli('router', 'create', '--owner', OWNER, '--name', 'auto', '--models', 'sim:small,sim:large', '--strategy', 'auto')).stdout.trim();
    cheapId = (await cli('router', 'create', '--owner', OWNER, '--name', 'cheap', '--models', 'sim:small', '--strategy', 'cost_optimized')).stdout.trim();
    const apiKey = (parseJsonObject((await cli('key', 'create', '--owner', OWNER, '--name', 'k', '--json')).stdout) as { value: string }).value;

    const config = loadConfig({
      DATABASE_URL: database.url,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      MODELPORT_BOOTSTRAP: 'false',
      MODELPORT_SIM_TIME_SCALE: '0',
      MODELPORT_CHANGE_POLL_MS: '50',
      MODELPORT_USAGE_FLUSH_MS: '50',
    });
    app = await createApp(config, pino({ level: 'silent' }));
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.server.address();
    if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
    for (const model of [autoId, autoId, cheapId]) {
      const response = await fetch(`http://127.0.0.1:${address.port}/api/router/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: `Question ${requestIds.length}: what is 6 x 7?` }] }),
      });
      assert.equal(response.status, 200);
      requestIds.push(((await response.json()) as { _meta: { requestId: string } })._meta.requestId);
    }
    // The gateway writes usage records (and auto's samples with them) in batches; closing flushes them.
    await app.close();
  });
  after(() => database.remove());

  it('usage list shows what the strongest model would have cost, for auto requests only', async () => {
    const run = await cli('usage', 'list', '--owner', OWNER, '--json');
    assertExit(run, 0);
    const usage = parseJsonObject(run.stdout).usage as UsageJson[];
    assert.equal(usage.length, 3);
    for (const row of usage) {
      if (row.routerId === autoId) assert.ok(typeof row.counterfactualCostUsd === 'number' && row.counterfactualCostUsd >= 0, JSON.stringify(row));
      else assert.equal(row.counterfactualCostUsd, null);
    }
    const table = await cli('usage', 'list', '--owner', OWNER);
    assert.match(table.stdout.split('\n')[0] ?? '', /COST \$\s+STRONGEST \$/);
  });

  it('feedback scores an auto request, once per request from the CLI; foreign and unknown ids are refused', async () => {
    const [first = ''] = requestIds;
    const up = await cli('feedback', first, '--owner', OWNER, '--score', '1', '--json');
    assertExit(up, 0);
    const label = (parseJsonObject(up.stdout) as { feedback: { id: string; score: number; routerId: string } }).feedback;
    assert.deepEqual([label.score, label.routerId], [1, autoId]);
    // The real executable: the label's id on stdout, the note on stderr.
    const down = await runModelport(database.url, ['feedback', 'add', first, '--owner', OWNER, '--score', '0', '--comment', 'wrong'], { process: true });
    assertExit(down, 0);
    assert.equal(down.stdout, `${label.id}\n`, 'a repeat replaces the label');
    assert.match(down.stderr, /Scored .+ 0 /);

    const refusals: Array<[string[], RegExp]> = [
      [['feedback', first, '--owner', OTHER, '--score', '1'], /request/i],
      [['feedback', 'req_doesnotexist', '--owner', OWNER, '--score', '1'], /request/i],
      [['feedback', requestIds[2] ?? '', '--owner', OWNER, '--score', '1'], /request/i],
      [['feedback', first, '--owner', OWNER, '--score', '2'], /--score must be a number from 0/],
      [['feedback', first, '--owner', OWNER, '--score', 'up'], /--score must be a number from 0/],
    ];
    for (const [args, message] of refusals) {
      const run = await cli(...args);
      assertExit(run, 1);
      assert.match(run.stderr, message);
      assert.ok(!hasStackTrace(run.stderr), run.stderr);
    }
    assertExit(await cli('feedback', first, '--score', '1'), 2);
  });

  it('usage summary: cost, the strongest model\'s cost, savings and measured quality per auto router', async () => {
    const run = await cli('usage', 'summary', '--owner', OWNER, '--since', '1d', '--json');
    assertExit(run, 0);
    const { routers } = parseJsonObject(run.stdout) as unknown as SummaryJson;
    assert.deepEqual(routers.map((router) => router.id), [autoId], 'only auto routers');
    const [auto] = routers;
    const usage = (parseJsonObject((await cli('usage', 'list', '--router', autoId, '--json')).stdout).usage as UsageJson[]);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    assert.equal(auto?.requests, 2);
    assert.ok(Math.abs((auto?.costUsd ?? 0) - sum(usage.map((row) => row.costUsd))) < 1e-9);
    assert.ok(Math.abs((auto?.counterfactualCostUsd ?? 0) - sum(usage.map((row) => row.counterfactualCostUsd ?? 0))) < 1e-9);
    assert.ok(Math.abs((auto?.savedUsd ?? 0) - ((auto?.counterfactualCostUsd ?? 0) - (auto?.costUsd ?? 0))) < 1e-9);
    assert.deepEqual(auto?.feedback, { count: 1, meanScore: 0 });
    const table = await cli('usage', 'summary', '--owner', OWNER);
    assertExit(table, 0);
    assert.match(table.stdout, /ROUTER\s+NAME\s+REQUESTS\s+COST \$\s+STRONGEST \$\s+SAVED \$/);
    assert.match(table.stdout, new RegExp(`${autoId}\\s+auto\\s+2\\s`));
    assertExit(await cli('usage', 'summary', '--owner', OWNER, '--router', 'rt_doesnotexist'), 1);
  });

  it('router calibrate fits the router from a file and prints the fit; --exploration sets the share', async () => {
    const file = join(database.directory, 'labelled.jsonl');
    const lines = Array.from({ length: 24 }, (_, index) => JSON.stringify({ prompt: `Question ${index}: what is ${index} squared?`, scores: { 'sim:small': index % 4 === 0 ? 0 : 1, 'sim:large': 1, 'acme:other': 1 } }));
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await cli('router', 'calibrate', '--owner', OWNER, '--id', autoId, '--file', file, '--json');
    assertExit(run, 0);
    const output = parseJsonObject(run.stdout) as { router: { settings: { autoFit?: { labels: number; fittedAt: string; models: Record<string, { labels: number }> } } }; ignored: string[] };
    assert.deepEqual(output.ignored, ['acme:other']);
    const fit = output.router.settings.autoFit;
    assert.ok(fit !== undefined, run.stdout);
    assert.deepEqual(Object.keys(fit.models).sort(), ['sim:large', 'sim:small']);
    assert.ok((fit.models['sim:large']?.labels ?? 0) >= 24);
    const human = await cli('router', 'calibrate', '--owner', OWNER, '--id', autoId, '--file', file);
    assertExit(human, 0);
    assert.equal(human.stdout, `${autoId}\n`);
    assert.match(human.stderr, /from 24 examples/);
    assert.match(human.stderr, /Ignored \(not in the router\): acme:other/);

    writeFileSync(file, `${lines[0] ?? ''}\nnot json\n`);
    const broken = await cli('router', 'calibrate', '--owner', OWNER, '--id', autoId, '--file', file);
    assertExit(broken, 1);
    assert.match(broken.stderr, /labelled\.jsonl line 2 is not valid JSON/);

    const set = await cli('router', 'update', '--owner', OWNER, '--id', autoId, '--exploration', '0.1', '--json');
    assertExit(set, 0);
    const settings = (parseJsonObject(set.stdout) as { router: { settings: { exploration?: number; autoFit?: unknown } } }).router.settings;
    assert.equal(settings.exploration, 0.1);
    assert.ok(settings.autoFit !== undefined, 'a settings change keeps the fit');
    const refused = await cli('router', 'update', '--owner', OWNER, '--id', autoId, '--exploration', '1.5');
    assertExit(refused, 1);
    assert.match(refused.stderr, /exploration: must be at most 1/);
  });
});
