import { findPreset } from '../providers/credentials/provider-presets.js';
import { parseModelRef, type ModelCatalog } from '../catalog/catalog.js';
import { CUSTOM_MODEL_DEFAULTS } from '../catalog/owner-catalog.js';
import type { CustomModelRecord } from '../storage/custom-models-repository.js';
import type { Repositories } from '../storage/repositories.js';
import type { UserRow } from '../storage/schema.js';
import { AdminInputError } from './admin-errors.js';

export interface NewCustomModel {
  readonly ownerEmail: string;
  /** `provider:model` */
  readonly id: string;
  /** USD per million tokens. */
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cachedInputPerMTok?: number | undefined;
  readonly contextWindow?: number | undefined;
  readonly maxOutputTokens?: number | undefined;
  readonly tools?: boolean | undefined;
  readonly vision?: boolean | undefined;
}

/** Higher than any real price list, low enough to catch a price typed per token instead of per million. */
const MAX_PRICE_PER_MTOK = 10_000;
const MAX_TOKENS = 100_000_000;

/**
 * Models an owner declares, with their prices: new models of a preset or of
 * their custom provider, or their own prices for a shipped model (same id).
 */
export function createCustomModelAdmin(repositories: Repositories, catalog: ModelCatalog, ownerByEmail: (email: string) => Promise<UserRow>) {
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
      const contextWindow = input.contextWindow ?? shipped?.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow;
      const maxOutputTokens = input.maxOutputTokens ?? Math.min(shipped?.maxOutputTokens ?? CUSTOM_MODEL_DEFAULTS.maxOutputTokens, contextWindow);
      if (!Number.isInteger(contextWindow) || contextWindow < 1 || contextWindow > MAX_TOKENS) throw new AdminInputError(`--context-window must be a whole number from 1 to ${MAX_TOKENS}.`);
      if (!Number.isInteger(maxOutputTokens) || maxOutputTokens < 1 || maxOutputTokens > contextWindow) {
        throw new AdminInputError(`--max-output must be a whole number from 1 to the context window (${contextWindow}).`);
      }
      const { record, replaced } = await repositories.customModels.upsert({
        ownerId: owner.id,
        provider: ref.provider,
        model: ref.model,
        inputPerMTok: input.inputPerMTok,
        outputPerMTok: input.outputPerMTok,
        cachedInputPerMTok: input.cachedInputPerMTok,
        contextWindow,
        maxOutputTokens,
        // Flags add capabilities; a shipped model keeps the ones it has.
        supportsTools: input.tools === true || shipped?.capabilities.tools === true,
        supportsVision: input.vision === true || shipped?.capabilities.vision === true,
        qualityScore: undefined,
        activeParamsB: undefined,
      });
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

/** A price in USD per million tokens as typed: "2.5", "0.15", "3". */
export function parsePrice(text: string, flag: string): number {
  if (!/^\d{1,6}(\.\d{1,9})?$/.test(text.trim())) throw new AdminInputError(`${flag} must be a price in USD per million tokens, like 0.15 or 2.5, not "${text}".`);
  return Number(text.trim());
}
