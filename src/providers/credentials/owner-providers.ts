import type { MaybePromise } from '../../lib/maybe-promise.js';
import { createPromiseCache } from '../../lib/promise-cache.js';
import type { ServerSecret } from '../../lib/server-secret.js';
import type { ProviderCredentialsRepository } from '../../storage/provider-credentials-repository.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { createChatModelFor, createEmbeddingModelFor } from '../model-factory.js';
import { openOwnerEndpoint, type OwnerEndpoint } from './owner-credentials.js';
import type { ProviderPreset } from './provider-presets.js';
import type { EmbeddingResolver, ModelResolver, ProviderRegistry } from './registry.js';

export interface OwnerProviders {
  /**
   * The models one owner's routers call: the owner's own credentials first,
   * then the server-wide ones. Cached per owner until invalidate().
   */
  forOwner(ownerId: string): MaybePromise<ModelResolver>;
  /** The embedding models one owner's routers call, resolved as `forOwner` resolves chat models. */
  embeddingsForOwner(ownerId: string): MaybePromise<EmbeddingResolver>;
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
 * An owner's own endpoints by provider, or undefined when they brought none.
 * An undefined endpoint: the owner has a credential for this provider that cannot be used; the server's key is
 * not used in its place.
 */
type OwnerEndpoints = ReadonlyMap<string, OwnerEndpoint | undefined> | undefined;

/**
 * Owner-aware model resolution. Each owner's credentials are read and opened
 * once per change of the change counter (chat and embeddings share them), and
 * each (owner, provider, model) client is built once and reused until then: the
 * hot path is a map lookup. An owner with no credentials of their own gets the
 * server-wide registry itself.
 */
export function createOwnerProviders(options: OwnerProvidersOptions): OwnerProviders {
  const serverWide: ModelResolver = (provider, modelId) => options.registry.resolve(provider, modelId);
  const serverWideEmbeddings: EmbeddingResolver = (provider, modelId) => options.registry.resolveEmbedding(provider, modelId);
  const httpFor = (endpoint: OwnerEndpoint): UpstreamHttp => (endpoint.ownerSuppliedUrl ? options.ownerHttp : options.http);

  const loadEndpoints = async (ownerId: string): Promise<OwnerEndpoints> => {
    const records = await options.credentials.listByOwner(ownerId);
    if (records.length === 0) return undefined;
    const endpoints = new Map<string, OwnerEndpoint | undefined>();
    for (const record of records) {
      try {
        endpoints.set(record.provider, openOwnerEndpoint(record, options.secret.forOpening(), options.serverBaseUrl));
      } catch (error) {
        endpoints.set(record.provider, undefined);
        options.onUnusable?.(ownerId, record.provider, error);
      }
    }
    return endpoints;
  };
  const endpointsCache = createPromiseCache<string, OwnerEndpoints>(50_000, loadEndpoints);

  const loadChat = async (ownerId: string): Promise<ModelResolver> => {
    const endpoints = await endpointsCache.get(ownerId);
    if (endpoints === undefined) return serverWide;
    return ownerResolver(endpoints, serverWide, (endpoint, provider, modelId) =>
      createChatModelFor(endpoint.preset, endpoint.credentials, modelId, { http: httpFor(endpoint), defaultMaxTokens: options.defaultMaxTokens?.(provider, modelId) }),
    );
  };
  const loadEmbeddings = async (ownerId: string): Promise<EmbeddingResolver> => {
    const endpoints = await endpointsCache.get(ownerId);
    if (endpoints === undefined) return serverWideEmbeddings;
    return ownerResolver(endpoints, serverWideEmbeddings, (endpoint, _provider, modelId) =>
      createEmbeddingModelFor(endpoint.preset, endpoint.credentials, modelId, { http: httpFor(endpoint) }),
    );
  };

  const chat = createPromiseCache<string, ModelResolver>(50_000, loadChat);
  const embeddings = createPromiseCache<string, EmbeddingResolver>(50_000, loadEmbeddings);
  return {
    forOwner: (ownerId) => chat.get(ownerId),
    embeddingsForOwner: (ownerId) => embeddings.get(ownerId),
    invalidate: () => {
      endpointsCache.clear();
      chat.clear();
      embeddings.clear();
    },
  };
}

/** An owner's resolver: their own endpoints' models, built once each, and the server-wide ones for other providers. */
function ownerResolver<M>(
  endpoints: ReadonlyMap<string, OwnerEndpoint | undefined>,
  serverWide: (provider: string, modelId: string) => M | undefined,
  build: (endpoint: OwnerEndpoint, provider: string, modelId: string) => M | undefined,
): (provider: string, modelId: string) => M | undefined {
  const models = new Map<string, M | undefined>();
  return (provider, modelId) => {
    if (!endpoints.has(provider)) return serverWide(provider, modelId);
    const id = `${provider}:${modelId}`;
    if (models.has(id)) return models.get(id);
    const endpoint = endpoints.get(provider);
    const model = endpoint === undefined ? undefined : build(endpoint, provider, modelId);
    models.set(id, model);
    return model;
  };
}

/** Every owner gets the server-wide registry (servers and tests built without storage). */
export function serverWideProvidersOnly(registry: ProviderRegistry): OwnerProviders {
  const resolve: ModelResolver = (provider, modelId) => registry.resolve(provider, modelId);
  const resolveEmbedding: EmbeddingResolver = (provider, modelId) => registry.resolveEmbedding(provider, modelId);
  return { forOwner: () => resolve, embeddingsForOwner: () => resolveEmbedding, invalidate: () => undefined };
}
