import { findPreset } from '../providers/credentials/provider-presets.js';
import { modelKind, parseModelRef, type ModelCatalog, type ModelInfo, type ModelKind } from '../catalog/catalog.js';
import { CUSTOM_EMBEDDING_DEFAULTS, CUSTOM_MODEL_DEFAULTS, layerOwnerModels } from '../catalog/owner-catalog.js';
import { routerModelsProblem } from '../catalog/router-kind.js';
import type { CustomEmbedding, CustomModelInput, CustomModelRecord } from '../storage/custom-models-repository.js';
import type { Repositories } from '../storage/repositories.js';
import type { UserRow } from '../storage/schema.js';
import { AdminInputError } from './admin-errors.js';

export interface NewCustomModel {
  readonly ownerEmail: string;
  /** `provider:model` */
  readonly id: string;
  /** USD per million tokens. */
  readonly inputPerMTok: number;
  /** Chat models only: an embedding model generates nothing (0). */
  readonly outputPerMTok?: number | undefined;
  readonly cachedInputPerMTok?: number | undefined;
  readonly contextWindow?: number | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly tools?: boolean | undefined;
  readonly vision?: boolean | undefined;
  /** @default the shipped model's kind, else 'chat' */
  readonly kind?: ModelKind | undefined;
  /** Embedding models: the vector length (a shipped model's is the catalog's). */
  readonly dimensions?: number | undefined;
  /** Embedding models: whether a request's `dimensions` may shorten the vectors. @default false */
  readonly shortenable?: boolean | undefined;
  /** Embedding models: models of one space give comparable vectors. @default the model's own id, comparable with no other model */
  readonly space?: string | undefined;
}

type ModelRef = { readonly provider: string; readonly model: string };

/** Higher than any real price list, low enough to catch a price typed per token instead of per million. */
const MAX_PRICE_PER_MTOK = 10_000;
const MAX_TOKENS = 100_000_000;
const MAX_DIMENSIONS = 65_536;

/**
 * Models an owner declares, with their prices: new models of a preset or of
 * their custom provider, or their own prices for a shipped model (same id).
 * A shipped model's kind and vectors stay the catalog's.
 */
export function createCustomModelAdmin(repositories: Repositories, catalog: ModelCatalog, ownerByEmail: (email: string) => Promise<UserRow>) {
  /**
   * A model declared again with another kind or vector space (or declared anew
   * while a router still lists it from before) must leave every router of the
   * owner that lists it of one kind and, for embeddings, one space.
   */
  const checkOwnerRouters = async (ownerId: string, next: CustomModelInput): Promise<void> => {
    const id = `${next.provider}:${next.model}`;
    const routers = (await repositories.routers.listByOwner(ownerId)).filter((router) => router.models.includes(id));
    if (routers.length === 0) return;
    const others = (await repositories.customModels.listByOwner(ownerId)).filter((record) => record.provider !== next.provider || record.model !== next.model);
    const declared: CustomModelRecord = { ...next, kind: next.kind ?? 'chat', embedding: next.embedding, createdAt: 0, updatedAt: 0 };
    const after = layerOwnerModels(catalog, [...others, declared]);
    for (const router of routers) {
      const problem = routerModelsProblem(router.models.map((model) => after.get(model)).filter((model) => model !== undefined));
      if (problem !== undefined) throw new AdminInputError(`${id} is in router "${router.name}" (${router.id}), which it would no longer fit. ${problem}`);
    }
  };

  return {
    async addModel(input: NewCustomModel): Promise<{ model: CustomModelRecord; replaced: boolean; overridesShipped: boolean }> {
      const owner = await ownerByEmail(input.ownerEmail);
      const ref = parseModelRef(input.id.trim());
      if (ref === undefined) throw new AdminInputError(`"${input.id}" is not a model id: write provider:model, e.g. acme:llama-3.3-70b.`);
      if (ref.provider === 'sim') throw new AdminInputError('sim models are the offline simulator; they cannot be declared or repriced.');
      if (findPreset(ref.provider) === undefined && (await repositories.providerCredentials.find(owner.id, ref.provider)) === undefined) {
        throw new AdminInputError(`${ref.provider} is neither a preset provider nor a custom provider of ${owner.email}: add it first with "modelport provider add".`);
      }
      if (!/^\S{1,200}$/.test(ref.model)) throw new AdminInputError('The model name must be 1 to 200 characters without spaces.');
      for (const [flag, price] of [['--input-price', input.inputPerMTok], ['--output-price', input.outputPerMTok], ['--cached-input-price', input.cachedInputPerMTok]] as const) {
        if (price !== undefined && !(Number.isFinite(price) && price >= 0 && price <= MAX_PRICE_PER_MTOK)) {
          throw new AdminInputError(`${flag} is USD per million tokens, from 0 to ${MAX_PRICE_PER_MTOK}.`);
        }
      }
      const shipped = catalog.get(`${ref.provider}:${ref.model}`);
      const kind = input.kind ?? (shipped === undefined ? 'chat' : modelKind(shipped));
      if (shipped !== undefined && modelKind(shipped) !== kind) {
        throw new AdminInputError(`${shipped.id} is a shipped ${modelKind(shipped)} model: its kind is the catalog's (leave out --kind, or declare a model of another name).`);
      }
      const figures = kind === 'embedding' ? embeddingFigures(ref, shipped, input) : chatFigures(shipped, input);
      const next: CustomModelInput = { ownerId: owner.id, provider: ref.provider, model: ref.model, inputPerMTok: input.inputPerMTok, qualityScore: undefined, activeParamsB: undefined, ...figures };
      await checkOwnerRouters(owner.id, next);
      const { record, replaced } = await repositories.customModels.upsert(next);
      return { model: record, replaced, overridesShipped: shipped !== undefined };
    },

    async listModels(ownerEmail: string): Promise<CustomModelRecord[]> {
      return repositories.customModels.listByOwner((await ownerByEmail(ownerEmail)).id);
    },

    async removeModel(ownerEmail: string, id: string): Promise<void> {
      const owner = await ownerByEmail(ownerEmail);
      const ref = parseModelRef(id.trim());
      if (ref === undefined || !(await repositories.customModels.remove(owner.id, ref.provider, ref.model))) {
        throw new AdminInputError(`${owner.email} has declared no model ${id} (see "modelport model list").`);
      }
    },
  };
}

