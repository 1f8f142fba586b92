import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from './database.js';
import { createRepositories, type Repositories } from './repositories.js';

/** Agents, versions, executions and steps on every dialect (SQLite always; Postgres when it answers). */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`agent storage on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repositories: Repositories;
    let clock = 1_700_000_000_000;

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      repositories = createRepositories(storage, () => clock);
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    it('versions agents, keeps one live name per owner, and frees it on delete', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const owner = await repositories.users.create('agents@example.com', 'hash');
      const created = await repositories.agents.create(owner.id, 'research', 'd1', { name: 'research', steps: [] });
      assert.match(created.id, /^agt_/);
      clock += 1;
      const updated = await repositories.agents.update(owner.id, 'research', 'd2', { name: 'research', steps: [1] });
      assert.equal(updated?.version, 2);
      assert.deepEqual((await repositories.agents.findByName(owner.id, 'research'))?.definition, { name: 'research', steps: [1] });
      assert.deepEqual((await repositories.agents.listVersions(created.id)).map((version) => version.version), [2, 1]);
      await assert.rejects(repositories.agents.create(owner.id, 'research', 'dup', {}));
      assert.equal(await repositories.agents.remove(owner.id, 'research'), true);
      assert.equal(await repositories.agents.findByName(owner.id, 'research'), undefined);
      const again = await repositories.agents.create(owner.id, 'research', 'new', {});
      assert.notEqual(again.id, created.id);
      assert.equal(await repositories.agents.update(owner.id, 'nobody', '', {}), undefined);
    });

    it('stores an execution, its steps and its totals, scoped to the owner', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const owner = await repositories.users.create('runs@example.com', 'hash');
      const agent = await repositories.agents.create(owner.id, 'a', '', {});
      const executions = repositories.agentExecutions;
      await executions.start({ id: 'exe_1', ownerId: owner.id, agentId: agent.id, agentName: 'a', agentVersion: 1, keyId: undefined, streamed: false, input: 'hi', startedAt: clock });
      const step = {
        name: 's',
        position: 0,
        status: 'succeeded' as const,
        routerId: 'rt_x',
        model: 'sim:small',
        attempts: 1,
        promptTokens: 3,
        completionTokens: 4,
        costUsd: 0.000123,
        latencyMs: 12.5,
        carbonGrams: 0.01,
        output: 'out',
        errorCode: null,
        errorMessage: null,
        startedAt: clock,
        finishedAt: clock + 10,
      };
      await executions.recordStep('exe_1', step);
      assert.equal((await executions.find(owner.id, 'exe_1'))?.execution.status, 'running');
      await executions.finish('exe_1', {
        status: 'succeeded',
        output: 'out',
        errorCode: null,
        errorMessage: null,
        stepsExecuted: 1,
        totalCostUsd: 0.000123,
        totalLatencyMs: 20,
        totalCarbonGrams: 0.01,
        promptTokens: 3,
        completionTokens: 4,
        modelsUsed: ['sim:small'],
        finishedAt: clock + 20,
      });
      const found = await executions.find(owner.id, 'exe_1');
      assert.equal(found?.execution.status, 'succeeded');
      assert.deepEqual(found?.execution.modelsUsed, ['sim:small']);
      assert.deepEqual(found?.steps, [step]);
      assert.equal(await executions.find('usr_other', 'exe_1'), undefined);
      assert.deepEqual((await executions.listByAgent(owner.id, agent.id, 10)).map((execution) => execution.id), ['exe_1']);
    });
  });
}
