import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTempDatabase, hasStackTrace, parseJsonObject, runModelport, type CliRun } from './run-modelport.js';

const OWNER = 'owner@example.com';
const SIM_ENV = { MODELPORT_SIM_TIME_SCALE: '0', LOG_LEVEL: 'silent', MODELPORT_BOOTSTRAP: 'false' };

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

describe('modelport agent commands', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args, { env: SIM_ENV });
  let routerId = '';

  before(async () => {
    assertExit(await cli('user', 'create', '--email', OWNER, '--password', 'correct horse battery'), 0);
    const router = await cli('router', 'create', '--owner', OWNER, '--name', 'sims', '--models', 'sim:small,sim:medium', '--strategy', 'cost_optimized');
    assertExit(router, 0);
    routerId = router.stdout.trim();
  });
  after(() => database.remove());

  it('creates an agent from YAML, lists, shows, runs it in-process and shows the execution', async () => {
    const file = join(database.directory, 'agent.yaml');
    writeFileSync(
      file,
      [
        'name: summarize',
        'description: Two drafts, one answer',
        'steps:',
        '  - name: draft',
        `    router: ${routerId}`,
        '    prompt: "Draft about {{input}}"',
        '  - name: final',
        '    model: sim:medium',
        '    prompt: "Improve: {{steps.draft.output}}"',
        '',
      ].join('\n'),
    );
    const created = await cli('agent', 'create', '--owner', OWNER, '--file', file);
    assertExit(created, 0);
    assert.equal(created.stdout, 'summarize\n');
    assert.match(created.stderr, /version 1/);
    const again = await cli('agent', 'create', '--owner', OWNER, '--file', file, '--json');
    assertExit(again, 0);
    assert.equal((parseJsonObject(again.stdout).agent as { version: number }).version, 2);

    const list = await cli('agent', 'list', '--owner', OWNER);
    assertExit(list, 0);
    assert.match(list.stdout, /summarize\s+2\s+2/);

    const show = await cli('agent', 'show', 'summarize', '--owner', OWNER, '--json');
    assertExit(show, 0);
    assert.deepEqual(((parseJsonObject(show.stdout).agent as { versions: { version: number }[] }).versions).map((entry) => entry.version), [2, 1]);

    // The real executable: it builds the whole gateway, and must still exit once the answer is printed.
    const run = await runModelport(database.url, ['agent', 'run', 'summarize', '--owner', OWNER, '--input', 'tides', '--json'], { env: SIM_ENV, process: true });
    assertExit(run, 0);
    const result = parseJsonObject(run.stdout) as { execution_id: string; output: string; _meta: { steps_executed: number; models_used: string[] } };
    assert.equal(result._meta.steps_executed, 2);
    assert.deepEqual(result._meta.models_used, ['sim:small', 'sim:medium']);
    assert.ok(result.output.length > 0);

    const runs = await cli('agent', 'runs', 'summarize', '--owner', OWNER);
    assertExit(runs, 0);
    assert.ok(runs.stdout.includes(result.execution_id));
    const execution = await cli('agent', 'execution', result.execution_id, '--owner', OWNER, '--json');
    assertExit(execution, 0);
    const stored = parseJsonObject(execution.stdout).execution as { status: string; steps: { name: string; model: string }[] };
    assert.equal(stored.status, 'succeeded');
    assert.deepEqual(stored.steps.map((step) => [step.name, step.model]), [['draft', 'sim:small'], ['final', 'sim:medium']]);
  });

  it('refuses an invalid definition with exit 1, naming the field, without a stack trace', async () => {
    const file = join(database.directory, 'bad.json');
    writeFileSync(file, JSON.stringify({ name: 'bad', steps: [{ name: 'a', router: routerId, prompt: '{{steps.nope.output}}' }] }));
    const run = await cli('agent', 'create', '--owner', OWNER, '--file', file);
    assertExit(run, 1);
    assert.match(run.stderr, /steps\[0\]\.prompt: .*names no step/);
    assert.ok(!hasStackTrace(run.stderr));
    const missing = await cli('agent', 'show', '--owner', OWNER);
    assertExit(missing, 2);
    const unknown = await cli('agent', 'run', 'nobody', '--owner', OWNER, '--input', 'x');
    assertExit(unknown, 1);
    assert.match(unknown.stderr, /Agent "nobody" not found/);
  });
});
