import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChatModel } from '../providers/contract.js';
import type { LocalServerProbe, LocalServerState } from '../providers/credentials/local-server-probe.js';
import { availabilityOf } from './model-availability.js';

/** A probe whose answers the test sets: the providers the environment configured and the local servers' states. */
function fixedProbe(configured: readonly string[], states: Record<string, LocalServerState> = {}): LocalServerProbe {
  return {
    configured: (provider) => provider === 'sim' || configured.includes(provider),
    state: (provider) => states[provider],
    runOnce: async () => undefined,
    stop: async () => undefined,
  };
}

const serverModel = { provider: 'ollama', modelId: 'llama3.1' } as ChatModel;
const ownersModel = { provider: 'ollama', modelId: 'llama3.1' } as ChatModel;
const isServerModel = (model: ChatModel) => model === serverModel;
const OLLAMA = 'http://127.0.0.1:11434/v1';

describe('model availability and what would make a model available', () => {
  it('names the key variable of an unconfigured provider, and the own key when owners may bring one', () => {
    const openai = availabilityOf('openai', { resolved: undefined, isServerModel, probe: fixedProbe([]) });
    assert.deepEqual(openai, { available: false, unavailableReason: 'Set OPENAI_API_KEY (or add your own OpenAI key)' });
    const azure = availabilityOf('azure', { resolved: undefined, isServerModel, probe: fixedProbe([]) });
    assert.equal(azure.unavailableReason, 'Set AZURE_OPENAI_API_KEY and AZURE_OPENAI_ENDPOINT');
    const bedrock = availabilityOf('bedrock', { resolved: undefined, isServerModel, probe: fixedProbe([]) });
    assert.equal(bedrock.unavailableReason, 'Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  });

  it("blames the workspace's own key when the server has one yet the workspace cannot call the provider", () => {
    const { available, unavailableReason } = availabilityOf('anthropic', { resolved: undefined, isServerModel, probe: fixedProbe(['anthropic']) });
    assert.equal(available, false);
    assert.match(unavailableReason ?? '', /own Anthropic key cannot be used/);
  });

  it('a local server: its base URL variable when unset, MODELPORT_LOCAL_PROVIDERS when set but not offered', () => {
    const unset = availabilityOf('ollama', { resolved: undefined, isServerModel, probe: fixedProbe([]) });
    assert.equal(unset.unavailableReason, `Start Ollama and set OLLAMA_BASE_URL (e.g. ${OLLAMA}) and MODELPORT_LOCAL_PROVIDERS`);
    const notOffered = availabilityOf('ollama', { resolved: undefined, isServerModel, probe: fixedProbe(['ollama']) });
    assert.match(notOffered.unavailableReason ?? '', /not offered to this workspace \(MODELPORT_LOCAL_PROVIDERS\)/);
  });

  it("a configured local server counts by its last check; an owner's own endpoint is not checked", () => {
    const states = (state: LocalServerState) => fixedProbe(['ollama'], { ollama: state });
    const down = availabilityOf('ollama', {
      resolved: serverModel,
      isServerModel,
      probe: states({ kind: 'down', baseUrl: OLLAMA, checkedAt: 1, message: 'could not connect' }),
    });
    assert.deepEqual(down, { available: false, unavailableReason: `Not answering at ${OLLAMA}: could not connect. Start Ollama there, or set OLLAMA_BASE_URL to where it runs` });
    const unchecked = availabilityOf('ollama', { resolved: serverModel, isServerModel, probe: states({ kind: 'unchecked', baseUrl: OLLAMA }) });
    assert.equal(unchecked.available, false);
    assert.match(unchecked.unavailableReason ?? '', /^Checking whether Ollama answers/);
    assert.deepEqual(availabilityOf('ollama', { resolved: serverModel, isServerModel, probe: states({ kind: 'up', baseUrl: OLLAMA, checkedAt: 1 }) }), { available: true });
    const owners = availabilityOf('ollama', { resolved: ownersModel, isServerModel, probe: states({ kind: 'down', baseUrl: OLLAMA, checkedAt: 1, message: 'x' }) });
    assert.deepEqual(owners, { available: true });
  });

  it('a custom provider without credentials, and without a probe a configured provider is available', () => {
    assert.match(availabilityOf('acme', { resolved: undefined, isServerModel, probe: undefined }).unavailableReason ?? '', /custom provider "acme"/);
    assert.deepEqual(availabilityOf('ollama', { resolved: serverModel, isServerModel, probe: undefined }), { available: true });
  });
});
