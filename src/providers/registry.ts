import type { ChatModel } from './contract.js';
import type { UpstreamHttp } from './http-client.js';
import { createOpenAIChatModel } from './openai/openai-chat-model.js';
import { createSimChatModel, type SimSettings } from './sim/sim-chat-model.js';

export interface ProvidersConfig {
  readonly openai?: { readonly apiKey?: string; readonly baseUrl: string };
  readonly sim: SimSettings;
}

export interface ProviderRegistry {
  /** The callable model, or undefined when its provider is not configured here. */
  resolve(provider: string, modelId: string): ChatModel | undefined;
  /** Providers that can be called (for docs, CLI and validation). */
  configured(): readonly string[];
}

/** Builds each model client once and reuses it: nothing is allocated per request. */
export function createProviderRegistry(config: ProvidersConfig, http: UpstreamHttp): ProviderRegistry {
  const factories = new Map<string, (modelId: string) => ChatModel>();
  factories.set('sim', (modelId) => createSimChatModel(config.sim, modelId));
  if (config.openai !== undefined) {
    const settings = { provider: 'openai', baseUrl: config.openai.baseUrl, http, ...(config.openai.apiKey ? { apiKey: config.openai.apiKey } : {}) };
    factories.set('openai', (modelId) => createOpenAIChatModel(settings, modelId));
  }
  const models = new Map<string, ChatModel>();
  return {
    resolve(provider, modelId) {
      const id = `${provider}:${modelId}`;
      const cached = models.get(id);
      if (cached !== undefined) return cached;
      const factory = factories.get(provider);
      if (factory === undefined) return undefined;
      const model = factory(modelId);
      models.set(id, model);
      return model;
    },
    configured: () => [...factories.keys()],
  };
}
