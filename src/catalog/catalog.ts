import catalogData from './data/models.json' with { type: 'json' };
import { shippedCatalogSchema, type ShippedCatalog, type ShippedEmbedding, type ShippedModel } from './data/shipped-catalog-schema.js';

/** A long-context rate: it replaces the base prices for the whole request once its prompt exceeds `aboveInputTokens`. */
export interface PriceTier {
  readonly aboveInputTokens: number;
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  /** The tier's input price when absent. */
  readonly cachedInputPerMTok?: number;
  readonly cacheWritePerMTok?: number;
}

export interface ModelPricing {
  /** USD per million prompt tokens. */
  readonly inputPerMTok: number;
  /** USD per million completion tokens. */
  readonly outputPerMTok: number;
  /** USD per million prompt tokens served from cache; the input price when absent. */
  readonly cachedInputPerMTok?: number;
  /** USD per million prompt tokens written to the cache (Anthropic, Bedrock); informational until usage counts cache writes. */
  readonly cacheWritePerMTok?: number;
  /**
   * Long-context tiers, ascending. They live with the prices, not beside them,
   * so whoever prices a call from `model.pricing` applies them (`computeCostUsd`).
   */
  readonly tiers?: readonly PriceTier[];
}

export interface RegionInfo {
  /** Power usage effectiveness of the data centre. */
  readonly pue: number;
  /** Grid carbon intensity, grams CO2e per kWh. */
  readonly gridGCo2PerKWh: number;
}

/** What a model does: answer chat requests, or turn text into vectors. */
export type ModelKind = 'chat' | 'embedding';

/** What an embedding model gives (docs/catalog.md#embedding-models). */
export interface EmbeddingInfo {
  /** Default vector length. */
  readonly dimensions: number;
  /** Whether `dimensions` may shorten it (OpenAI text-embedding-3-*, Gemini). */
  readonly shortenable: boolean;
  /** The only lengths `dimensions` may take, where the provider allows only some (Titan v2: 1024, 512, 256); absent: any up to `dimensions`. */
  readonly dimensionChoices?: readonly number[];
  /**
   * The vector space: models with the same space give comparable vectors (deployments of one model: OpenAI's and
   * Azure's text-embedding-3-small). Fallback and routers only ever mix models of one space.
   */
  readonly space: string;
  /** Inputs per request the provider accepts. */
  readonly maxBatch: number;
}

export interface ModelInfo {
  /** `provider:model`, the id routers list. */
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly displayName: string;
  /** Embedding models: `inputPerMTok` only, `outputPerMTok` 0. */
  readonly pricing: ModelPricing;
  /** Embedding models: the most tokens one input may have. */
  readonly contextWindow: number;
  /** 0 for embedding models. */
  readonly maxOutputTokens: number;
  readonly capabilities: { readonly tools: boolean; readonly vision: boolean; readonly jsonMode: boolean; readonly streaming: boolean };
  readonly qualityScore: number;
  /** Parameters used per generated token, in billions (for a mixture of experts, the active experts only). */
  readonly activeParamsB: number;
  /** Parameters held in GPU memory, in billions: they decide the GPU count of the carbon estimate. Absent: a dense model, `activeParamsB`. */
  readonly totalParamsB?: number;
  readonly region: RegionInfo;
  readonly typicalTtftMs: number;
  readonly typicalTokensPerSecond: number;
  readonly simulated: boolean;
  /**
   * Other `provider:model` ids the provider serves as this same model (`-latest`
   * pointers, dated snapshots); `ModelCatalog.get` finds the model by any of them.
   * Always set on shipped models; absent on owners' models.
   */
  readonly aliases?: readonly string[];
  /** The provider has deprecated or retired it; it stays listed while it is still served or referenced. */
  readonly retired?: boolean;
  /** What the model does. @default 'chat' */
  readonly kind?: ModelKind;
  /** Embedding models only. */
  readonly embedding?: EmbeddingInfo;
}

/** The model's kind, `chat` unless it says otherwise. */
export function modelKind(model: Pick<ModelInfo, 'kind'>): ModelKind {
  return model.kind ?? 'chat';
}

export interface ModelCatalog {
  /** By id or by alias: an alias gives the model it names, whose `id` is the canonical one. */
  get(id: string): ModelInfo | undefined;
  list(): readonly ModelInfo[];
}

