import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createTempDatabase, parseJsonObject, runModelport, type CliRun } from './run-modelport.js';

const OWNER = 'budget@example.com';

function assertExit(run: CliRun, code: number): void {
  assert.equal(run.code, code, `exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
}

describe('modelport CLI: budgets on keys and routers, usage list by router', () => {
  const database = createTempDatabase();
  const cli = (...args: string[]) => runModelport(database.url, args);
  after(() => database.remove());

  it('sets budgets with key create, router create and router update, and refuses bad amounts and periods', async () => {
    assertExit(await cli('user', 'create', '--email', OWNER, '--password', 'a long budget passphrase'), 0);
    const router = await cli('router', 'create', '--owner', OWNER, '--name', 'r', '--models', 'sim:small', '--strategy', 'cost_optimized', '--budget-usd', '200', '--json');
    assertExit(router, 0);
    const routerJson = parseJsonObject(router.stdout) as { router: { id: string; budget: unknown } };
    assert.deepEqual(routerJson.router.budget, { usd: 200, period: 'month' });

    const key = await cli('key', 'create', '--owner', OWNER, '--name', 'k', '--budget-usd', '2.5', '--budget-period', 'day', '--json');
    assertExit(key, 0);
    assert.deepEqual((parseJsonObject(key.stdout) as { key: { budget: unknown } }).key.budget, { usd: 2.5, period: 'day' });

    const changed = await cli('router', 'update', '--owner', OWNER, '--id', routerJson.router.id, '--budget-usd', '300', '--budget-period', 'day', '--json');
    assertExit(changed, 0);
    assert.deepEqual((parseJsonObject(changed.stdout) as { router: { budget: unknown } }).router.budget, { usd: 300, period: 'day' });
    const removed = await cli('router', 'update', '--owner', OWNER, '--id', routerJson.router.id, '--budget-usd', 'none', '--json');
    assertExit(removed, 0);
    assert.equal((parseJsonObject(removed.stdout) as { router: { budget: unknown } }).router.budget, null);

    for (const [index, bad] of [['--budget-usd', '0'], ['--budget-usd=-3'], ['--budget-usd', 'lots'], ['--budget-usd', '5', '--budget-period', 'week'], ['--budget-period', 'day']].entries()) {
      // The first through the real executable: its exit code and stderr.
      const run = await runModelport(database.url, ['key', 'create', '--owner', OWNER, '--name', 'bad', ...bad], { process: index === 0 });
      assertExit(run, 1);
      assert.match(run.stderr, /budget/i);
    }
    const usage = await cli('usage', 'list', '--router', routerJson.router.id, '--json');
    assertExit(usage, 0);
    assert.deepEqual(parseJsonObject(usage.stdout), { usage: [] });
  });
});
