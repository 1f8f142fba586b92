import type { MaybePromise } from '../../lib/maybe-promise.js';
import { createPromiseCache } from '../../lib/promise-cache.js';
import type { ServerSecret } from '../../lib/server-secret.js';
import type { ProviderCredentialsRepository } from '../../storage/provider-credentials-repository.js';
import type { ChatModel } from '../contract.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { createChatModelFor } from '../model-factory.js';
import { openOwnerEndpoint, type OwnerEndpoint } from './owner-credentials.js';
import type { ProviderPreset } from './provider-presets.js';
import type { ModelResolver, ProviderRegistry } from './registry.js';

export interface OwnerProviders {
  /**
   * The models one owner's routers call: the owner's own credentials first,
   * then the server-wide ones. Cached per owner until invalidate().
   */
  forOwner(ownerId: string): MaybePromise<ModelResolver>;
  invalidate(): void;
}

export interface OwnerProvidersOptions {
  /** Server-wide credentials (environment), for providers the owner brought no key for. */
  readonly registry: ProviderRegistry;
  readonly credentials: Pick<ProviderCredentialsRepository, 'listByOwner'>;
  readonly secret: ServerSecret;
  /** Where a preset lives when the owner gave no base URL: the server's address for it. */
  readonly serverBaseUrl: (preset: ProviderPreset) => string;
  /** For presets at the server's address. */
  readonly http: UpstreamHttp;
  /** For base URLs owners supplied: the SSRF-guarded pool, unless the operator allows private upstreams. */
  readonly ownerHttp: UpstreamHttp;
  readonly defaultMaxTokens?: (provider: string, modelId: string) => number | undefined;
  /** A credential that cannot be used (cannot be opened, bad URL): its provider is unavailable to the owner. */
  readonly onUnusable?: (ownerId: string, provider: string, error: unknown) => void;
}

/**
 * Owner-aware model resolution. Each owner's credentials are read and opened
 * once per change of the change counter, and each (owner, provider, model)
 * client is built once and reused until then: the hot path is a map lookup.
 * An owner with no credentials of their own gets the server-wide registry itself.
 */
export function createOwnerProviders(options: OwnerProvidersOptions): OwnerProviders {
  const serverWide: ModelResolver = (provider, modelId) => options.registry.resolve(provider, modelId);

  const load = async (ownerId: string): Promise<ModelResolver> => {
    const records = await options.credentials.listByOwner(ownerId);
    if (records.length === 0) return serverWide;
    // undefined: the owner has a credential for this provider that cannot be used; do not fall back to the server's key.
    const endpoints = new Map<string, OwnerEndpoint | undefined>();
    for (const record of records) {
      try {
        endpoints.set(record.provider, openOwnerEndpoint(record, options.secret.forOpening(), options.serverBaseUrl));
      } catch (error) {
        endpoints.set(record.provider, undefined);
        options.onUnusable?.(ownerId, record.provider, error);
      }
    }
    const models = new Map<string, ChatModel | undefined>();
    return (provider, modelId) => {
      if (!endpoints.has(provider)) return serverWide(provider, modelId);
      const id = `${provider}:${modelId}`;
      if (models.has(id)) return models.get(id);
      const endpoint = endpoints.get(provider);
      const model =
        endpoint === undefined
          ? undefined
          : createChatModelFor(endpoint.preset, endpoint.credentials, modelId, {
              http: endpoint.ownerSuppliedUrl ? options.ownerHttp : options.http,
              defaultMaxTokens: options.defaultMaxTokens?.(provider, modelId),
            });
      models.set(id, model);
      return model;
    };
  };

  const cache = createPromiseCache<string, ModelResolver>(50_000, load);
  return { forOwner: (ownerId) => cache.get(ownerId), invalidate: () => cache.clear() };
}

/** Every owner gets the server-wide registry (servers and tests built without storage). */
export function serverWideProvidersOnly(registry: ProviderRegistry): OwnerProviders {
  const resolve: ModelResolver = (provider, modelId) => registry.resolve(provider, modelId);
  return { forOwner: () => resolve, invalidate: () => undefined };
}
