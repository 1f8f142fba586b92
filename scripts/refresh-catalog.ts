/**
 * Writes src/catalog/data/models.json, the catalog the gateway ships, from
 * our hand-kept facts (src/catalog/data/model-facts.json) and the prices
 * bundled in @pydantic/genai-prices. Run it with `npm run catalog:refresh`
 * after upgrading that package or editing the facts; docs/catalog.md explains
 * every figure. It fails, listing every problem, when a model has no price.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { calcPrice, findProvider, type ModelInfo as GenaiModel, type ModelPrice, type Provider as GenaiProvider } from '@pydantic/genai-prices';
import {
  shippedCatalogSchema,
  type ShippedCatalog,
  type ShippedModel,
  type ShippedPriceTier,
  type ShippedPricing,
} from '../src/catalog/data/shipped-catalog-schema.js';
import { embeddingOf, modelFactsSchema, modelFigures, type ModelFact, type ModelFacts, type ProviderFact } from './model-facts-schema.js';

export { modelFactsSchema, type ModelFacts } from './model-facts-schema.js';

export const FACTS_PATH = fileURLToPath(new URL('../src/catalog/data/model-facts.json', import.meta.url));
export const CATALOG_PATH = fileURLToPath(new URL('../src/catalog/data/models.json', import.meta.url));
const PRICES_PACKAGE = '@pydantic/genai-prices';

export interface BuildOptions {
  /** `YYYY-MM-DD`: prices are those in force at noon UTC that day. */
  readonly asOf: string;
  /** The genai-prices version, for `pricesFrom`. */
  readonly pricesVersion: string;
}

