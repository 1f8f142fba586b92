import { ServerSecretError, type ServerSecret } from '../lib/server-secret.js';
import { SecretBoxError } from '../lib/secret-box.js';
import { createUpstreamDispatcher, defaultTimeouts, type UpstreamHttp, type UpstreamTimeouts } from '../providers/transport/http-client.js';
import { createChatModelFor } from '../providers/model-factory.js';
import { CUSTOM_PROVIDER_NAME, acceptsOwnerKey, credentialSealContext, openOwnerEndpoint, type OwnerEndpoint } from '../providers/credentials/owner-credentials.js';
import { PROVIDER_PRESETS, findPreset, type ProviderPreset } from '../providers/credentials/provider-presets.js';
import { probeChat, probeModelList, type ProbeResult } from '../providers/credentials/provider-probe.js';
import { UpstreamUrlError, checkUpstreamBaseUrl, createGuardedDispatcher, type HostResolver } from '../providers/credentials/ssrf-guard.js';
import { modelKind, type ModelCatalog } from '../catalog/catalog.js';
import { layerOwnerModels } from '../catalog/owner-catalog.js';
import type { ProviderCredentialRecord } from '../storage/provider-credentials-repository.js';
import type { Repositories } from '../storage/repositories.js';
import type { UserRow } from '../storage/schema.js';
import { AdminInputError } from './admin-errors.js';

/** What owner-provider operations need beyond the database: the secret and the operator's SSRF policy. */
export interface ProviderAdminOptions {
  readonly secret: ServerSecret;
  /** MODELPORT_ALLOW_PRIVATE_UPSTREAMS */
  readonly allowPrivateUpstreams: boolean;
  /** Where a preset lives when the owner gives no base URL. @default the preset's default address */
  readonly serverBaseUrl?: (preset: ProviderPreset) => string;
  /** For `provider test`. @default defaultTimeouts with a 30 s first-byte limit */
  readonly timeouts?: UpstreamTimeouts;
  /** For the save-time SSRF check. @default the system resolver */
  readonly resolveHost?: HostResolver;
}

export interface NewProviderCredential {
  readonly ownerEmail: string;
  readonly provider: string;
  readonly apiKey?: string | undefined;
  readonly baseUrl?: string | undefined;
}

/** A credential as it may be shown: never the key, only its last characters. */
export interface ProviderCredentialView {
  readonly provider: string;
  readonly kind: 'preset' | 'custom';
  /** The owner's base URL; undefined: the preset's. */
  readonly baseUrl: string | undefined;
  readonly keyHint: string | undefined;
  readonly hasKey: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
}

