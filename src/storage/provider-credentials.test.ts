import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPostgresDatabase, createSqliteDatabase, type TestDatabase } from '../../test/support/databases.js';
import { migrateToLatest, openStorage, type Storage } from './database.js';
import { createRepositories, type Repositories } from './repositories.js';

/** Owners' provider credentials and custom models, on every dialect (SQLite always; Postgres when it answers). */
for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`provider credentials and custom models on ${dialect}`, () => {
    let database: TestDatabase | undefined;
    let storage: Storage;
    let repositories: Repositories;
    let clock = 1_700_000_000_000;
    let ownerId = '';
    let otherId = '';

    before(async () => {
      database = dialect === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
      if (database === undefined) return;
      storage = openStorage(database.url);
      await migrateToLatest(storage);
      await migrateToLatest(storage);
      repositories = createRepositories(storage, () => clock);
      ownerId = (await repositories.users.create('owner@example.com', 'hash')).id;
      otherId = (await repositories.users.create('other@example.com', 'hash')).id;
    });
    after(async () => {
      if (database === undefined) return;
      await storage.close();
      await database.drop();
    });

    it('stores, replaces, lists and removes credentials, bumping the change counter each time', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const v0 = await repositories.changes.current();
      const added = await repositories.providerCredentials.upsert({ ownerId, provider: 'openai', encryptedKey: 'v1:a:b:c', keyHint: 'wxyz' });
      assert.equal(added.replaced, false);
      assert.match(added.record.id, /^cred_/);
      assert.equal(added.record.baseUrl, undefined);
      const v1 = await repositories.changes.current();
      assert.ok(v1 > v0);

      clock += 1000;
      const replaced = await repositories.providerCredentials.upsert({ ownerId, provider: 'openai', baseUrl: 'https://proxy.example.com/v1', encryptedKey: 'v1:d:e:f', keyHint: '9876' });
      assert.equal(replaced.replaced, true);
      assert.equal(replaced.record.id, added.record.id, 'a rotation keeps the row');
      const found = await repositories.providerCredentials.find(ownerId, 'openai');
      assert.deepEqual(
        { baseUrl: found?.baseUrl, encryptedKey: found?.encryptedKey, keyHint: found?.keyHint, createdAt: found?.createdAt, updatedAt: found?.updatedAt },
        { baseUrl: 'https://proxy.example.com/v1', encryptedKey: 'v1:d:e:f', keyHint: '9876', createdAt: clock - 1000, updatedAt: clock },
      );
      assert.ok((await repositories.changes.current()) > v1);

      await repositories.providerCredentials.upsert({ ownerId, provider: 'acme', baseUrl: 'https://llm.acme.example/v1' });
      await repositories.providerCredentials.upsert({ ownerId: otherId, provider: 'openai', encryptedKey: 'v1:g:h:i' });
      assert.deepEqual((await repositories.providerCredentials.listByOwner(ownerId)).map((record) => record.provider), ['acme', 'openai']);
      assert.equal((await repositories.providerCredentials.find(ownerId, 'acme'))?.encryptedKey, undefined);

      await repositories.customModels.upsert(customModel(ownerId, 'acme', 'big'));
      await repositories.customModels.upsert(customModel(ownerId, 'acme', 'small'));
      const v2 = await repositories.changes.current();
      assert.deepEqual(await repositories.providerCredentials.remove(ownerId, 'acme', true), { removed: true, modelsRemoved: 2 });
      assert.ok((await repositories.changes.current()) > v2);
      assert.deepEqual(await repositories.providerCredentials.remove(ownerId, 'acme', true), { removed: false, modelsRemoved: 0 });
      assert.equal((await repositories.customModels.listByOwner(ownerId)).length, 0);
      assert.equal((await repositories.providerCredentials.find(otherId, 'openai'))?.encryptedKey, 'v1:g:h:i', "another owner's row is untouched");
    });

    it('refuses two rows for one owner and provider', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const row = { id: 'cred_dup', owner_id: otherId, provider: 'openai', base_url: null, encrypted_key: null, key_hint: null, created_at: clock, updated_at: clock };
      await assert.rejects(storage.db.insertInto('provider_credentials').values(row).execute());
    });

    it('stores custom models per owner, replaces their figures, and removes them', async (t) => {
      if (database === undefined) return t.skip('Postgres is not reachable on 127.0.0.1:5432');
      const v0 = await repositories.changes.current();
      const first = await repositories.customModels.upsert({ ...customModel(ownerId, 'openai', 'gpt-4o'), cachedInputPerMTok: 1.1, qualityScore: 1300 });
      assert.equal(first.replaced, false);
      assert.ok((await repositories.changes.current()) > v0);
      clock += 10;
      const second = await repositories.customModels.upsert({ ...customModel(ownerId, 'openai', 'gpt-4o'), inputPerMTok: 2.25, supportsVision: true });
      assert.equal(second.replaced, true);
      await repositories.customModels.upsert(customModel(otherId, 'openai', 'gpt-4o'));
      const [listed, ...rest] = await repositories.customModels.listByOwner(ownerId);
      assert.equal(rest.length, 0);
      assert.deepEqual(listed, {
        ownerId,
        provider: 'openai',
        model: 'gpt-4o',
        inputPerMTok: 2.25,
        outputPerMTok: 0.000002,
        cachedInputPerMTok: undefined,
        contextWindow: 32_000,
        maxOutputTokens: 4_000,
        supportsTools: true,
        supportsVision: true,
        qualityScore: undefined,
        activeParamsB: undefined,
        kind: 'chat',
        embedding: undefined,
        createdAt: clock - 10,
        updatedAt: clock,
      });
      const v1 = await repositories.changes.current();
      assert.equal(await repositories.customModels.remove(ownerId, 'openai', 'gpt-4o'), true);
      assert.equal(await repositories.customModels.remove(ownerId, 'openai', 'gpt-4o'), false);
      assert.ok((await repositories.changes.current()) > v1);
      assert.equal((await repositories.customModels.listByOwner(otherId)).length, 1);
    });
  });
}

function customModel(ownerId: string, provider: string, model: string) {
  return {
    ownerId,
    provider,
    model,
    inputPerMTok: 0.5,
    // Small fractions must survive the round trip exactly (double precision on both dialects).
    outputPerMTok: 0.000002,
    cachedInputPerMTok: undefined,
    contextWindow: 32_000,
    maxOutputTokens: 4_000,
    supportsTools: true,
    supportsVision: false,
    qualityScore: undefined,
    activeParamsB: undefined,
  };
}
