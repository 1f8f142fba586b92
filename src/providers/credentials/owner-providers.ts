import type { MaybePromise } from '../../lib/maybe-promise.js';
import { createPromiseCache } from '../../lib/promise-cache.js';
import type { ServerSecret } from '../../lib/server-secret.js';
import type { ProviderCredentialsRepository } from '../../storage/provider-credentials-repository.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { createChatModelFor, createEmbeddingModelFor } from '../model-factory.js';
import { isLocalProvider, type LocalProviderGate } from './local-provider-access.js';
import { openOwnerEndpoint, type OwnerEndpoint } from './owner-credentials.js';
import type { ProviderPreset } from './provider-presets.js';
import type { EmbeddingResolver, ModelResolver, ProviderRegistry } from './registry.js';

export interface OwnerProviders {
  /**
   * The models one owner's routers call: the owner's own credentials first,
   * then the server-wide ones (the local servers only for owners the operator
   * named). Cached per owner until invalidate().
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
  /** Providers whose server address the operator set (`<PREFIX>_BASE_URL`): reached through `http`. @default none */
  readonly operatorBaseUrls?: ReadonlySet<string>;
  /** For addresses the operator set. */
  readonly http: UpstreamHttp;
  /**
   * For every other address (base URLs owners supplied, the presets' defaults): the SSRF-guarded pool, unless the
   * operator allows private upstreams.
   */
  readonly ownerHttp: UpstreamHttp;
  /** Whether an owner may use the local servers the operator configured (MODELPORT_LOCAL_PROVIDERS). @default nobody */
  readonly mayUseLocal?: LocalProviderGate;
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
  const operatorBaseUrls = options.operatorBaseUrls ?? new Set<string>();
  const serverWide = serverWideResolvers(options.registry);
  const atOperatorAddress = (endpoint: OwnerEndpoint) => !endpoint.ownerSuppliedUrl && operatorBaseUrls.has(endpoint.preset.name);
  const httpFor = (endpoint: OwnerEndpoint): UpstreamHttp => (atOperatorAddress(endpoint) ? options.http : options.ownerHttp);
  // An owner's key for a local preset without a base URL of their own would call the operator's local server.
  const usable = (endpoint: OwnerEndpoint, mayUseLocal: boolean) =>
    endpoint.ownerSuppliedUrl || !isLocalProvider(endpoint.preset.name) || (mayUseLocal && atOperatorAddress(endpoint));
  const gate = options.mayUseLocal ?? (() => false);
  const localCache = createPromiseCache<string, boolean>(50_000, async (ownerId) => gate(ownerId));

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
    const [endpoints, mayUseLocal] = await Promise.all([endpointsCache.get(ownerId), localCache.get(ownerId)]);
    const fallback = mayUseLocal ? serverWide.chat : serverWide.chatWithoutLocal;
    if (endpoints === undefined) return fallback;
    return ownerResolver(endpoints, fallback, (endpoint, provider, modelId) =>
      usable(endpoint, mayUseLocal)
        ? createChatModelFor(endpoint.preset, endpoint.credentials, modelId, { http: httpFor(endpoint), defaultMaxTokens: options.defaultMaxTokens?.(provider, modelId) })
        : undefined,
    );
  };
  const loadEmbeddings = async (ownerId: string): Promise<EmbeddingResolver> => {
    const [endpoints, mayUseLocal] = await Promise.all([endpointsCache.get(ownerId), localCache.get(ownerId)]);
    const fallback = mayUseLocal ? serverWide.embeddings : serverWide.embeddingsWithoutLocal;
    if (endpoints === undefined) return fallback;
    return ownerResolver(endpoints, fallback, (endpoint, _provider, modelId) =>
      usable(endpoint, mayUseLocal) ? createEmbeddingModelFor(endpoint.preset, endpoint.credentials, modelId, { http: httpFor(endpoint) }) : undefined,
    );
  };

  const chat = createPromiseCache<string, ModelResolver>(50_000, loadChat);
  const embeddings = createPromiseCache<string, EmbeddingResolver>(50_000, loadEmbeddings);
  return {
    forOwner: (ownerId) => chat.get(ownerId),
    embeddingsForOwner: (ownerId) => embeddings.get(ownerId),
    invalidate: () => {
      endpointsCache.clear();
      localCache.clear();
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

/** The server-wide resolvers, each shared by every owner: with the local servers, and without them. */
function serverWideResolvers(registry: ProviderRegistry) {
  const chat: ModelResolver = (provider, modelId) => registry.resolve(provider, modelId);
  const embeddings: EmbeddingResolver = (provider, modelId) => registry.resolveEmbedding(provider, modelId);
  const chatWithoutLocal: ModelResolver = (provider, modelId) => (isLocalProvider(provider) ? undefined : registry.resolve(provider, modelId));
  const embeddingsWithoutLocal: EmbeddingResolver = (provider, modelId) => (isLocalProvider(provider) ? undefined : registry.resolveEmbedding(provider, modelId));
  return { chat, embeddings, chatWithoutLocal, embeddingsWithoutLocal };
}

/**
 * Every owner gets the server-wide registry (servers and tests built without storage); the local servers only
 * when `localForEveryone` (MODELPORT_LOCAL_PROVIDERS=all), since there is no owner to name.
 */
export function serverWideProvidersOnly(registry: ProviderRegistry, localForEveryone = false): OwnerProviders {
  const serverWide = serverWideResolvers(registry);
  const resolve = localForEveryone ? serverWide.chat : serverWide.chatWithoutLocal;
  const resolveEmbedding = localForEveryone ? serverWide.embeddings : serverWide.embeddingsWithoutLocal;
  return { forOwner: () => resolve, embeddingsForOwner: () => resolveEmbedding, invalidate: () => undefined };
}