export function credentialView(record: ProviderCredentialRecord): ProviderCredentialView {
  return {
    provider: record.provider,
    kind: findPreset(record.provider) === undefined ? 'custom' : 'preset',
    baseUrl: record.baseUrl,
    keyHint: record.keyHint,
    hasKey: record.encryptedKey !== undefined,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** Keys shorter than this show no hint: four characters of a short key are too much of it. */
const MIN_KEY_LENGTH_FOR_HINT = 12;
const MAX_KEY_LENGTH = 4096;

const PRESETS_TAKING_KEYS = PROVIDER_PRESETS.filter(acceptsOwnerKey).map((preset) => preset.name);

/** Owners' own provider credentials: every rule about adding, testing and removing them. */
export function createProviderAdmin(
  repositories: Repositories,
  catalog: ModelCatalog,
  ownerByEmail: (email: string) => Promise<UserRow>,
  options: ProviderAdminOptions | undefined,
) {
  const required = (): ProviderAdminOptions => {
    if (options === undefined) throw new AdminInputError('Provider credentials cannot be managed from here: this process was built without the server secret.');
    return options;
  };
  const serverBaseUrl = (preset: ProviderPreset) => options?.serverBaseUrl?.(preset) ?? preset.defaultBaseUrl;

  const checkBaseUrl = async (raw: string, settings: ProviderAdminOptions): Promise<string> => {
    try {
      return await checkUpstreamBaseUrl(raw, { allowPrivate: settings.allowPrivateUpstreams, ...(settings.resolveHost ? { resolve: settings.resolveHost } : {}) });
    } catch (error) {
      if (error instanceof UpstreamUrlError) throw new AdminInputError(error.message);
      throw error;
    }
  };

  const findCredential = async (owner: UserRow, provider: string): Promise<ProviderCredentialRecord> => {
    const record = await repositories.providerCredentials.find(owner.id, provider);
    if (record === undefined) throw new AdminInputError(`${owner.email} has no credentials for ${provider} (see "modelport provider list").`);
    return record;
  };

  return {
    /** Stores (or replaces) the owner's key and base URL for a provider; the key only sealed. */
    async addProvider(input: NewProviderCredential): Promise<{ credential: ProviderCredentialView; replaced: boolean }> {
      const settings = required();
      const owner = await ownerByEmail(input.ownerEmail);
      const provider = input.provider.trim();
      if (provider === 'sim') throw new AdminInputError('sim is the offline simulator; it takes no credentials.');
      if (!CUSTOM_PROVIDER_NAME.test(provider)) {
        throw new AdminInputError(`"${provider}" is not a provider name: use lower-case letters, digits, "-" and "_" (at most 40), e.g. acme-llm.`);
      }
      const preset = findPreset(provider);
      if (preset !== undefined && !acceptsOwnerKey(preset)) throw new AdminInputError(`${provider} does not take an owner's own key; presets that do: ${PRESETS_TAKING_KEYS.join(', ')}.`);
      const apiKey = input.apiKey?.trim();
      if (apiKey !== undefined && (apiKey === '' || apiKey.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(apiKey))) {
        throw new AdminInputError(`The API key must be 1 to ${MAX_KEY_LENGTH} printable characters without spaces.`);
      }
      if (preset === undefined && input.baseUrl === undefined) {
        throw new AdminInputError(`${provider} is not a preset (${PRESETS_TAKING_KEYS.join(', ')}), so it is a custom OpenAI-compatible provider: give its --base-url.`);
      }
      if (preset !== undefined && preset.requiresKey && apiKey === undefined) throw new AdminInputError(`${preset.label} needs an API key: pass --api-key-stdin or --api-key.`);
      const baseUrl = input.baseUrl === undefined ? undefined : await checkBaseUrl(input.baseUrl, settings);
      let encryptedKey: string | undefined;
      if (apiKey !== undefined) {
        try {
          encryptedKey = settings.secret.forSealing().seal(apiKey, credentialSealContext(owner.id, provider));
        } catch (error) {
          if (error instanceof ServerSecretError || error instanceof SecretBoxError) throw new AdminInputError(error.message);
          throw error;
        }
      }
      const { record, replaced } = await repositories.providerCredentials.upsert({
        ownerId: owner.id,
        provider,
        baseUrl,
        encryptedKey,
        keyHint: apiKey !== undefined && apiKey.length >= MIN_KEY_LENGTH_FOR_HINT ? apiKey.slice(-4) : undefined,
      });
      return { credential: credentialView(record), replaced };
    },

    async listProviders(ownerEmail: string): Promise<ProviderCredentialView[]> {
      const owner = await ownerByEmail(ownerEmail);
      return (await repositories.providerCredentials.listByOwner(owner.id)).map(credentialView);
    },

    /** Removes the owner's credentials; for a custom provider, its declared models too. */
    async removeProvider(ownerEmail: string, provider: string): Promise<{ modelsRemoved: number }> {
      const owner = await ownerByEmail(ownerEmail);
      await findCredential(owner, provider);
      const { modelsRemoved } = await repositories.providerCredentials.remove(owner.id, provider, findPreset(provider) === undefined);
      return { modelsRemoved };
    },

    /**
     * One tiny real call with the owner's credentials: a one-token chat with the
     * given model (or the provider's cheapest known one), or for a custom provider
     * without a model `GET {base}/models`. Owner-supplied URLs are checked again and
     * called through the SSRF guard, as the server does.
     */
    async testProvider(input: { ownerEmail: string; provider: string; model?: string | undefined }): Promise<ProbeResult> {
      const settings = required();
      const owner = await ownerByEmail(input.ownerEmail);
      const record = await findCredential(owner, input.provider);
      let endpoint: OwnerEndpoint;
      try {
        endpoint = openOwnerEndpoint(record, settings.secret.forOpening(), serverBaseUrl);
      } catch (error) {
        throw new AdminInputError(`The stored credentials for ${input.provider} cannot be used: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (endpoint.ownerSuppliedUrl) await checkBaseUrl(endpoint.credentials.baseUrl, settings);
      const ownerCatalog = layerOwnerModels(catalog, await repositories.customModels.listByOwner(owner.id));
      const modelId = input.model ?? (findPreset(input.provider) === undefined ? undefined : cheapestModel(ownerCatalog, input.provider));
      if (modelId === undefined && endpoint.preset.wireFormat !== 'openai') {
        throw new AdminInputError(`No known ${input.provider} model to ping: pass --model.`);
      }
      const timeouts = settings.timeouts ?? { ...defaultTimeouts, firstByteMs: 30_000 };
      const guarded = endpoint.ownerSuppliedUrl && !settings.allowPrivateUpstreams;
      const dispatcher = guarded ? createGuardedDispatcher(timeouts) : createUpstreamDispatcher(timeouts);
      const http: UpstreamHttp = { dispatcher, timeouts };
      try {
        if (modelId === undefined) return await probeModelList(input.provider, endpoint.credentials.baseUrl, endpoint.credentials.apiKey, http);
        const model = createChatModelFor(endpoint.preset, endpoint.credentials, modelId, { http, defaultMaxTokens: 1 });
        if (model === undefined) throw new AdminInputError(`${input.provider} models cannot be called from here.`);
        return await probeChat(model, timeouts.totalMs);
      } finally {
        await dispatcher.close();
      }
    },
  };
}

/** The provider's model with the lowest input price, as the owner sees prices. */
/** The provider's cheapest chat model still served: the test is a one-token chat call, which an embedding model cannot take. */
function cheapestModel(catalog: ModelCatalog, provider: string): string | undefined {
  const models = catalog.list().filter((model) => model.provider === provider && !model.simulated && modelKind(model) === 'chat' && model.retired !== true);
  models.sort((a, b) => a.pricing.inputPerMTok - b.pricing.inputPerMTok);
  return models[0]?.model;
}
