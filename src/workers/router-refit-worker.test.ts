import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { loadShippedCatalog } from '../catalog/catalog.js';
import { createAutoPredictor } from '../routing/auto/auto-predictor.js';
import { createPromptVectorizer, encodePromptVector } from '../routing/auto/prompt-vector.js';
import { loadShippedAutoModel } from '../routing/auto/shipped-model.js';
import { migrateToLatest, openStorage, type Storage } from '../storage/database.js';
import { createRepositories, type Repositories } from '../storage/repositories.js';
import { startRouterRefitWorker, type RouterRefitWorker } from './router-refit-worker.js';

const autoModel = loadShippedAutoModel();
const catalog = loadShippedCatalog();
const vectorize = createPromptVectorizer(autoModel);

/** Two gateway instances on one database: each its own connection, repositories and refit worker. */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`background refit on ${dialect}, two instances`, () => {
    let database: TestDatabase | undefined;
    const storages: Storage[] = [];
    let instances: { repositories: Repositories; worker: RouterRefitWorker; errors: unknown[] }[] = [];
    let routerId = '';
    let ownerId = '';

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      for (let index = 0; index < 2; index += 1) {
        const storage = openStorage(database.url);
        await migrateToLatest(storage);
        storages.push(storage);
      }
      instances = storages.map((storage, index) => {
        const repositories = createRepositories(storage);
        const errors: unknown[] = [];
        const worker = startRouterRefitWorker(
          { repositories, now: Date.now, catalogFor: async () => catalog, autoModel: async () => autoModel, onError: (error) => errors.push(error) },
          // Passes only when the test asks (runOnce): the timer never fires within it.
          { intervalMs: 3_600_000, samplesPerRouter: 5, holder: `instance-${index}` },
        );
        return { repositories, worker, errors };
      });
      const repositories = instances[0]?.repositories;
      assert.ok(repositories !== undefined);
      ownerId = (await repositories.users.create('owner@example.com', 'hash')).id;
      routerId = (await repositories.routers.create({ ownerId, name: 'auto', strategy: 'auto', models: ['sim:small', 'sim:large'] })).id;
      const prompts = Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? `Prove that the sum of the first ${index} odd numbers is a square.` : `Say hello to ${index} friends.`));
      const labels = prompts.flatMap((prompt, index) => {
        const vector = encodePromptVector(vectorize(prompt));
        return [
          { modelId: 'sim:small', vector, score: index % 2 === 0 ? 0 : 1 },
          { modelId: 'sim:large', vector, score: 1 },
        ];
      });
      await repositories.routingLabels.replaceCalibration(ownerId, routerId, labels);
    });
    after(async () => {
      if (database === undefined) return;
      for (const instance of instances) await instance.worker.stop();
      for (const storage of storages) await storage.close();
      await database.drop();
    });

    it('fits a router whose labels changed once, on one instance, and both see it fitted', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const [one, two] = instances;
      assert.ok(one !== undefined && two !== undefined);
      const versionBefore = await one.repositories.changes.current();
      const fitted = await Promise.all([one.worker.runOnce(), two.worker.runOnce()]);
      assert.deepEqual(fitted.flat(), [routerId], `fitted by: ${JSON.stringify(fitted)}`);
      const router = await two.repositories.routers.findById(routerId);
      assert.equal(router?.settings.autoFit?.labels, 80);
      assert.deepEqual(Object.keys(router?.settings.autoFit?.models ?? {}).sort(), ['sim:large', 'sim:small']);
      // Written as a router edit: every instance's change watcher hears of it.
      assert.ok((await one.repositories.changes.current()) > versionBefore);
      assert.deepEqual((await Promise.all([one.worker.runOnce(), two.worker.runOnce()])).flat(), []);
      assert.deepEqual([...one.errors, ...two.errors], []);
    });

    it('refits after new feedback, and never while another holder has the lease', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const [one, two] = instances;
      assert.ok(one !== undefined && two !== undefined);
      await one.repositories.usage.insertMany([
        {
          id: 'req_feedback1',
          created_at: Date.now(),
          owner_id: ownerId,
          key_id: null,
          router_id: routerId,
          model: 'sim:small',
          status: 200,
          error_code: null,
          streamed: 0,
          prompt_tokens: 1,
          completion_tokens: 1,
          total_tokens: 2,
          cost_usd: 0,
          latency_ms: 1,
          carbon_grams: 0,
          attempts: 1,
          routing_sample: { router_id: routerId, model_id: 'sim:small', vector: encodePromptVector(vectorize('Prove it.')) },
        },
      ]);
      const sample = await one.repositories.routingLabels.findSample('req_feedback1');
      assert.ok(sample !== undefined);
      await one.repositories.routingLabels.upsertFeedback(sample, 'key_1', 0, null);
      assert.equal(await one.repositories.routingLabels.acquireRefitLease(routerId, 'a third instance', Date.now() + 60_000), true);
      assert.deepEqual((await Promise.all([one.worker.runOnce(), two.worker.runOnce()])).flat(), []);
      await one.repositories.routingLabels.releaseRefitLease(routerId, 'a third instance');
      assert.deepEqual((await Promise.all([two.worker.runOnce(), one.worker.runOnce()])).flat(), [routerId]);
      assert.equal((await one.repositories.routers.findById(routerId))?.settings.autoFit?.labels, 81);
    });

    it('keeps decisions flowing while it fits: between any two slices of a fit, routing decisions ran', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const [one] = instances;
      assert.ok(one !== undefined);
      const labels = Array.from({ length: 6000 }, (_, index) => ({ modelId: index % 2 === 0 ? 'sim:small' : 'sim:large', vector: encodePromptVector(vectorize(`Question ${index % 300}: ${'why '.repeat(index % 7)}`)), score: index % 3 === 0 ? 0 : 1 }));
      await one.repositories.routingLabels.replaceCalibration(ownerId, routerId, labels);
      // Routing decisions as the gateway makes them, queued turn after turn while the fit runs.
      const predictor = createAutoPredictor(autoModel);
      const candidates = ['sim:small', 'sim:large'].map((id) => {
        const model = catalog.get(id);
        assert.ok(model !== undefined);
        return model;
      });
      let decisions = 0;
      let deciding = true;
      const decide = () => {
        predictor.assess('What is the capital of France?', candidates, {});
        decisions += 1;
        if (deciding) setImmediate(decide);
      };
      setImmediate(decide);
      const between: number[] = [];
      let seen = 0;
      const worker = startRouterRefitWorker(
        {
          repositories: one.repositories,
          now: Date.now,
          catalogFor: async () => catalog,
          autoModel: async () => autoModel,
          onError: (error) => one.errors.push(error),
          yieldToLoop: async () => {
            await new Promise<void>((resolve) => setImmediate(resolve));
            between.push(decisions - seen);
            seen = decisions;
          },
        },
        { intervalMs: 3_600_000, samplesPerRouter: 5, holder: 'the observed instance' },
      );
      const fitted = await worker.runOnce();
      deciding = false;
      await worker.stop();
      assert.deepEqual(fitted, [routerId]);
      // The fit of 6,000 labels is cut into many slices, and no two slices ran back to back without a decision.
      assert.ok(between.length > 10, `${between.length} slices`);
      assert.ok(between.every((count) => count > 0), `decisions between slices: ${between.join(',')}`);
    });

    it('prunes samples to the newest per router', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const [one] = instances;
      assert.ok(one !== undefined);
      const base = Date.now();
      await one.repositories.usage.insertMany(
        Array.from({ length: 12 }, (_, index) => ({
          id: `req_prune${String(index).padStart(2, '0')}`,
          created_at: base + index,
          owner_id: ownerId,
          key_id: null,
          router_id: routerId,
          model: 'sim:small',
          status: 200,
          error_code: null,
          streamed: 0,
          prompt_tokens: 1,
          completion_tokens: 1,
          total_tokens: 2,
          cost_usd: 0,
          latency_ms: 1,
          carbon_grams: 0,
          attempts: 1,
          routing_sample: { router_id: routerId, model_id: 'sim:small', vector: 'AAAA' },
        })),
      );
      await one.worker.runOnce();
      assert.equal(await one.repositories.routingLabels.findSample('req_prune06'), undefined);
      assert.ok((await one.repositories.routingLabels.findSample('req_prune07')) !== undefined);
      assert.ok((await one.repositories.routingLabels.findSample('req_prune11')) !== undefined);
    });
  });
}
