import catalogData from './catalog/models.json' with { type: 'json' };

export interface ModelPricing {
  /** USD per million prompt tokens. */
  readonly inputPerMTok: number;
  /** USD per million completion tokens. */
  readonly outputPerMTok: number;
  /** USD per million prompt tokens served from cache; the input price when absent. */
  readonly cachedInputPerMTok?: number;
}

export interface RegionInfo {
  /** Power usage effectiveness of the data centre. */
  readonly pue: number;
  /** Grid carbon intensity, grams CO2e per kWh. */
  readonly gridGCo2PerKWh: number;
}

export interface ModelInfo {
  /** `provider:model`, the id routers list. */
  readonly id: string;
  readonly provider: string;
  readonly model: string;
  readonly displayName: string;
  readonly pricing: ModelPricing;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly capabilities: { readonly tools: boolean; readonly vision: boolean; readonly jsonMode: boolean; readonly streaming: boolean };
  readonly qualityScore: number;
  readonly activeParamsB: number;
  readonly region: RegionInfo;
  readonly typicalTtftMs: number;
  readonly typicalTokensPerSecond: number;
  readonly simulated: boolean;
}

export interface ModelCatalog {
  get(id: string): ModelInfo | undefined;
  list(): readonly ModelInfo[];
}

/** Splits `provider:model` at the first colon (model names may contain colons, e.g. Ollama tags). */
export function parseModelRef(ref: string): { provider: string; model: string } | undefined {
  const colon = ref.indexOf(':');
  if (colon <= 0 || colon === ref.length - 1) return undefined;
  return { provider: ref.slice(0, colon), model: ref.slice(colon + 1) };
}

export function createModelCatalog(models: readonly ModelInfo[]): ModelCatalog {
  const byId = new Map(models.map((model) => [model.id, model]));
  return { get: (id) => byId.get(id), list: () => models };
}

/** The catalog shipped in `catalog/models.json`. */
export function loadShippedCatalog(): ModelCatalog {
  const regions = catalogData.regions as Record<string, RegionInfo>;
  const models = catalogData.models.map((entry): ModelInfo => {
    const ref = parseModelRef(entry.id);
    const region = regions[entry.region];
    if (ref === undefined || region === undefined) throw new Error(`catalog entry ${entry.id} is malformed`);
    return {
      id: entry.id,
      provider: ref.provider,
      model: ref.model,
      displayName: entry.displayName,
      pricing: entry.pricing,
      contextWindow: entry.contextWindow,
      maxOutputTokens: entry.maxOutputTokens,
      capabilities: entry.capabilities,
      qualityScore: entry.quality.score,
      activeParamsB: entry.activeParamsB.value,
      region: { pue: region.pue, gridGCo2PerKWh: region.gridGCo2PerKWh },
      typicalTtftMs: entry.typicalTtftMs,
      typicalTokensPerSecond: entry.typicalTokensPerSecond,
      simulated: 'simulated' in entry && entry.simulated === true,
    };
  });
  return createModelCatalog(models);
}
