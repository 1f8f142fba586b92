/**
 * The shape of src/catalog/data/model-facts.json, the hand-kept facts that
 * scripts/refresh-catalog.ts turns into models.json (docs/catalog.md), and
 * what the facts of a chat or an embedding model give the catalog.
 */
import { z } from 'zod';
import { shippedCatalogSchema, type ShippedEmbedding, type ShippedModel } from '../src/catalog/data/shipped-catalog-schema.js';

const source = z.string().min(1);
const handPriceSchema = z
  .object({
    inputPerMTok: z.number().nonnegative(),
    outputPerMTok: z.number().nonnegative(),
    cachedInputPerMTok: z.number().nonnegative().optional(),
    cacheWritePerMTok: z.number().nonnegative().optional(),
    source,
  })
  .strict();

const embeddingFactSchema = z
  .object({
    dimensions: z.number().int().positive(),
    shortenable: z.boolean(),
    dimensionChoices: z.array(z.number().int().positive()).min(1).optional(),
    space: z.string().min(1),
    maxBatch: z.number().int().positive(),
    source,
  })
  .strict();

const modelFactSchema = z
  .object({
    id: z.string().min(3),
    displayName: z.string().min(1),
    aliases: z.array(z.string().min(3)).optional(),
    retired: z.object({ value: z.boolean(), source }).strict().optional(),
    /** Where to look the price up in genai-prices when it is not `<provider's prices id>/<model>`. */
    priceLookup: z.object({ provider: z.string().min(1).optional(), model: z.string().min(1).optional() }).strict().optional(),
    /** A price typed by hand, with its source: local models, the simulator, anything genai-prices lacks. */
    handPrice: handPriceSchema.optional(),
    /** Embedding models: the most tokens one input may have. */
    contextWindow: z.number().int().positive(),
    /** Chat models only, as are `capabilities` and `quality` (embedding models get EMBEDDING_FIGURES). */
    maxOutputTokens: z.number().int().positive().optional(),
    limitsSource: source.optional(),
    capabilities: z.object({ tools: z.boolean(), vision: z.boolean(), jsonMode: z.boolean(), streaming: z.boolean() }).strict().optional(),
    capabilitiesSource: source.optional(),
    quality: z.object({ score: z.number().positive(), source }).strict().optional(),
    /** Parameters used per generated token, in billions: a mixture of experts counts its active experts only. */
    activeParamsB: z.object({ value: z.number().positive(), source }).strict(),
    /** Parameters held in GPU memory, in billions: all experts of a mixture; a dense model repeats activeParamsB. */
    totalParamsB: z.object({ value: z.number().positive(), source }).strict(),
    region: z.string().min(1).optional(),
    typicalTtftMs: z.number().positive(),
    typicalTokensPerSecond: z.number().positive(),
    speedSource: source.optional(),
    simulated: z.literal(true).optional(),
    /** Present on embedding models only: their vectors (docs/catalog.md#embedding-models). */
    embedding: embeddingFactSchema.optional(),
  })
  .strict();

/**
 * What every embedding model has in common: it generates no tokens and takes
 * no tools or images, and a chat rating means nothing for it. Its quality is
 * one number for all, so it never separates the models of a router (which
 * are all deployments of one model: one vector space).
 */
const EMBEDDING_FIGURES = {
  maxOutputTokens: 0,
  capabilities: { tools: false, vision: false, jsonMode: false, streaming: false },
  capabilitiesSource: 'an embedding model: text in, vectors out',
  quality: { score: 1000, source: 'not rated: chat ratings do not apply to embedding models; the same for every embedding model, so it never separates the deployments of one model' },
} as const;

const providerFactSchema = z
  .object({
    /** The provider's id in genai-prices; absent for providers priced by hand (local servers, the simulator). */
    prices: z.string().min(1).optional(),
    region: z.string().min(1),
    /** Where context windows, output limits and capabilities come from unless a model says otherwise. */
    docs: source,
    speedSource: source,
  })
  .strict();

export const modelFactsSchema = z
  .object({
    $comment: z.string().optional(),
    reviewed: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    notes: z.string(),
    providers: z.record(z.string(), providerFactSchema),
    regions: shippedCatalogSchema.shape.regions,
    models: z.array(modelFactSchema).min(1),
  })
  .strict();

export type ModelFacts = z.infer<typeof modelFactsSchema>;
export type ModelFact = z.infer<typeof modelFactSchema>;
export type ProviderFact = z.infer<typeof providerFactSchema>;

type ModelFigures = Pick<ShippedModel, 'maxOutputTokens' | 'capabilities' | 'quality'> & { readonly capabilitiesSource?: string };

/** A chat model's own figures, or what every embedding model has (which its facts must then leave out). */
export function modelFigures(fact: ModelFact): ModelFigures | string {
  const { embedding, maxOutputTokens, capabilities, quality } = fact;
  if (embedding === undefined) {
    if (maxOutputTokens === undefined || capabilities === undefined || quality === undefined) return 'a chat model needs maxOutputTokens, capabilities and quality';
    return { maxOutputTokens, capabilities, quality };
  }
  if (maxOutputTokens !== undefined || capabilities !== undefined || quality !== undefined) {
    return 'an embedding model generates no tokens: leave out maxOutputTokens, capabilities and quality';
  }
  const choices = embedding.dimensionChoices;
  if (choices !== undefined && (!embedding.shortenable || !choices.includes(embedding.dimensions))) {
    return 'dimensionChoices needs shortenable and must include the default dimensions';
  }
  return { maxOutputTokens: EMBEDDING_FIGURES.maxOutputTokens, capabilities: { ...EMBEDDING_FIGURES.capabilities }, quality: { ...EMBEDDING_FIGURES.quality }, capabilitiesSource: EMBEDDING_FIGURES.capabilitiesSource };
}

export function embeddingOf(fact: z.infer<typeof embeddingFactSchema>): ShippedEmbedding {
  return {
    dimensions: fact.dimensions,
    shortenable: fact.shortenable,
    ...(fact.dimensionChoices !== undefined ? { dimensionChoices: [...fact.dimensionChoices] } : {}),
    space: fact.space,
    maxBatch: fact.maxBatch,
    source: fact.source,
  };
}
