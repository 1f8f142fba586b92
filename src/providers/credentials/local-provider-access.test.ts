import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../config.js';
import { LocalProviderAccessError, createLocalProviderGate, isLocalProvider, parseLocalProviderAccess, unreachableLocalProviders } from './local-provider-access.js';
import { readOperatorBaseUrls, readProviderCredentials } from './provider-presets.js';

const OWNERS: Readonly<Record<string, string>> = { usr_alice: 'alice@example.com', usr_bob: 'bob@example.com', org_team: 'org_team@organizations.invalid' };

/** A users table of three, counting lookups. */
function ownersTable() {
  const lookups: string[] = [];
  const findOwner = async (ownerId: string) => {
    lookups.push(ownerId);
    const email = OWNERS[ownerId];
    return email === undefined ? undefined : { email };
  };
  return { findOwner, lookups };
}

describe('local providers: only the local presets, only once the operator sets their base URL', () => {
  it('names the four local servers and no hosted provider or the simulator', () => {
    assert.deepEqual(['ollama', 'vllm', 'lmstudio', 'llamacpp'].map(isLocalProvider), [true, true, true, true]);
    assert.deepEqual(['openai', 'groq', 'azure', 'bedrock', 'sim', 'acme'].map(isLocalProvider), [false, false, false, false, false, false]);
  });

  it('leaves a local preset unconfigured at its default address, and configures it when its base URL is set', () => {
    const bare = readProviderCredentials({});
    assert.deepEqual([...bare.keys()], [], 'nothing without configuration: no local server at 127.0.0.1');
    const keyOnly = readProviderCredentials({ OLLAMA_API_KEY: 'k' });
    assert.equal(keyOnly.get('ollama'), undefined, 'a key alone does not say where the server is');
    const configured = readProviderCredentials({ OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1', VLLM_BASE_URL: 'http://gpu-box:8000/v1', VLLM_API_KEY: 'vk' });
    assert.deepEqual(configured.get('ollama'), { baseUrl: 'http://127.0.0.1:11434/v1' });
    assert.deepEqual(configured.get('vllm'), { baseUrl: 'http://gpu-box:8000/v1', apiKey: 'vk' });
    assert.equal(configured.get('lmstudio'), undefined);
  });

  it("records which base URLs are the operator's: the variables set, not the presets' defaults", () => {
    const operator = readOperatorBaseUrls({ OPENAI_API_KEY: 'sk', GROQ_API_KEY: 'g', GROQ_BASE_URL: 'http://10.0.0.5/v1', OLLAMA_BASE_URL: ' ', AZURE_OPENAI_ENDPOINT: 'https://r.openai.azure.com' });
    assert.deepEqual([...operator].sort(), ['azure', 'groq'], 'OPENAI at its default and an empty OLLAMA_BASE_URL are not set');
  });
});

describe('MODELPORT_LOCAL_PROVIDERS', () => {
  it('is none by default and when empty', () => {
    assert.deepEqual(parseLocalProviderAccess(undefined), { kind: 'none' });
    assert.deepEqual(parseLocalProviderAccess(' '), { kind: 'none' });
    assert.deepEqual(loadConfig({}).localProviders, { kind: 'none' });
  });

  it('reads all, none, and owner ids and emails separated by commas or spaces', () => {
    assert.deepEqual(parseLocalProviderAccess('ALL'), { kind: 'all' });
    assert.deepEqual(parseLocalProviderAccess('none'), { kind: 'none' });
    const named = parseLocalProviderAccess('usr_alice, Bob@Example.com org_team');
    assert.equal(named.kind, 'owners');
    if (named.kind !== 'owners') return;
    assert.deepEqual([...named.ownerIds], ['usr_alice', 'org_team']);
    assert.deepEqual([...named.emails], ['bob@example.com'], 'emails compared without case');
  });

  it('refuses a keyword mixed with names, and entries that are neither an id nor an email', () => {
    assert.throws(() => parseLocalProviderAccess('all,usr_alice'), LocalProviderAccessError);
    assert.throws(() => parseLocalProviderAccess('alice@'), /not an email address/);
    assert.throws(() => parseLocalProviderAccess('usr_alice;rm'), /neither an owner id/);
    assert.throws(() => loadConfig({ MODELPORT_LOCAL_PROVIDERS: 'none,all' }), /MODELPORT_LOCAL_PROVIDERS: .*stand alone/);
  });
});

describe('local provider gate', () => {
  it('none lets nobody in, all everybody, without reading the users table', async () => {
    const { findOwner, lookups } = ownersTable();
    const none = createLocalProviderGate(parseLocalProviderAccess('none'), findOwner);
    const all = createLocalProviderGate(parseLocalProviderAccess('all'), findOwner);
    assert.deepEqual(await Promise.all(['usr_alice', 'usr_bob', ''].map(none)), [false, false, false]);
    assert.deepEqual(await Promise.all(['usr_alice', 'usr_bob', ''].map(all)), [true, true, true]);
    assert.deepEqual(lookups, []);
  });

  it('lets in the owners named by id, or whose account has a named email, and nobody else', async () => {
    const { findOwner, lookups } = ownersTable();
    const gate = createLocalProviderGate(parseLocalProviderAccess('org_team,ALICE@example.com'), findOwner);
    assert.equal(gate('org_team'), true, 'a named id answers at once');
    assert.equal(await gate('usr_alice'), true);
    assert.equal(await gate('usr_bob'), false);
    assert.equal(await gate('usr_nobody'), false, 'an owner that does not exist');
    assert.equal(await gate(''), false, 'no owner at all (the catalog without a workspace)');
    assert.deepEqual(lookups, ['usr_alice', 'usr_bob', 'usr_nobody']);

    const idsOnly = ownersTable();
    const byId = createLocalProviderGate(parseLocalProviderAccess('usr_bob'), idsOnly.findOwner);
    assert.deepEqual([byId('usr_bob'), byId('usr_alice')], [true, false]);
    assert.deepEqual(idsOnly.lookups, [], 'no email named: no lookup');
  });

  it('warns at start about local servers configured for nobody', () => {
    const configured = readProviderCredentials({ OLLAMA_BASE_URL: 'http://127.0.0.1:11434/v1', AZURE_OPENAI_API_KEY: 'k', AZURE_OPENAI_ENDPOINT: 'https://r.openai.azure.com' });
    assert.deepEqual(unreachableLocalProviders(parseLocalProviderAccess('none'), configured.keys()), ['OLLAMA_BASE_URL']);
    assert.deepEqual(unreachableLocalProviders(parseLocalProviderAccess('usr_alice'), configured.keys()), []);
  });
});
