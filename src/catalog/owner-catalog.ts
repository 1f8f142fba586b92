import type { MaybePromise } from '../lib/maybe-promise.js';
import { createPromiseCache } from '../lib/promise-cache.js';
import type { CustomModelRecord, CustomModelsRepository } from '../storage/custom-models-repository.js';
import type { EmbeddingInfo, ModelCatalog, ModelInfo, RegionInfo } from './catalog.js';

/**
 * What the gateway assumes about a model an owner declared without saying:
 * a mid-sized model in a typical hyperscale data centre. Documented in docs/providers.md.
 */
export const CUSTOM_MODEL_DEFAULTS = {
  contextWindow: 128_000,
  maxOutputTokens: 4_096,
  qualityScore: 1250,
  activeParamsB: 30,
  region: { pue: 1.2, gridGCo2PerKWh: 400 } satisfies RegionInfo,
  typicalTtftMs: 500,
  typicalTokensPerSecond: 60,
} as const;

/** The same for an owner's embedding model: a small model whose whole call takes about as long as a chat model's first token. */
export const CUSTOM_EMBEDDING_DEFAULTS = {
  contextWindow: 8_192,
  activeParamsB: 0.5,
  typicalTtftMs: 300,
  /** Inputs per upstream request: the smallest batch common hosted APIs accept (Mistral's 256). */
  maxBatch: 256,
} as const;

const NO_CAPABILITIES = { tools: false, vision: false, jsonMode: false, streaming: false } as const;

/**
 * The catalog entry for an owner's model. Over a shipped model (same
 * `provider:model`) it replaces the prices and the figures the owner gave and
 * keeps the rest (quality, region, speed); otherwise it is built from the owner's
 * figures and CUSTOM_MODEL_DEFAULTS.
 */
export function customModelInfo(record: CustomModelRecord, shipped: ModelInfo | undefined): ModelInfo {
  // A shipped model's kind and vectors are the catalog's; the owner only prices it.
  const embedding = shipped === undefined ? ownerEmbedding(record) : shipped.embedding;
  if (embedding !== undefined) return customEmbeddingInfo(record, shipped, embedding);
  const pricing = {
    inputPerMTok: record.inputPerMTok,
    outputPerMTok: record.outputPerMTok,
    ...(record.cachedInputPerMTok !== undefined ? { cachedInputPerMTok: record.cachedInputPerMTok } : {}),
  };
  const capabilities = {
    tools: record.supportsTools,
    vision: record.supportsVision,
    jsonMode: shipped?.capabilities.jsonMode ?? false,
    streaming: true,
  };
  return {
    id: `${record.provider}:${record.model}`,
    provider: record.provider,
    model: record.model,
    displayName: shipped?.displayName ?? record.model,
    pricing,
    contextWindow: record.contextWindow,
    maxOutputTokens: record.maxOutputTokens,
    capabilities,
    qualityScore: record.qualityScore ?? shipped?.qualityScore ?? CUSTOM_MODEL_DEFAULTS.qualityScore,
    activeParamsB: record.activeParamsB ?? shipped?.activeParamsB ?? CUSTOM_MODEL_DEFAULTS.activeParamsB,
    ...totalParams(record, shipped),
    region: shipped?.region ?? CUSTOM_MODEL_DEFAULTS.region,
    typicalTtftMs: shipped?.typicalTtftMs ?? CUSTOM_MODEL_DEFAULTS.typicalTtftMs,
    typicalTokensPerSecond: shipped?.typicalTokensPerSecond ?? CUSTOM_MODEL_DEFAULTS.typicalTokensPerSecond,
    simulated: false,
  };
}

/** A shipped twin's total parameters, unless the owner gave the active count: then the model is taken as dense. */
function totalParams(record: CustomModelRecord, shipped: ModelInfo | undefined): { totalParamsB?: number } {
  return record.activeParamsB === undefined && shipped?.totalParamsB !== undefined ? { totalParamsB: shipped.totalParamsB } : {};
}

function ownerEmbedding(record: CustomModelRecord): EmbeddingInfo | undefined {
  if (record.kind !== 'embedding' || record.embedding === undefined) return undefined;
  return { ...record.embedding, maxBatch: CUSTOM_EMBEDDING_DEFAULTS.maxBatch };
}

function customEmbeddingInfo(record: CustomModelRecord, shipped: ModelInfo | undefined, embedding: EmbeddingInfo): ModelInfo {
  return {
    id: `${record.provider}:${record.model}`,
    provider: record.provider,
    model: record.model,
    displayName: shipped?.displayName ?? record.model,
    pricing: { inputPerMTok: record.inputPerMTok, outputPerMTok: 0 },
    contextWindow: record.contextWindow,
    maxOutputTokens: 0,
    capabilities: NO_CAPABILITIES,
    qualityScore: shipped?.qualityScore ?? CUSTOM_MODEL_DEFAULTS.qualityScore,
    activeParamsB: record.activeParamsB ?? shipped?.activeParamsB ?? CUSTOM_EMBEDDING_DEFAULTS.activeParamsB,
    ...totalParams(record, shipped),
    region: shipped?.region ?? CUSTOM_MODEL_DEFAULTS.region,
    typicalTtftMs: shipped?.typicalTtftMs ?? CUSTOM_EMBEDDING_DEFAULTS.typicalTtftMs,
    typicalTokensPerSecond: shipped?.typicalTokensPerSecond ?? CUSTOM_MODEL_DEFAULTS.typicalTokensPerSecond,
    simulated: false,
    kind: 'embedding',
    embedding,
  };
}

/** The shipped catalog with one owner's models layered over it: theirs win on the same id. */
export function layerOwnerModels(shipped: ModelCatalog, records: readonly CustomModelRecord[]): ModelCatalog {
  if (records.length === 0) return shipped;
  const overlay = new Map(records.map((record) => {
    const info = customModelInfo(record, shipped.get(`${record.provider}:${record.model}`));
    return [info.id, info] as const;
  }));
  const list = [...shipped.list().map((model) => overlay.get(model.id) ?? model), ...[...overlay.values()].filter((model) => shipped.get(model.id) === undefined)];
  return { get: (id) => overlay.get(id) ?? shipped.get(id), list: () => list };
}

export interface OwnerCatalogs {
  /** The catalog as this owner sees it; cached until invalidate() (a hit is returned synchronously). */
  forOwner(ownerId: string): MaybePromise<ModelCatalog>;
  invalidate(): void;
}

/** Each owner's catalog, read once and cached until the change watcher says something changed. */
export function createOwnerCatalogs(shipped: ModelCatalog, customModels: Pick<CustomModelsRepository, 'listByOwner'>): OwnerCatalogs {
  const cache = createPromiseCache<string, ModelCatalog>(50_000, async (ownerId) => layerOwnerModels(shipped, await customModels.listByOwner(ownerId)));
  return { forOwner: (ownerId) => cache.get(ownerId), invalidate: () => cache.clear() };
}

/** Every owner sees the shipped catalog (servers and tests built without storage). */
export function shippedCatalogOnly(shipped: ModelCatalog): OwnerCatalogs {
  return { forOwner: () => shipped, invalidate: () => undefined };
}
