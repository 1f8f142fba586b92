import { modelKind, type ModelCatalog, type ModelInfo, type ModelKind } from '../catalog/catalog.js';
import { layerOwnerModels } from '../catalog/owner-catalog.js';
import { routerKind, routerModelsProblem } from '../catalog/router-kind.js';
import type { RouterSettings } from '../routing/routing-contract.js';
import { STRATEGY_NAMES, isStrategyName } from '../routing/strategies/routing-strategy.js';
import type { Repositories } from '../storage/repositories.js';
import type { RouterChanges, RouterRecord } from '../storage/routers-repository.js';
import type { UserRow } from '../storage/schema.js';
import { AdminInputError } from './admin-errors.js';
import type { RoutingDataset } from '../routing/auto/dataset.js';
import { applySettingsChange, isEmptySettingsChange, validateRouterSettings, type RouterSettingsChange } from './router-settings-input.js';
import { calibrateRouterFromExamples, recordFeedback, routerSavings, type CalibrationResult, type SavingsBucket, type SavingsReport } from './router-learning.js';
import type { RoutingLabel } from '../storage/routing-labels-repository.js';

export interface NewRouterRequest {
  readonly ownerEmail: string;
  readonly name: string;
  readonly models: readonly string[];
  readonly strategy: string;
  /** Checked here (router-settings-input.ts). @default {} (every default) */
  readonly settings?: RouterSettings | undefined;
  /** Requests / tokens per minute across every key of the router; absent: no router limit. */
  readonly rpmLimit?: number | undefined;
  readonly tpmLimit?: number | undefined;
}

export interface RouterUpdateRequest {
  readonly ownerEmail: string;
  readonly id: string;
  readonly name?: string | undefined;
  readonly models?: readonly string[] | undefined;
  readonly strategy?: string | undefined;
  /** Per setting: a value replaces it, `null` goes back to the default, absent keeps it. */
  readonly settings?: RouterSettingsChange | undefined;
  /** A number sets the router's limit, `null` removes it, absent keeps it. */
  readonly rpmLimit?: number | null | undefined;
  readonly tpmLimit?: number | null | undefined;
}

function checkLimit(value: number | null | undefined, flag: string): void {
  if (value !== undefined && value !== null && (!Number.isInteger(value) || value < 1)) throw new AdminInputError(`${flag} must be a positive whole number (or "none").`);
}

/**
 * Creating and changing routers. Every write bumps the change counter, so
 * running servers drop their cached copy within MODELPORT_CHANGE_POLL_MS.
 */
