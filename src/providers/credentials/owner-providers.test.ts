import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createSqliteDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { createServerSecret } from '../../lib/server-secret.js';
import { loadShippedCatalog } from '../../catalog/catalog.js';
import { createOwnerCatalogs } from '../../catalog/owner-catalog.js';
import { migrateToLatest, openStorage, type Storage } from '../../storage/database.js';
import { createRepositories, type Repositories } from '../../storage/repositories.js';
import { createUpstreamDispatcher, defaultTimeouts, type UpstreamHttp } from '../transport/http-client.js';
import { credentialSealContext } from './owner-credentials.js';
import { createOwnerProviders, type OwnerProviders } from './owner-providers.js';
import { createProviderRegistry } from './registry.js';

describe('owner providers: their credentials first, then the server-wide ones, cached', () => {
  let database: TestDatabase;
  let storage: Storage;
  let repositories: Repositories;
  let http: UpstreamHttp;
  let owners: OwnerProviders;
  const unusable: string[] = [];
  const secret = createServerSecret({ configured: 'test-secret-'.repeat(4), sqliteFile: undefined });
  const registry = () =>
    createProviderRegistry({ credentials: new Map([['openai', { baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-server' }]]), sim: { timeScale: 0, timing: () => ({ ttftMs: 0, tokensPerSecond: 1000 }) } }, http);
  let serverRegistry: ReturnType<typeof registry>;
  let withKey = '';
  let withBadKey = '';
  let without = '';

  before(async () => {
    database = createSqliteDatabase();
    storage = openStorage(database.url);
    await migrateToLatest(storage);
    repositories = createRepositories(storage);
    http = { dispatcher: createUpstreamDispatcher(defaultTimeouts), timeouts: defaultTimeouts };
    serverRegistry = registry();
    withKey = (await repositories.users.create('a@example.com', 'h')).id;
    withBadKey = (await repositories.users.create('b@example.com', 'h')).id;
    without = (await repositories.users.create('c@example.com', 'h')).id;
    const box = secret.forSealing();
    await repositories.providerCredentials.upsert({ ownerId: withKey, provider: 'openai', encryptedKey: box.seal('sk-owner', credentialSealContext(withKey, 'openai')) });
    await repositories.providerCredentials.upsert({ ownerId: withKey, provider: 'acme', baseUrl: 'https://llm.acme.example/v1' });
    // Sealed for another owner's row: must not open here.
    await repositories.providerCredentials.upsert({ ownerId: withBadKey, provider: 'openai', encryptedKey: box.seal('sk-stolen', credentialSealContext(withKey, 'openai')) });
    owners = createOwnerProviders({
      registry: serverRegistry,
      credentials: repositories.providerCredentials,
      secret,
      serverBaseUrl: (preset) => preset.defaultBaseUrl,
      http,
      ownerHttp: http,
      onUnusable: (ownerId, provider) => unusable.push(`${ownerId}/${provider}`),
    });
  });
  after(async () => {
    await http.dispatcher.close();
    await storage.close();
    await database.drop();
  });

  it('builds each model client once per owner, and owners without credentials share the server-wide ones', async () => {
    const resolve = await owners.forOwner(withKey);
    assert.equal(await owners.forOwner(withKey), resolve, 'the resolver is cached');
    const own = resolve('openai', 'gpt-4o-mini');
    assert.ok(own !== undefined);
    assert.equal(resolve('openai', 'gpt-4o-mini'), own, 'the model client is cached');
    assert.notEqual(own, serverRegistry.resolve('openai', 'gpt-4o-mini'), "the owner's own client, not the server's");
    assert.equal(resolve('acme', 'llama')?.provider, 'acme', 'a custom provider');
    assert.equal(resolve('sim', 'small'), serverRegistry.resolve('sim', 'small'), 'other providers: the server-wide client');

    const plain = await owners.forOwner(without);
    assert.equal(plain('openai', 'gpt-4o-mini'), serverRegistry.resolve('openai', 'gpt-4o-mini'));
    assert.equal(plain('acme', 'llama'), undefined, "another owner's custom provider is not theirs");
  });

  it('skips a provider whose stored key does not open, without falling back to the server key', async () => {
    const resolve = await owners.forOwner(withBadKey);
    assert.equal(resolve('openai', 'gpt-4o-mini'), undefined);
    assert.deepEqual(unusable, [`${withBadKey}/openai`]);
  });

  it('resolves embedding models alike: own credentials first, each client built once, the credentials opened once for both', async () => {
    const embeddings = await owners.embeddingsForOwner(withKey);
    assert.equal(await owners.embeddingsForOwner(withKey), embeddings, 'the resolver is cached');
    const own = embeddings('openai', 'text-embedding-3-small');
    assert.ok(own !== undefined);
    assert.equal(embeddings('openai', 'text-embedding-3-small'), own, 'the model client is cached');
    assert.notEqual(own, serverRegistry.resolveEmbedding('openai', 'text-embedding-3-small'), "the owner's own client, not the server's");
    assert.equal(embeddings('acme', 'embed-v1')?.provider, 'acme', 'a custom provider');
    assert.equal(embeddings('sim', 'embed-small')?.provider, 'sim', 'the offline simulator embeds too (sim:embed-small)');

    const plain = await owners.embeddingsForOwner(without);
    assert.equal(plain('openai', 'text-embedding-3-small'), serverRegistry.resolveEmbedding('openai', 'text-embedding-3-small'));
    assert.equal((await owners.embeddingsForOwner(withBadKey))('openai', 'text-embedding-3-small'), undefined, 'no fallback to the server key');
    assert.deepEqual(unusable, [`${withBadKey}/openai`], 'a credential that does not open is reported once, for chat and embeddings');
  });

  it('reads the credentials again after invalidate()', async () => {
    const before = await owners.forOwner(without);
    await repositories.providerCredentials.upsert({ ownerId: without, provider: 'acme', baseUrl: 'https://llm.acme.example/v1' });
    assert.equal(await owners.forOwner(without), before, 'cached until the change watcher says otherwise');
    owners.invalidate();
    assert.equal((await owners.forOwner(without))('acme', 'llama')?.provider, 'acme');
    assert.equal((await owners.embeddingsForOwner(without))('acme', 'embed-v1')?.provider, 'acme');
  });

  it("layers the owner's models over the shipped catalog", async () => {
    const shipped = loadShippedCatalog();
    const catalogs = createOwnerCatalogs(shipped, repositories.customModels);
    const base = { provider: 'openai', cachedInputPerMTok: undefined, contextWindow: 128_000, maxOutputTokens: 16_384, supportsTools: true, supportsVision: true, qualityScore: undefined, activeParamsB: undefined };
    await repositories.customModels.upsert({ ...base, ownerId: withKey, model: 'gpt-4o', inputPerMTok: 1, outputPerMTok: 4 });
    await repositories.customModels.upsert({ ...base, ownerId: withKey, provider: 'acme', model: 'llama', inputPerMTok: 0.5, outputPerMTok: 0.5, supportsVision: false });
    const theirs = await catalogs.forOwner(withKey);
    assert.equal(await catalogs.forOwner(without), shipped, 'no models declared: the shipped catalog itself');
    assert.deepEqual(theirs.get('openai:gpt-4o')?.pricing, { inputPerMTok: 1, outputPerMTok: 4 });
    assert.equal(theirs.get('openai:gpt-4o')?.qualityScore, shipped.get('openai:gpt-4o')?.qualityScore, 'the rest stays shipped');
    assert.equal(theirs.get('openai:gpt-4o-mini'), shipped.get('openai:gpt-4o-mini'));
    assert.equal(theirs.get('acme:llama')?.capabilities.vision, false);
    assert.equal(theirs.list().length, shipped.list().length + 1);
    assert.equal(shipped.get('openai:gpt-4o')?.pricing.inputPerMTok, 2.5, 'the shipped catalog is untouched');
  });
});
