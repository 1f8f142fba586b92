import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createSqliteDatabase, type TestDatabase } from '../../../test/support/databases.js';
import { createServerSecret } from '../../lib/server-secret.js';
import { migrateToLatest, openStorage, type Storage } from '../../storage/database.js';
import { createRepositories, type Repositories } from '../../storage/repositories.js';
import { UpstreamError, type ChatModel } from '../contract.js';
import { createUpstreamDispatcher, defaultTimeouts, type UpstreamHttp } from '../transport/http-client.js';
import { createLocalProviderGate, parseLocalProviderAccess } from './local-provider-access.js';
import { credentialSealContext } from './owner-credentials.js';
import { createOwnerProviders, serverWideProvidersOnly, type OwnerProviders } from './owner-providers.js';
import type { ProviderCredentials } from './provider-presets.js';
import { createProviderRegistry } from './registry.js';
import { BLOCKED_ADDRESS_CODE, createGuardedDispatcher } from './ssrf-guard.js';

const SIM = { timeScale: 0, timing: () => ({ ttftMs: 0, tokensPerSecond: 1000 }) };

/**
 * A loopback listener stands in for the operator's Ollama (and for whatever else answers on the gateway's own
 * machine). `ollama` points at it through the operator's OLLAMA_BASE_URL; `groq` points at it too, but as if it were
 * the preset's default address (not set by the operator), which the SSRF guard must refuse at connection time.
 */
describe("owner providers: the operator's local servers, and addresses the operator did not set", () => {
  let database: TestDatabase;
  let storage: Storage;
  let repositories: Repositories;
  let listener: Server;
  let requests: string[];
  let http: UpstreamHttp;
  let guarded: UpstreamHttp;
  let owners: OwnerProviders;
  let registry: ReturnType<typeof createProviderRegistry>;
  let baseUrl = '';
  const ids = { alice: '', bob: '', carol: '', erin: '', dave: '', frank: '' };
  const secret = createServerSecret({ configured: 'test-secret-'.repeat(4), sqliteFile: undefined });

  const call = (model: ChatModel | undefined) => {
    assert.ok(model !== undefined, 'offered');
    return model.generate({ messages: [{ role: 'user', content: 'ping' }] }, { signal: AbortSignal.timeout(5_000) });
  };
  const refusedAtConnect = (error: unknown) => error instanceof UpstreamError && error.message.includes(BLOCKED_ADDRESS_CODE);

  before(async () => {
    requests = [];
    listener = createServer((request, response) => {
      requests.push(`${request.method} ${request.url}`);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'llama3.1', choices: [{ index: 0, message: { role: 'assistant', content: 'pong' }, finish_reason: 'stop' }] }));
    });
    listener.listen(0, '127.0.0.1');
    await once(listener, 'listening');
    baseUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/v1`;

    database = createSqliteDatabase();
    storage = openStorage(database.url);
    await migrateToLatest(storage);
    repositories = createRepositories(storage);
    for (const name of Object.keys(ids) as (keyof typeof ids)[]) ids[name] = (await repositories.users.create(`${name}@example.com`, 'h')).id;
    const box = secret.forSealing();
    const ownKey = (ownerId: string, provider: string, baseUrlOfTheirs?: string) =>
      repositories.providerCredentials.upsert({ ownerId, provider, baseUrl: baseUrlOfTheirs, encryptedKey: box.seal('sk-owner', credentialSealContext(ownerId, provider)) });
    // An owner's key for Ollama at the server's address: the operator's local server.
    await ownKey(ids.carol, 'ollama');
    await ownKey(ids.erin, 'ollama');
    // An owner's own base URL (as if written by hand past the save-time check): guarded at connection time.
    await ownKey(ids.dave, 'ollama', baseUrl);
    // An owner's key for a preset at its default address, which the operator did not set.
    await ownKey(ids.frank, 'groq');

    http = { dispatcher: createUpstreamDispatcher(defaultTimeouts), timeouts: defaultTimeouts };
    guarded = { dispatcher: createGuardedDispatcher(defaultTimeouts), timeouts: defaultTimeouts };
    const credentials = new Map<string, ProviderCredentials>([
      ['ollama', { baseUrl }],
      ['groq', { baseUrl, apiKey: 'gsk-server' }],
    ]);
    const operatorBaseUrls = new Set(['ollama']);
    registry = createProviderRegistry({ credentials, operatorBaseUrls, sim: SIM }, http, guarded);
    owners = createOwnerProviders({
      registry,
      credentials: repositories.providerCredentials,
      secret,
      serverBaseUrl: (preset) => credentials.get(preset.name)?.baseUrl ?? preset.defaultBaseUrl,
      operatorBaseUrls,
      http,
      ownerHttp: guarded,
      mayUseLocal: createLocalProviderGate(parseLocalProviderAccess(`alice@example.com,${ids.carol}`), (ownerId) => repositories.users.findById(ownerId)),
    });
  });
  after(async () => {
    await http.dispatcher.close();
    await guarded.dispatcher.close();
    listener.closeAllConnections();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    await storage.close();
    await database.drop();
  });

  it('offers the local server to an owner the operator named, and calls it', async () => {
    const resolve = await owners.forOwner(ids.alice);
    const before = requests.length;
    const result = await call(resolve('ollama', 'llama3.1'));
    assert.equal(result.message.content, 'pong');
    assert.deepEqual(requests.slice(before), ['POST /v1/chat/completions']);
    assert.ok((await owners.embeddingsForOwner(ids.alice))('ollama', 'nomic-embed-text') !== undefined);
  });

  it('neither offers nor calls it for an owner the operator did not name', async () => {
    assert.equal((await owners.forOwner(ids.bob))('ollama', 'llama3.1'), undefined);
    assert.equal((await owners.embeddingsForOwner(ids.bob))('ollama', 'nomic-embed-text'), undefined);
    assert.equal((await owners.forOwner(''))('ollama', 'llama3.1'), undefined, 'nor for no owner at all');
    assert.ok((await owners.forOwner(ids.bob))('sim', 'small') !== undefined, 'the simulator stays');
    assert.ok(registry.resolve('ollama', 'llama3.1') !== undefined, 'the server-wide registry has it: the owner gate hides it');
  });

  it("an owner's own key for a local preset reaches the operator's server only when the owner is named", async () => {
    const before = requests.length;
    assert.equal((await call((await owners.forOwner(ids.carol))('ollama', 'llama3.1'))).message.content, 'pong');
    assert.equal(requests.length, before + 1);
    assert.equal((await owners.forOwner(ids.erin))('ollama', 'llama3.1'), undefined, 'an unnamed owner with a key of their own');
  });

  it('refuses at connection time every address the operator did not set', async () => {
    const before = requests.length;
    await assert.rejects(call((await owners.forOwner(ids.bob))('groq', 'llama-3.3-70b-versatile')), refusedAtConnect, "a preset's default address on loopback");
    await assert.rejects(call((await owners.forOwner(ids.frank))('groq', 'llama-3.3-70b-versatile')), refusedAtConnect, "an owner's key at that default address");
    await assert.rejects(call((await owners.forOwner(ids.dave))('ollama', 'llama3.1')), refusedAtConnect, "an owner's own base URL on loopback");
    assert.equal(requests.length, before, 'nothing reached the listener');
  });

  it('without storage, the local servers are offered only when they are for everyone', async () => {
    assert.equal((await serverWideProvidersOnly(registry).forOwner('anyone'))('ollama', 'llama3.1'), undefined);
    assert.ok((await serverWideProvidersOnly(registry, true).forOwner('anyone'))('ollama', 'llama3.1') !== undefined);
  });
});
