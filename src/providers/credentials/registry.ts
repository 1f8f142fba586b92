import type { ChatModel, EmbeddingModel } from '../contract.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { createChatModelFor, createEmbeddingModelFor } from '../model-factory.js';
import { findPreset, type ProviderCredentials } from './provider-presets.js';
import { createSimChatModel, type SimSettings } from '../sim/sim-chat-model.js';
import { createSimEmbeddingModel } from '../sim/sim-embedding-model.js';

export interface ProvidersConfig {
  /** Server-wide credentials per provider name (see provider-presets.ts). */
  readonly credentials?: ReadonlyMap<string, ProviderCredentials>;
  /**
   * Providers whose base URL the operator set (readOperatorBaseUrls): called through `http`. The others, at
   * their preset's default address, through `guardedHttp`. @default every provider
   */
  readonly operatorBaseUrls?: ReadonlySet<string>;
  readonly sim: SimSettings;
  /** max_tokens to send to providers that require one (Anthropic) when the request has none. */
  readonly defaultMaxTokens?: (provider: string, modelId: string) => number | undefined;
}

/** The callable model for a `provider:model`, or undefined when it cannot be called. */
export type ModelResolver = (provider: string, modelId: string) => ChatModel | undefined;

/** The callable embedding model for a `provider:model`, or undefined when it cannot be called (or embeds nothing). */
export type EmbeddingResolver = (provider: string, modelId: string) => EmbeddingModel | undefined;

export interface ProviderRegistry {
  /** The callable model, or undefined when its provider is not configured here. */
  resolve(provider: string, modelId: string): ChatModel | undefined;
  /** The callable embedding model, or undefined when its provider is not configured here or has no embeddings. */
  resolveEmbedding(provider: string, modelId: string): EmbeddingModel | undefined;
  /** Providers that can be called. */
  configured(): readonly string[];
}

/**
 * Builds each model client once and reuses it: nothing is allocated per request. `guardedHttp` (the SSRF-guarded
 * pool) serves the addresses the operator did not set. @default http
 */
export function createProviderRegistry(config: ProvidersConfig, http: UpstreamHttp, guardedHttp: UpstreamHttp = http): ProviderRegistry {
  // Provider, then model: no `provider:model` string is built per lookup (several per request).
  const models = new Map<string, Map<string, ChatModel>>();
  const embeddingModels = new Map<string, Map<string, EmbeddingModel>>();
  const credentialsByProvider = config.credentials ?? new Map<string, ProviderCredentials>();
  const httpFor = (provider: string) => (config.operatorBaseUrls === undefined || config.operatorBaseUrls.has(provider) ? http : guardedHttp);

  const build = (provider: string, modelId: string): ChatModel | undefined => {
    if (provider === 'sim') return createSimChatModel(config.sim, modelId);
    const preset = findPreset(provider);
    const credentials = credentialsByProvider.get(provider);
    if (preset === undefined || credentials === undefined) return undefined;
    return createChatModelFor(preset, credentials, modelId, { http: httpFor(provider), defaultMaxTokens: config.defaultMaxTokens?.(provider, modelId) });
  };

  return {
    resolve(provider, modelId) {
      let ofProvider = models.get(provider);
      const cached = ofProvider?.get(modelId);
      if (cached !== undefined) return cached;
      const model = build(provider, modelId);
      if (model === undefined) return undefined;
      if (ofProvider === undefined) models.set(provider, (ofProvider = new Map()));
      ofProvider.set(modelId, model);
      return model;
    },
    resolveEmbedding(provider, modelId) {
      let ofProvider = embeddingModels.get(provider);
      const cached = ofProvider?.get(modelId);
      if (cached !== undefined) return cached;
      const preset = findPreset(provider);
      const credentials = credentialsByProvider.get(provider);
      const model =
        provider === 'sim'
          ? // The simulator's embedding models are named embed-*; its chat models embed nothing.
            modelId.startsWith('embed')
            ? createSimEmbeddingModel(config.sim, modelId)
            : undefined
          : preset === undefined || credentials === undefined
            ? undefined
            : createEmbeddingModelFor(preset, credentials, modelId, { http: httpFor(provider) });
      if (model === undefined) return undefined;
      if (ofProvider === undefined) embeddingModels.set(provider, (ofProvider = new Map()));
      ofProvider.set(modelId, model);
      return model;
    },
    configured: () => ['sim', ...credentialsByProvider.keys()],
  };
}