export class CatalogBuildError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the catalog cannot be built:\n  - ${problems.join('\n  - ')}`);
    this.name = 'CatalogBuildError';
  }
}

export function readModelFacts(path = FACTS_PATH): ModelFacts {
  return modelFactsSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** The installed genai-prices version (its package.json is not exported, so found beside its entry point). */
export function genaiPricesVersion(): string {
  const entry = createRequire(import.meta.url).resolve(PRICES_PACKAGE);
  let directory = dirname(entry);
  for (let depth = 0; depth < 4; depth += 1) {
    try {
      const manifest = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === PRICES_PACKAGE && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // no package.json at this level: look one up
    }
    directory = dirname(directory);
  }
  throw new Error(`cannot find the version of ${PRICES_PACKAGE}`);
}

/** The catalog for `facts`, priced from genai-prices' bundled data. Throws CatalogBuildError listing every problem. */
export function buildCatalog(facts: ModelFacts, options: BuildOptions): ShippedCatalog {
  const problems: string[] = [];
  const at = new Date(`${options.asOf}T12:00:00Z`);
  if (Number.isNaN(at.getTime())) throw new CatalogBuildError([`asOf ${options.asOf} is not a date`]);
  const seen = new Map<string, string>();
  const claim = (id: string, owner: string) => {
    const previous = seen.get(id);
    if (previous !== undefined) problems.push(`${id} is listed twice (${previous} and ${owner})`);
    else seen.set(id, owner);
  };

  const models: ShippedModel[] = [];
  for (const fact of facts.models) {
    const provider = providerOf(fact.id);
    const providerFact = provider === undefined ? undefined : facts.providers[provider];
    if (provider === undefined || providerFact === undefined) {
      problems.push(`${fact.id}: not provider:model with a provider listed under "providers"`);
      continue;
    }
    claim(fact.id, fact.id);
    for (const alias of fact.aliases ?? []) {
      if (providerOf(alias) !== provider) problems.push(`${fact.id}: alias ${alias} names another provider`);
      claim(alias, `an alias of ${fact.id}`);
    }
    const region = fact.region ?? providerFact.region;
    if (facts.regions[region] === undefined) problems.push(`${fact.id}: unknown region ${region}`);

    const figures = modelFigures(fact);
    if (typeof figures === 'string') {
      problems.push(`${fact.id}: ${figures}`);
      continue;
    }
    const priced = priceModel(fact, provider, providerFact, at, options.pricesVersion);
    if (typeof priced === 'string') {
      problems.push(`${fact.id}: ${priced}`);
      continue;
    }
    const retired = fact.retired ?? (priced.deprecated ? { value: true, source: `${PRICES_PACKAGE} marks it deprecated` } : undefined);
    models.push({
      id: fact.id,
      ...(fact.embedding !== undefined ? { kind: 'embedding' as const } : {}),
      displayName: fact.displayName,
      aliases: fact.aliases ?? [],
      retired: retired?.value ?? false,
      ...(retired?.value === true ? { retiredSource: retired.source } : {}),
      pricing: priced.pricing,
      contextWindow: fact.contextWindow,
      maxOutputTokens: figures.maxOutputTokens,
      limitsSource: fact.limitsSource ?? providerFact.docs,
      capabilities: figures.capabilities,
      capabilitiesSource: fact.capabilitiesSource ?? figures.capabilitiesSource ?? providerFact.docs,
      quality: figures.quality,
      activeParamsB: fact.activeParamsB,
      totalParamsB: fact.totalParamsB,
      region,
      typicalTtftMs: fact.typicalTtftMs,
      typicalTokensPerSecond: fact.typicalTokensPerSecond,
      speedSource: fact.speedSource ?? providerFact.speedSource,
      ...(fact.simulated === true ? { simulated: true as const } : {}),
      ...(fact.embedding !== undefined ? { embedding: embeddingOf(fact.embedding) } : {}),
    });
    if (figures.maxOutputTokens > fact.contextWindow) problems.push(`${fact.id}: maxOutputTokens exceeds contextWindow`);
    if (fact.totalParamsB.value < fact.activeParamsB.value) problems.push(`${fact.id}: totalParamsB is below activeParamsB (a dense model repeats it)`);
  }
  if (problems.length > 0) throw new CatalogBuildError(problems);

  return shippedCatalogSchema.parse({
    asOf: options.asOf,
    pricesFrom: `${PRICES_PACKAGE} ${options.pricesVersion}`,
    generatedBy: 'scripts/refresh-catalog.ts (npm run catalog:refresh) from src/catalog/data/model-facts.json; do not edit by hand',
    notes: `${facts.notes} Prices are USD per million tokens, standard (not batch) rates in force on asOf, from ${PRICES_PACKAGE}; tiers are long-context rates that apply to the whole request once its prompt exceeds aboveInputTokens. Facts reviewed ${facts.reviewed}.`,
    models,
    regions: facts.regions,
  });
}

function providerOf(id: string): string | undefined {
  const colon = id.indexOf(':');
  return colon <= 0 || colon === id.length - 1 ? undefined : id.slice(0, colon);
}

interface PricedModel {
  readonly pricing: ShippedPricing;
  readonly deprecated: boolean;
}

/** Our price fields and the genai-prices keys they come from; other keys (audio, images, search) are not chat-token prices. */
const PRICE_KEYS = [
  ['inputPerMTok', 'input_mtok'],
  ['outputPerMTok', 'output_mtok'],
  ['cachedInputPerMTok', 'cache_read_mtok'],
  ['cacheWritePerMTok', 'cache_write_mtok'],
] as const;

type PriceField = (typeof PRICE_KEYS)[number][0];
type TieredValue = { readonly base: number; readonly tiers: readonly { readonly start: number; readonly price: number }[] };

function priceModel(fact: ModelFact, provider: string, providerFact: ProviderFact, at: Date, version: string): PricedModel | string {
  const embedding = fact.embedding !== undefined;
  if (fact.handPrice !== undefined) {
    if (embedding && (fact.handPrice.outputPerMTok !== 0 || fact.handPrice.cachedInputPerMTok !== undefined || fact.handPrice.cacheWritePerMTok !== undefined)) {
      return 'an embedding model is priced by its input alone: give outputPerMTok 0 and no cache prices';
    }
    return { pricing: { ...fact.handPrice }, deprecated: false };
  }
  const providerId = fact.priceLookup?.provider ?? providerFact.prices;
  if (providerId === undefined) return `provider ${provider} is priced by hand, and the model has no handPrice`;
  const modelId = fact.priceLookup?.model ?? fact.id.slice(provider.length + 1);
  let found: ReturnType<typeof calcPrice>;
  try {
    found = calcPrice({}, modelId, { providerId, timestamp: at });
  } catch (error) {
    return `${PRICES_PACKAGE} failed on ${providerId}/${modelId}: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (found === null) return `no price in ${PRICES_PACKAGE} ${version} for ${providerId}/${modelId}: add priceLookup, or a handPrice with its source`;

  const prices = found.model_price;
  if (embedding) return priceEmbedding(found, prices, providerId, version);
  const values = new Map<PriceField, number | TieredValue>();
  for (const [field, key] of PRICE_KEYS) {
    const value = readPrice(prices[key]);
    if (value === 'invalid') return `${PRICES_PACKAGE} has an unreadable ${key} for ${providerId}/${found.model.id}`;
    if (value !== undefined) values.set(field, value);
  }
  const input = values.get('inputPerMTok');
  const output = values.get('outputPerMTok');
  if (input === undefined || output === undefined) return `${PRICES_PACKAGE} lists ${providerId}/${found.model.id} without input and output token prices: add a handPrice with its source`;

  const base: Partial<Record<PriceField, number>> = {};
  for (const [field, value] of values) base[field] = typeof value === 'number' ? value : value.base;
  const tiers = buildTiers(values);
  const pricing: ShippedPricing = {
    inputPerMTok: base.inputPerMTok ?? 0,
    outputPerMTok: base.outputPerMTok ?? 0,
    ...(base.cachedInputPerMTok !== undefined ? { cachedInputPerMTok: base.cachedInputPerMTok } : {}),
    ...(base.cacheWritePerMTok !== undefined ? { cacheWritePerMTok: base.cacheWritePerMTok } : {}),
    ...(tiers.length > 0 ? { tiers } : {}),
    source: describeSource(found.provider, found.model, prices, version),
  };
  return { pricing, deprecated: found.model.deprecated === true };
}

