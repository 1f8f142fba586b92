/**
 * Shapes of the dashboard API for owners' own provider keys and declared models
 * (docs/dashboard-api.md, Providers and Custom models). Times are epoch
 * milliseconds here; the API answers them as ISO 8601 (`IsoTimes`).
 */

import type { ModelKindView } from './dashboard-api-types.js';

/** A provider the owner may bring a key for. */
export interface ProviderPresetView {
  readonly name: string;
  readonly label: string;
  /** Where the provider is called when the owner gives no base URL. */
  readonly defaultBaseUrl: string;
  /** Whether adding it needs a key (local model servers take none). */
  readonly requiresKey: boolean;
}

/** An owner's credentials for one provider: never the key, only its last 4 characters (none for short keys). */
export interface ProviderCredentialApiView {
  readonly provider: string;
  /** `preset`: a known provider; `custom`: an OpenAI-compatible server at the owner's base URL. */
  readonly kind: 'preset' | 'custom';
  /** The owner's base URL; null: the preset's. */
  readonly baseUrl: string | null;
  readonly keyHint: string | null;
  readonly hasKey: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** `GET /workspaces/:ws/providers` */
export interface ProviderListView {
  readonly providers: readonly ProviderCredentialApiView[];
  readonly presets: readonly ProviderPresetView[];
}

/** `POST /workspaces/:ws/providers`: the stored credentials, and whether they replaced earlier ones. */
export interface SavedProviderView {
  readonly provider: ProviderCredentialApiView;
  readonly replaced: boolean;
}

/** `POST /workspaces/:ws/providers/:provider/test`: one tiny real call's outcome. */
export interface ProviderTestView {
  readonly provider: string;
  readonly ok: boolean;
  /** What was called: `chat ping with <model>` or `GET <base>/models`. */
  readonly target: string;
  readonly latencyMs: number;
  /** The upstream's HTTP status, when it answered one. */
  readonly statusCode: number | null;
  /** On success a short note; on failure the provider's error. */
  readonly message: string;
}

/** `DELETE /workspaces/:ws/providers/:provider` */
export interface RemovedProviderView {
  readonly provider: string;
  /** A custom provider's declared models go with it. */
  readonly modelsRemoved: number;
}

/** A model the owner declared, with their prices (USD per million tokens). */
export interface CustomModelView {
  /** `provider:model` */
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cachedInputPerMTok: number | null;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly capabilities: { readonly tools: boolean; readonly vision: boolean };
  readonly kind: ModelKindView;
  /** Embedding models only. */
  readonly embedding: { readonly dimensions: number; readonly shortenable: boolean; readonly space: string } | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** `POST /workspaces/:ws/custom-models` */
export interface SavedCustomModelView {
  readonly model: CustomModelView;
  readonly replaced: boolean;
  /** The owner's own prices for a model of the shipped catalog. */
  readonly overridesShipped: boolean;
}
