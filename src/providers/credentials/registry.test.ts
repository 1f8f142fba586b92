import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createUpstreamDispatcher, defaultTimeouts } from '../transport/http-client.js';
import type { ProviderCredentials } from './provider-presets.js';
import { createProviderRegistry } from './registry.js';

describe('provider registry: embedding models beside chat models', () => {
  const http = { dispatcher: createUpstreamDispatcher(defaultTimeouts), timeouts: defaultTimeouts };
  const credentials = new Map<string, ProviderCredentials>([
    ['openai', { baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-server' }],
    ['anthropic', { baseUrl: 'https://api.anthropic.com', apiKey: 'sk-ant' }],
    ['gemini', { baseUrl: 'https://generativelanguage.googleapis.com', apiKey: 'AIza' }],
    ['azure', { baseUrl: 'https://res.openai.azure.com', apiKey: 'azure-key' }],
    ['bedrock', { baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com', apiKey: 'AKID', options: { region: 'us-east-1', secretAccessKey: 'secret' } }],
    ['ollama', { baseUrl: 'http://127.0.0.1:11434/v1' }],
  ]);
  const registry = createProviderRegistry({ credentials, sim: { timeScale: 0, timing: () => ({ ttftMs: 0, tokensPerSecond: 1000 }) } }, http);
  after(() => http.dispatcher.close());

  it('builds an embedding client for every configured format that has embeddings, once each', () => {
    for (const [provider, modelId] of [
      ['openai', 'text-embedding-3-small'],
      ['gemini', 'gemini-embedding-001'],
      ['azure', 'embed-deployment'],
      ['bedrock', 'amazon.titan-embed-text-v2:0'],
      ['ollama', 'nomic-embed-text'],
    ] as const) {
      const model = registry.resolveEmbedding(provider, modelId);
      assert.deepEqual({ provider: model?.provider, modelId: model?.modelId }, { provider, modelId });
      assert.equal(registry.resolveEmbedding(provider, modelId), model, `${provider}: built once`);
    }
  });

  it("none for a format without embeddings, the simulator's chat models, or a provider not configured here", () => {
    assert.equal(registry.resolveEmbedding('anthropic', 'claude-haiku-4-5'), undefined);
    assert.equal(registry.resolveEmbedding('sim', 'small'), undefined);
    assert.equal(registry.resolveEmbedding('sim', 'embed-small')?.modelId, 'embed-small');
    assert.equal(registry.resolveEmbedding('mistral', 'mistral-embed'), undefined);
  });

  it('keeps chat and embedding clients apart', () => {
    const chat = registry.resolve('openai', 'text-embedding-3-small');
    assert.ok(chat !== undefined && 'generate' in chat && !('embed' in chat));
    assert.ok('embed' in (registry.resolveEmbedding('openai', 'text-embedding-3-small') ?? {}));
  });
});
