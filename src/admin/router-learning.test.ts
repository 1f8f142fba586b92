import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { loadShippedCatalog } from '../catalog/catalog.js';
import { loadShippedAutoModel } from '../routing/auto/shipped-model.js';
import { migrateToLatest, openStorage, type Storage } from '../storage/database.js';
import { createRepositories, type Repositories } from '../storage/repositories.js';
import type { NewUsageRecord } from '../storage/schema.js';
import { AdminInputError } from './admin-errors.js';
import { calibrateRouterFromExamples, recordFeedback, routerSavings, type RouterLearningDependencies } from './router-learning.js';

const autoModel = loadShippedAutoModel();

function usage(id: string, ownerId: string, routerId: string, createdAt: number, sample: { model: string } | undefined): NewUsageRecord {
  return {
    id,
    created_at: createdAt,
    owner_id: ownerId,
    key_id: null,
    router_id: routerId,
    model: sample?.model ?? 'sim:small',
    status: 200,
    error_code: null,
    streamed: 0,
    prompt_tokens: 100,
    completion_tokens: 50,
    total_tokens: 150,
    cost_usd: 0.01,
    latency_ms: 1,
    carbon_grams: 0,
    attempts: 1,
    counterfactual_cost_usd: sample === undefined ? null : 0.04,
    routing_sample: sample === undefined ? undefined : { router_id: routerId, model_id: sample.model, vector: 'AACAPwAAAEA=' },
  };
}