export function createRouterAdmin(repositories: Repositories, catalog: ModelCatalog, ownerByEmail: (email: string) => Promise<UserRow>, now: () => number = Date.now) {
  const checkName = (name: string): string => {
    if (name.trim() === '') throw new AdminInputError('A router needs a name.');
    return name.trim();
  };
  const checkStrategy = (strategy: string): string => {
    if (!isStrategyName(strategy)) throw new AdminInputError(`Unknown strategy "${strategy}". Use one of: ${STRATEGY_NAMES.join(', ')}.`, 'strategy');
    return strategy;
  };
  const ownerCatalog = async (ownerId: string): Promise<ModelCatalog> => layerOwnerModels(catalog, await repositories.customModels.listByOwner(ownerId));
  /** Known models (the owner's own count, see "modelport model add") of one kind, and for embeddings of one vector space. */
  const checkModels = (known: ModelCatalog, models: readonly string[]): { ids: string[]; infos: ModelInfo[] } => {
    if (models.length === 0) throw new AdminInputError('A router needs at least one model.', 'models');
    const unknown = models.filter((model) => known.get(model) === undefined);
    if (unknown.length > 0) {
      throw new AdminInputError(
        `Unknown model(s): ${unknown.join(', ')}. Models are written provider:model, e.g. ${catalog.list().slice(0, 3).map((model) => model.id).join(', ')} (see "modelport models", or declare your own with "modelport model add").`,
        'models',
      );
    }
    const ids = [...new Set(models)];
    const infos = ids.map((id) => known.get(id)).filter((model) => model !== undefined);
    const problem = routerModelsProblem(infos);
    if (problem !== undefined) throw new AdminInputError(problem, 'models');
    return { ids, infos };
  };
  // auto predicts how good a chat answer will be: nothing it can tell among deployments of one embedding model.
  const checkStrategyForKind = (strategy: string, infos: readonly ModelInfo[]): void => {
    const first = infos[0];
    if (strategy === 'auto' && first !== undefined && modelKind(first) === 'embedding') {
      throw new AdminInputError(
        `The auto strategy predicts the quality of chat answers; an embedding router ranks with ${STRATEGY_NAMES.filter((name) => name !== 'auto').join(', ')}.`,
        'strategy',
      );
    }
  };

  return {
    async createRouter(input: NewRouterRequest): Promise<RouterRecord> {
      const owner = await ownerByEmail(input.ownerEmail);
      const name = checkName(input.name);
      const strategy = checkStrategy(input.strategy);
      const { ids: models, infos } = checkModels(await ownerCatalog(owner.id), input.models);
      checkStrategyForKind(strategy, infos);
      const settings = validateRouterSettings(input.settings ?? {});
      checkLimit(input.rpmLimit, '--rpm');
      checkLimit(input.tpmLimit, '--tpm');
      return repositories.routers.create({ ownerId: owner.id, name, strategy, models, settings, rpmLimit: input.rpmLimit, tpmLimit: input.tpmLimit });
    },

    /** Changes what is given and keeps the rest. */
    async updateRouter(input: RouterUpdateRequest): Promise<RouterRecord> {
      const owner = await ownerByEmail(input.ownerEmail);
      const current = await repositories.routers.findById(input.id);
      if (current === undefined || current.ownerId !== owner.id) throw new AdminInputError(`No router ${input.id} belongs to ${input.ownerEmail}.`);
      const settingsChange = input.settings ?? {};
      checkLimit(input.rpmLimit, '--rpm');
      checkLimit(input.tpmLimit, '--tpm');
      const limitsChange = input.rpmLimit !== undefined || input.tpmLimit !== undefined;
      if (input.name === undefined && input.models === undefined && input.strategy === undefined && isEmptySettingsChange(settingsChange) && !limitsChange) {
        throw new AdminInputError('Nothing to change: give at least one of name, models, strategy, weights, quality target, cost ceiling.');
      }
      const strategy = input.strategy === undefined ? undefined : checkStrategy(input.strategy);
      let models: string[] | undefined;
      if (input.models !== undefined || strategy !== undefined) {
        const known = await ownerCatalog(owner.id);
        // The strategy is checked against the models the router will have: new ones if given, else its own.
        const checked = input.models !== undefined ? checkModels(known, input.models) : undefined;
        models = checked?.ids;
        const infos = checked?.infos ?? current.models.map((id) => known.get(id)).filter((model) => model !== undefined);
        checkStrategyForKind(strategy ?? current.strategy, infos);
      }
      const changes: RouterChanges = {
        ...(input.name !== undefined ? { name: checkName(input.name) } : {}),
        ...(strategy !== undefined ? { strategy } : {}),
        ...(models !== undefined ? { models } : {}),
        ...(isEmptySettingsChange(settingsChange) ? {} : { settings: applySettingsChange(current.settings, settingsChange) }),
        ...(input.rpmLimit !== undefined ? { rpmLimit: input.rpmLimit } : {}),
        ...(input.tpmLimit !== undefined ? { tpmLimit: input.tpmLimit } : {}),
      };
      const updated = await repositories.routers.update(owner.id, input.id, changes);
      if (updated === undefined) throw new AdminInputError(`No router ${input.id} belongs to ${input.ownerEmail}.`);
      return updated;
    },

    /** Whether each of an owner's routers serves chat or embeddings: its models' kind, in the owner's catalog (read once). */
    async routerKinds(ownerId: string): Promise<(router: Pick<RouterRecord, 'models'>) => ModelKind> {
      const known = await ownerCatalog(ownerId);
      return (router) => routerKind(router.models, known);
    },

    /**
     * Stores labelled examples as the router's calibration labels and fits its `auto` router on all its labels
     * (router-learning.ts), so its next request routes with the fit.
     */
    async calibrateRouter(input: { readonly ownerEmail: string; readonly id: string; readonly examples: RoutingDataset }): Promise<CalibrationResult> {
      const owner = await ownerByEmail(input.ownerEmail);
      const current = await repositories.routers.findById(input.id);
      if (current === undefined || current.ownerId !== owner.id) throw new AdminInputError(`No router ${input.id} belongs to ${input.ownerEmail}.`);
      return calibrateRouterFromExamples({ repositories, catalog, now }, { ownerId: owner.id, routerId: input.id, examples: input.examples });
    },

    /** Feedback on an answered `auto` request of the owner's (router-learning.ts); an unknown request is an input error. */
    async recordFeedback(input: { readonly ownerEmail: string; readonly requestId: string; readonly raterId: string; readonly score: number; readonly comment?: string | undefined }): Promise<RoutingLabel> {
      const owner = await ownerByEmail(input.ownerEmail);
      const result = await recordFeedback({ repositories, catalog, now }, { ownerId: owner.id, requestId: input.requestId, raterId: input.raterId, score: input.score, comment: input.comment });
      if (result.label === undefined) throw new AdminInputError(result.notFound);
      return result.label;
    },

    /** A router's cost against always using its strongest model, per hour or day (router-learning.ts). */
    async routerSavings(input: { readonly ownerEmail: string; readonly routerId: string; readonly from: number; readonly to: number; readonly bucket: SavingsBucket }): Promise<SavingsReport> {
      const owner = await ownerByEmail(input.ownerEmail);
      return routerSavings({ repositories }, { ownerId: owner.id, routerId: input.routerId, from: input.from, to: input.to, bucket: input.bucket });
    },
  };
}