/** Splits `provider:model` at the first colon (model names may contain colons, e.g. Ollama tags). */
export function parseModelRef(ref: string): { provider: string; model: string } | undefined {
  const colon = ref.indexOf(':');
  if (colon <= 0 || colon === ref.length - 1) return undefined;
  return { provider: ref.slice(0, colon), model: ref.slice(colon + 1) };
}

/** Ids win over aliases, and the first model listed wins a tie (the shipped catalog has none: catalog.test.ts). */
export function createModelCatalog(models: readonly ModelInfo[]): ModelCatalog {
  const byId = new Map<string, ModelInfo>();
  for (const model of models) if (!byId.has(model.id)) byId.set(model.id, model);
  for (const model of models) {
    for (const alias of model.aliases ?? []) if (!byId.has(alias)) byId.set(alias, model);
  }
  return { get: (id) => byId.get(id), list: () => models };
}

export interface ShippedCatalogOptions {
  /**
   * The data centre of local servers (ollama, vllm, lmstudio, llamacpp): the
   * catalog assumes PUE 1.0 on a world-average grid; your own figures replace it.
   */
  readonly localRegion?: RegionInfo;
}

/** The catalog shipped in `data/models.json` (generated by `npm run catalog:refresh`; docs/catalog.md). */
export function loadShippedCatalog(options: ShippedCatalogOptions = {}): ModelCatalog {
  return catalogFromData(shippedCatalogSchema.parse(catalogData), options);
}

/** A catalog from data in the shipped format: `models.json`, or the generator's output in tests. */
export function catalogFromData(data: ShippedCatalog, options: ShippedCatalogOptions = {}): ModelCatalog {
  return createModelCatalog(data.models.map((entry) => toModelInfo(entry, data, options)));
}

function toModelInfo(entry: ShippedModel, data: ShippedCatalog, options: ShippedCatalogOptions): ModelInfo {
  const ref = parseModelRef(entry.id);
  const shippedRegion = data.regions[entry.region];
  if (ref === undefined || shippedRegion === undefined) throw new Error(`catalog entry ${entry.id} is malformed`);
  const region = entry.region === 'local' && options.localRegion !== undefined ? options.localRegion : shippedRegion;
  const { pricing } = entry;
  return {
    id: entry.id,
    provider: ref.provider,
    model: ref.model,
    displayName: entry.displayName,
    pricing: {
      inputPerMTok: pricing.inputPerMTok,
      outputPerMTok: pricing.outputPerMTok,
      ...(pricing.cachedInputPerMTok !== undefined ? { cachedInputPerMTok: pricing.cachedInputPerMTok } : {}),
      ...(pricing.cacheWritePerMTok !== undefined ? { cacheWritePerMTok: pricing.cacheWritePerMTok } : {}),
      ...(pricing.tiers !== undefined
        ? {
            tiers: pricing.tiers.map((tier) => ({
              aboveInputTokens: tier.aboveInputTokens,
              inputPerMTok: tier.inputPerMTok,
              outputPerMTok: tier.outputPerMTok,
              ...(tier.cachedInputPerMTok !== undefined ? { cachedInputPerMTok: tier.cachedInputPerMTok } : {}),
              ...(tier.cacheWritePerMTok !== undefined ? { cacheWritePerMTok: tier.cacheWritePerMTok } : {}),
            })),
          }
        : {}),
    },
    contextWindow: entry.contextWindow,
    maxOutputTokens: entry.maxOutputTokens,
    capabilities: entry.capabilities,
    qualityScore: entry.quality.score,
    activeParamsB: entry.activeParamsB.value,
    ...(entry.totalParamsB !== undefined && entry.totalParamsB.value !== entry.activeParamsB.value ? { totalParamsB: entry.totalParamsB.value } : {}),
    region: { pue: region.pue, gridGCo2PerKWh: region.gridGCo2PerKWh },
    typicalTtftMs: entry.typicalTtftMs,
    typicalTokensPerSecond: entry.typicalTokensPerSecond,
    simulated: entry.simulated === true,
    aliases: entry.aliases,
    retired: entry.retired,
    ...(entry.embedding !== undefined ? { kind: 'embedding' as const, embedding: embeddingInfo(entry.embedding) } : {}),
  };
}

function embeddingInfo(shipped: ShippedEmbedding): EmbeddingInfo {
  return {
    dimensions: shipped.dimensions,
    shortenable: shipped.shortenable,
    ...(shipped.dimensionChoices !== undefined ? { dimensionChoices: shipped.dimensionChoices } : {}),
    space: shipped.space,
    maxBatch: shipped.maxBatch,
  };
}