describe('router learning (admin), on SQLite', () => {
  let database: TestDatabase;
  let storage: Storage;
  let repositories: Repositories;
  let deps: RouterLearningDependencies;
  const clock = Date.parse('2026-06-01T00:00:00Z');

  before(async () => {
    database = createSqliteDatabase();
    storage = openStorage(database.url);
    await migrateToLatest(storage);
    repositories = createRepositories(storage, () => clock);
    deps = { repositories, catalog: loadShippedCatalog(), now: () => clock, autoModel: async () => autoModel };
  });
  after(async () => {
    await storage.close();
    await database.drop();
  });

  it('feedback never crosses owners: a label lands only on its own owner\'s router, from its own sample', async () => {
    const owners = await Promise.all([0, 1, 2].map((index) => repositories.users.create(`owner${index}@example.com`, 'hash')));
    const routers = await Promise.all(
      owners.flatMap((owner) => [0, 1].map((index) => repositories.routers.create({ ownerId: owner.id, name: `r${index}`, strategy: 'auto', models: ['sim:small', 'sim:large'] }))),
    );
    let next = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ router: fc.nat(routers.length - 1), auto: fc.boolean(), model: fc.constantFrom('sim:small', 'sim:large') }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.record({ asker: fc.nat(owners.length - 1), target: fc.nat(40), score: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 8 }),
        async (requests, attempts) => {
          const made = requests.map((request) => {
            const router = routers[request.router];
            assert.ok(router !== undefined);
            next += 1;
            return { id: `req_prop${next}`, router, auto: request.auto, model: request.model };
          });
          await repositories.usage.insertMany(made.map((request) => usage(request.id, request.router.ownerId, request.router.id, clock, request.auto ? { model: request.model } : undefined)));
          for (const attempt of attempts) {
            const asker = owners[attempt.asker];
            assert.ok(asker !== undefined);
            const target = made[attempt.target % made.length];
            assert.ok(target !== undefined);
            const result = await recordFeedback(deps, { ownerId: asker.id, requestId: target.id, raterId: `key_${asker.id}`, score: attempt.score });
            if (target.router.ownerId === asker.id && target.auto) {
              assert.equal(result.label?.ownerId, asker.id);
              assert.equal(result.label?.routerId, target.router.id);
              assert.equal(result.label?.modelId, target.model);
              assert.equal(result.label?.score, attempt.score);
            } else {
              assert.equal(result.label, undefined);
              assert.ok(result.notFound !== undefined);
              // The message says nothing of whose the request is.
              for (const owner of owners) assert.ok(!result.notFound.includes(owner.id));
            }
          }
          const labels = await storage.db.selectFrom('routing_labels').innerJoin('routers', 'routers.id', 'routing_labels.router_id').select(['routing_labels.owner_id as labelOwner', 'routers.owner_id as routerOwner', 'routing_labels.key_id']).execute();
          for (const label of labels) {
            assert.equal(label.labelOwner, label.routerOwner);
            assert.equal(label.key_id, `key_${label.labelOwner}`);
          }
        },
      ),
      { numRuns: 40, seed: 23 },
    );
  });

  it('refuses scores outside 0..1 and comments over 2,000 characters', async () => {
    await assert.rejects(recordFeedback(deps, { ownerId: 'o', requestId: 'req_x', raterId: 'k', score: 1.01 }), AdminInputError);
    await assert.rejects(recordFeedback(deps, { ownerId: 'o', requestId: 'req_x', raterId: 'k', score: Number.NaN }), AdminInputError);
    await assert.rejects(recordFeedback(deps, { ownerId: 'o', requestId: 'req_x', raterId: 'k', score: 1, comment: 'x'.repeat(2001) }), AdminInputError);
  });

  it('calibrates: stores the examples as calibration labels (replacing earlier ones), fits at once, names ignored models', async () => {
    const owner = await repositories.users.create('calibrator@example.com', 'hash');
    const router = await repositories.routers.create({ ownerId: owner.id, name: 'auto', strategy: 'auto', models: ['sim:small', 'sim:large'], settings: { autoAbilities: { 'sim:small': { position: 0, offset: 0, examples: 3 } } } });
    const prompts = Array.from({ length: 30 }, (_, index) => `Question ${index}: what is ${index} squared?`);
    const examples = (count: number) => ({
      prompts: prompts.slice(0, count),
      subjects: prompts.slice(0, count).map(() => undefined),
      scores: new Map([
        ['sim:small', Float64Array.from(prompts.slice(0, count), (_, index) => index % 2)],
        ['sim:large', Float64Array.from(prompts.slice(0, count), () => 1)],
        ['openai:not-in-router', Float64Array.from(prompts.slice(0, count), () => 1)],
      ]),
    });
    const first = await calibrateRouterFromExamples(deps, { ownerId: owner.id, routerId: router.id, examples: examples(30) });
    assert.deepEqual(first.ignored, ['openai:not-in-router']);
    assert.deepEqual([...first.modelsFitted].sort(), ['sim:large', 'sim:small']);
    assert.equal(first.fit.labels, 60);
    assert.equal(first.router.settings.autoFit?.labels, 60);
    assert.equal(first.router.settings.autoAbilities, undefined);
    const second = await calibrateRouterFromExamples(deps, { ownerId: owner.id, routerId: router.id, examples: examples(10) });
    assert.equal(second.fit.labels, 20);
    assert.equal((await repositories.routingLabels.stats(router.id)).count, 20);
    await assert.rejects(calibrateRouterFromExamples(deps, { ownerId: 'someone else', routerId: router.id, examples: examples(10) }), AdminInputError);
    await assert.rejects(
      calibrateRouterFromExamples(deps, { ownerId: owner.id, routerId: router.id, examples: { prompts: ['a'], subjects: [undefined], scores: new Map([['x:y', Float64Array.of(1)]]) } }),
      /score none of the router's models/,
    );
  });

  it('reports savings per bucket with every bucket of the range and the feedback given', async () => {
    const owner = await repositories.users.create('saver@example.com', 'hash');
    const router = await repositories.routers.create({ ownerId: owner.id, name: 'auto', strategy: 'auto', models: ['sim:small', 'sim:large'] });
    const hour = 3_600_000;
    await repositories.usage.insertMany([usage('req_sav1', owner.id, router.id, clock + 10, { model: 'sim:small' }), usage('req_sav2', owner.id, router.id, clock + 2 * hour + 10, undefined)]);
    await recordFeedback(deps, { ownerId: owner.id, requestId: 'req_sav1', raterId: 'k1', score: 1 });
    await recordFeedback(deps, { ownerId: owner.id, requestId: 'req_sav1', raterId: 'k2', score: 0.5 });
    const report = await routerSavings(deps, { ownerId: owner.id, routerId: router.id, from: clock, to: clock + 3 * hour, bucket: 'hour' });
    assert.deepEqual(report.points.map((point) => [point.start - clock, point.requests, point.costUsd, point.counterfactualCostUsd]), [
      [0, 1, 0.01, 0.04],
      [hour, 0, 0, 0],
      [2 * hour, 1, 0.01, 0.01],
    ]);
    assert.deepEqual(report.points[0]?.feedback, { count: 2, meanScore: 0.75 });
    assert.deepEqual(report.points[1]?.feedback, { count: 0, meanScore: null });
    assert.equal(report.totals.requests, 2);
    assert.ok(Math.abs(report.totals.savedUsd - 0.03) < 1e-12);
    await assert.rejects(routerSavings(deps, { ownerId: 'other', routerId: router.id, from: clock, to: clock + hour, bucket: 'hour' }), AdminInputError);
    await assert.rejects(routerSavings(deps, { ownerId: owner.id, routerId: router.id, from: clock, to: clock + 5000 * hour, bucket: 'hour' }), /more than 1500/);
  });
});
