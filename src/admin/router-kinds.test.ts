import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { loadShippedCatalog } from '../catalog/catalog.js';
import { layerOwnerModels } from '../catalog/owner-catalog.js';
import { migrateToLatest, openStorage, type Storage } from '../storage/database.js';
import { createRepositories, type Repositories } from '../storage/repositories.js';
import { AdminInputError } from './admin-errors.js';
import { createAdminService } from './admin-service.js';

const OWNER = 'owner@example.com';
const catalog = loadShippedCatalog();

/** The refusal `run` throws: an AdminInputError, with the field it names. */
async function refusal(run: () => Promise<unknown>): Promise<AdminInputError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof AdminInputError) return error;
    throw error;
  }
  throw new Error('not refused');
}

/** Routers' kinds and the rules checked when one is saved, and owners' embedding models, on every dialect. */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`router kinds on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repositories: Repositories;
    let admin: ReturnType<typeof createAdminService>;
    let ownerId = '';

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      repositories = createRepositories(storage, () => 1_700_000_000_000);
      admin = createAdminService(repositories, catalog);
      ownerId = (await admin.createUser(OWNER, 'password-123')).id;
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });
    const create = (models: string[], strategy = 'cost_optimized') => admin.createRouter({ ownerEmail: OWNER, name: 'r', models, strategy });

    it('saves an embedding router over deployments of one model, and says it serves embeddings', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const router = await create(['openai:text-embedding-3-small', 'azure:text-embedding-3-small'], 'latency_optimized');
      const chat = await create(['sim:small', 'sim:medium']);
      const kindOf = await admin.routerKinds(ownerId);
      assert.equal(kindOf(router), 'embedding');
      assert.equal(kindOf(chat), 'chat');
      const listed = await admin.listRoutersWithOwners(OWNER);
      assert.deepEqual(listed.map((entry) => [entry.router.id, entry.kind]).sort(), [[router.id, 'embedding'], [chat.id, 'chat']].sort());
    });

    it('refuses a router that mixes chat and embedding models, or vector spaces, with the reason', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const mixed = await refusal(() => create(['sim:small', 'sim:embed-small']));
      assert.equal(mixed.field, 'models');
      assert.match(mixed.message, /^A router serves either chat or embeddings, not both: sim:small is a chat model and sim:embed-small an embedding model/);
      const spaces = await refusal(() => create(['openai:text-embedding-3-small', 'openai:text-embedding-3-large']));
      assert.equal(spaces.field, 'models');
      assert.match(spaces.message, /openai\/text-embedding-3-small, openai:text-embedding-3-large openai\/text-embedding-3-large/);
      assert.match(spaces.message, /Vectors from different models are not comparable: a router may fall back only between deployments of the same model\./);
      await refusal(() => create(['gemini:gemini-embedding-001', 'bedrock:amazon.titan-embed-text-v2:0']));

      const router = await create(['openai:text-embedding-3-small']);
      const update = await refusal(() => admin.updateRouter({ ownerEmail: OWNER, id: router.id, models: ['openai:text-embedding-3-small', 'openai:gpt-4o-mini'] }));
      assert.match(update.message, /not both/);
    });

    it('refuses auto, which predicts chat answers, for an embedding router', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const created = await refusal(() => create(['sim:embed-small'], 'auto'));
      assert.equal(created.field, 'strategy');
      const router = await create(['sim:embed-small']);
      assert.equal((await refusal(() => admin.updateRouter({ ownerEmail: OWNER, id: router.id, strategy: 'auto' }))).field, 'strategy');
      const chat = await create(['sim:small'], 'auto');
      assert.equal((await refusal(() => admin.updateRouter({ ownerEmail: OWNER, id: chat.id, models: ['sim:embed-small'] }))).field, 'strategy');
    });

    it('lets an owner declare an embedding model with its vectors, and keeps a shipped one\'s', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const { model } = await admin.addModel({ ownerEmail: OWNER, id: 'ollama:my-embed', kind: 'embedding', dimensions: 768, space: 'nomic/nomic-embed-text-v1.5', inputPerMTok: 0 });
      assert.deepEqual([model.kind, model.embedding, model.outputPerMTok, model.maxOutputTokens], ['embedding', { dimensions: 768, shortenable: false, space: 'nomic/nomic-embed-text-v1.5' }, 0, 0]);
      // The same model on two servers: one space, so one router.
      const router = await create(['ollama:nomic-embed-text', 'ollama:my-embed']);
      const owned = layerOwnerModels(catalog, await repositories.customModels.listByOwner(ownerId));
      assert.deepEqual(owned.get('ollama:my-embed')?.embedding, { dimensions: 768, shortenable: false, space: 'nomic/nomic-embed-text-v1.5', maxBatch: 256 });

      // Declared again as another model's vectors, or as a chat model, it would break that router.
      const moved = await refusal(() => admin.addModel({ ownerEmail: OWNER, id: 'ollama:my-embed', kind: 'embedding', dimensions: 1024, space: 'baai/bge-m3', inputPerMTok: 0 }));
      assert.match(moved.message, new RegExp(`ollama:my-embed is in router "r" \\(${router.id}\\), which it would no longer fit`));
      await refusal(() => admin.addModel({ ownerEmail: OWNER, id: 'ollama:my-embed', inputPerMTok: 0, outputPerMTok: 0 }));

      const priced = await admin.addModel({ ownerEmail: OWNER, id: 'azure:text-embedding-3-small', inputPerMTok: 0.018 });
      assert.equal(priced.overridesShipped, true);
      const repriced = layerOwnerModels(catalog, await repositories.customModels.listByOwner(ownerId)).get('azure:text-embedding-3-small');
      assert.deepEqual([repriced?.kind, repriced?.embedding?.space, repriced?.pricing], ['embedding', 'openai/text-embedding-3-small', { inputPerMTok: 0.018, outputPerMTok: 0 }]);

      assert.match((await refusal(() => admin.addModel({ ownerEmail: OWNER, id: 'openai:gpt-4o', kind: 'embedding', dimensions: 8, inputPerMTok: 1 }))).message, /shipped chat model/);
      assert.match((await refusal(() => admin.addModel({ ownerEmail: OWNER, id: 'openai:text-embedding-3-small', dimensions: 256, inputPerMTok: 1 }))).message, /only its price can be yours/);
      assert.match((await refusal(() => admin.addModel({ ownerEmail: OWNER, id: 'ollama:x', kind: 'embedding', inputPerMTok: 0 }))).message, /needs --dimensions/);
      assert.match((await refusal(() => admin.addModel({ ownerEmail: OWNER, id: 'ollama:x', kind: 'embedding', dimensions: 8, inputPerMTok: 0, outputPerMTok: 1 }))).message, /priced by its input alone/);
      assert.match((await refusal(() => admin.addModel({ ownerEmail: OWNER, id: 'ollama:x', dimensions: 8, inputPerMTok: 0, outputPerMTok: 0 }))).message, /add --kind embedding/);
    });
  });
}