type KindFigures = Omit<CustomModelInput, 'ownerId' | 'provider' | 'model' | 'inputPerMTok' | 'qualityScore' | 'activeParamsB'>;

function checkContextWindow(contextWindow: number): void {
  if (!Number.isInteger(contextWindow) || contextWindow < 1 || contextWindow > MAX_TOKENS) throw new AdminInputError(`--context-window must be a whole number from 1 to ${MAX_TOKENS}.`);
}

function chatFigures(shipped: ModelInfo | undefined, input: NewCustomModel): KindFigures {
  if (input.dimensions !== undefined || input.space !== undefined || input.shortenable === true) {
    throw new AdminInputError('--dimensions, --space and --shortenable describe embedding models: add --kind embedding.');
  }
  if (input.outputPerMTok === undefined) throw new AdminInputError('A chat model needs --output-price (USD per million completion tokens).');
  const contextWindow = input.contextWindow ?? shipped?.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow;
  const maxOutputTokens = input.maxOutputTokens ?? Math.min(shipped?.maxOutputTokens ?? CUSTOM_MODEL_DEFAULTS.maxOutputTokens, contextWindow);
  checkContextWindow(contextWindow);
  if (!Number.isInteger(maxOutputTokens) || maxOutputTokens < 1 || maxOutputTokens > contextWindow) {
    throw new AdminInputError(`--max-output must be a whole number from 1 to the context window (${contextWindow}).`);
  }
  return {
    outputPerMTok: input.outputPerMTok,
    cachedInputPerMTok: input.cachedInputPerMTok,
    contextWindow,
    maxOutputTokens,
    // Flags add capabilities; a shipped model keeps the ones it has.
    supportsTools: input.tools === true || shipped?.capabilities.tools === true,
    supportsVision: input.vision === true || shipped?.capabilities.vision === true,
    kind: 'chat',
  };
}

/** An embedding model is priced by its input alone and generates nothing; a shipped one keeps its vectors. */
function embeddingFigures(ref: ModelRef, shipped: ModelInfo | undefined, input: NewCustomModel): KindFigures {
  if (input.outputPerMTok !== undefined && input.outputPerMTok !== 0) throw new AdminInputError('An embedding model is priced by its input alone: leave out --output-price (or give 0).');
  if (input.cachedInputPerMTok !== undefined || input.maxOutputTokens !== undefined || input.tools === true || input.vision === true) {
    throw new AdminInputError('An embedding model generates nothing: --cached-input-price, --max-output, --tools and --vision do not apply.');
  }
  let embedding: CustomEmbedding;
  const given = shipped?.embedding;
  if (given !== undefined) {
    if ((input.dimensions !== undefined && input.dimensions !== given.dimensions) || (input.space !== undefined && input.space !== given.space) || (input.shortenable !== undefined && input.shortenable !== given.shortenable)) {
      throw new AdminInputError(`${shipped?.id ?? ''} is a shipped embedding model: its dimensions (${given.dimensions}) and vector space (${given.space}) are the catalog's; only its price can be yours.`);
    }
    embedding = { dimensions: given.dimensions, shortenable: given.shortenable, space: given.space };
  } else {
    if (input.dimensions === undefined || !Number.isInteger(input.dimensions) || input.dimensions < 1 || input.dimensions > MAX_DIMENSIONS) {
      throw new AdminInputError(`An embedding model needs --dimensions, its vector length: a whole number from 1 to ${MAX_DIMENSIONS}.`);
    }
    const space = input.space?.trim() ?? `${ref.provider}:${ref.model}`;
    if (!/^\S{1,200}$/.test(space)) throw new AdminInputError('--space must be 1 to 200 characters without spaces, e.g. nomic/nomic-embed-text-v1.5.');
    embedding = { dimensions: input.dimensions, shortenable: input.shortenable === true, space };
  }
  const contextWindow = input.contextWindow ?? shipped?.contextWindow ?? CUSTOM_EMBEDDING_DEFAULTS.contextWindow;
  checkContextWindow(contextWindow);
  return {
    outputPerMTok: 0,
    cachedInputPerMTok: undefined,
    contextWindow,
    maxOutputTokens: 0,
    supportsTools: false,
    supportsVision: false,
    kind: 'embedding',
    embedding,
  };
}

/** `chat` or `embedding`, as typed after --kind. */
export function parseKind(text: string): ModelKind {
  const kind = text.trim();
  if (kind !== 'chat' && kind !== 'embedding') throw new AdminInputError(`--kind is chat or embedding, not "${text}".`);
  return kind;
}

/** A price in USD per million tokens as typed: "2.5", "0.15", "3". */
export function parsePrice(text: string, flag: string): number {
  if (!/^\d{1,6}(\.\d{1,9})?$/.test(text.trim())) throw new AdminInputError(`${flag} must be a price in USD per million tokens, like 0.15 or 2.5, not "${text}".`);
  return Number(text.trim());
}