/**
 * An embedding model pays for its input tokens only. genai-prices lists some
 * with an output price (Mistral's), which no call ever incurs: it is left out.
 */
function priceEmbedding(found: NonNullable<ReturnType<typeof calcPrice>>, prices: ModelPrice, providerId: string, version: string): PricedModel | string {
  const input = prices.input_mtok;
  if (typeof input !== 'number') return `${PRICES_PACKAGE} has no flat input price for ${providerId}/${found.model.id}: add a handPrice with its source`;
  const ignored = typeof prices.output_mtok === 'number' && prices.output_mtok > 0 ? '; its output price is not applied: embedding calls generate no tokens' : '';
  return {
    pricing: { inputPerMTok: input, outputPerMTok: 0, source: `${describeSource(found.provider, found.model, prices, version)}${ignored}` },
    deprecated: found.model.deprecated === true,
  };
}

function readPrice(value: ModelPrice[string]): number | TieredValue | undefined | 'invalid' {
  if (value === undefined || typeof value === 'number') return value;
  const tiers = value.tiers.map((tier) => ({ start: tier.start, price: tier.price })).sort((a, b) => a.start - b.start);
  return typeof value.base === 'number' ? { base: value.base, tiers } : 'invalid';
}

/**
 * One tier per threshold at which any price changes. genai-prices applies a
 * tier when the prompt's tokens exceed its start, to the whole request, as
 * OpenAI, Anthropic and Google bill long prompts; a price that is not tiered
 * stays the same in every tier.
 */
function buildTiers(values: ReadonlyMap<PriceField, number | TieredValue>): ShippedPriceTier[] {
  const starts = [...new Set([...values.values()].flatMap((value) => (typeof value === 'number' ? [] : value.tiers.map((tier) => tier.start))))].sort((a, b) => a - b);
  const priceAbove = (value: number | TieredValue | undefined, start: number): number | undefined => {
    if (value === undefined || typeof value === 'number') return value;
    return value.tiers.filter((tier) => tier.start <= start).at(-1)?.price ?? value.base;
  };
  return starts.map((start) => {
    const cached = priceAbove(values.get('cachedInputPerMTok'), start);
    const cacheWrite = priceAbove(values.get('cacheWritePerMTok'), start);
    return {
      aboveInputTokens: start,
      inputPerMTok: priceAbove(values.get('inputPerMTok'), start) ?? 0,
      outputPerMTok: priceAbove(values.get('outputPerMTok'), start) ?? 0,
      ...(cached !== undefined ? { cachedInputPerMTok: cached } : {}),
      ...(cacheWrite !== undefined ? { cacheWritePerMTok: cacheWrite } : {}),
    };
  });
}

function describeSource(provider: GenaiProvider, model: GenaiModel, prices: ModelPrice, version: string): string {
  const owner = provider.models.includes(model) ? provider : fallbackOwner(provider, model);
  const via = owner === provider ? '' : ` (${provider.id} falls back to ${owner.id}'s list)`;
  const page = owner.pricing_urls?.[0] ?? provider.pricing_urls?.[0];
  const notes: string[] = [];
  if (Array.isArray(model.prices) && model.prices.some((entry) => entry.constraint?.type === 'time_of_date')) {
    notes.push('standard daytime rate (12:00 UTC); off-peak discounts not modelled');
  } else if (Array.isArray(model.prices)) {
    notes.push('the rate in force on asOf');
  }
  const perRequest = prices.requests_kcount;
  if (typeof perRequest === 'number') notes.push(`plus $${perRequest} per 1,000 requests, not modelled`);
  return `${PRICES_PACKAGE} ${version}: ${owner.id}/${model.id}${via}${page !== undefined ? `, from ${page}` : ''}${notes.length > 0 ? `; ${notes.join('; ')}` : ''}`;
}

function fallbackOwner(provider: GenaiProvider, model: GenaiModel): GenaiProvider {
  for (const id of provider.fallback_model_providers ?? []) {
    const fallback = findProvider({ providerId: id });
    if (fallback?.models.includes(model) === true) return fallback;
  }
  return provider;
}

/** `models.json` as written to disk. */
export function serializeCatalog(catalog: ShippedCatalog): string {
  return `${JSON.stringify(catalog, null, 2)}\n`;
}

function main(): void {
  const asOf = process.env.CATALOG_AS_OF ?? new Date().toISOString().slice(0, 10);
  const version = genaiPricesVersion();
  const catalog = buildCatalog(readModelFacts(), { asOf, pricesVersion: version });
  writeFileSync(CATALOG_PATH, serializeCatalog(catalog));
  const byProvider = new Map<string, number>();
  for (const model of catalog.models) {
    const provider = providerOf(model.id) ?? '?';
    byProvider.set(provider, (byProvider.get(provider) ?? 0) + 1);
  }
  const counts = [...byProvider].map(([provider, count]) => `${provider} ${count}`).join(', ');
  process.stdout.write(`Wrote ${catalog.models.length} models (${counts}) as of ${asOf}, prices from ${PRICES_PACKAGE} ${version}.\n`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
