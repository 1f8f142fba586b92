import type { SecretBox } from '../../lib/secret-box.js';
import type { ProviderCredentialRecord } from '../../storage/provider-credentials-repository.js';
import { findPreset, type ProviderCredentials, type ProviderPreset } from './provider-presets.js';
import { parseUpstreamBaseUrl } from './ssrf-guard.js';

/**
 * Owners' own credentials (bring your own key), as the resolver and the admin's
 * `provider test` both read them. A credential names either a preset (the
 * owner's key, at the preset's address or the owner's base URL) or a custom
 * provider: any name that is not a preset, always OpenAI-compatible, always with
 * the owner's base URL.
 */

/** Wire formats whose credentials are one key and one base URL, so owners can bring their own. */
const OWNER_KEY_WIRE_FORMATS: ReadonlySet<string> = new Set(['openai', 'anthropic', 'gemini']);

/** Custom provider names: what fits before the colon of a model id. */
export const CUSTOM_PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** Whether owners may store their own key for this preset. */
export function acceptsOwnerKey(preset: ProviderPreset): boolean {
  return OWNER_KEY_WIRE_FORMATS.has(preset.wireFormat);
}

/** The additional data a sealed key is bound to: it opens only in the row it was written for. */
export function credentialSealContext(ownerId: string, provider: string): string {
  return `modelport:provider_credentials:${ownerId}:${provider}`;
}

/** A custom provider speaks OpenAI's wire format at the owner's base URL. */
export function customProviderPreset(name: string, baseUrl: string): ProviderPreset | undefined {
  const openai = findPreset('openai');
  if (openai === undefined) return undefined;
  return { ...openai, name, label: name, envPrefix: '', defaultBaseUrl: baseUrl, requiresKey: false };
}

/** A credential ready to build models with. */
export interface OwnerEndpoint {
  readonly preset: ProviderPreset;
  readonly credentials: ProviderCredentials;
  /** The base URL came from the owner, so connections to it go through the SSRF guard. */
  readonly ownerSuppliedUrl: boolean;
}

/**
 * Opens a stored credential: checks its base URL's syntax (rows can be written
 * by hand) and unseals its key. Throws with a message fit for an operator's log
 * (never containing the key).
 */
export function openOwnerEndpoint(
  record: ProviderCredentialRecord,
  box: SecretBox | undefined,
  serverBaseUrl: (preset: ProviderPreset) => string,
): OwnerEndpoint {
  const found = findPreset(record.provider);
  if (found !== undefined && !acceptsOwnerKey(found)) throw new Error(`owners cannot bring their own key for ${record.provider}`);
  const baseUrl = record.baseUrl === undefined ? undefined : parseUpstreamBaseUrl(record.baseUrl);
  let preset = found;
  if (preset === undefined) {
    if (baseUrl === undefined) throw new Error(`custom provider ${record.provider} has no base URL`);
    preset = customProviderPreset(record.provider, baseUrl);
    if (preset === undefined) throw new Error('no OpenAI preset to build custom providers from');
  }
  let apiKey: string | undefined;
  if (record.encryptedKey !== undefined) {
    if (box === undefined) throw new Error('no server secret to open the key with (MODELPORT_SECRET_KEY, or secret.key beside the SQLite database)');
    apiKey = box.open(record.encryptedKey, credentialSealContext(record.ownerId, record.provider));
  }
  return {
    preset,
    credentials: { baseUrl: baseUrl ?? serverBaseUrl(preset), ...(apiKey !== undefined ? { apiKey } : {}) },
    ownerSuppliedUrl: baseUrl !== undefined,
  };
}
