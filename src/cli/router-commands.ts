import { AdminInputError } from '../admin/admin-errors.js';
import type { RouterWithOwner } from '../admin/admin-service.js';
import { describeBudget, parseBudgetFlags } from '../admin/budget-admin.js';
import { applySettingsChange, formatWeights, parseSettingNumber, parseWeights, type RouterSettingsChange } from '../admin/router-settings-input.js';
import type { ModelKind } from '../catalog/catalog.js';
import type { RouterFit, RouterSettings } from '../routing/routing-contract.js';
import { STRATEGY_NAMES } from '../routing/strategies/routing-strategy.js';
import { parseWholeNumber } from '../admin/admin-service.js';
import { splitList, type CommandSpec, type OptionSpec, type OptionValues } from './command.js';
import { isoTime, renderTable, shortTime, type JsonObject } from './output.js';

/** The JSON shape of a router in every command's output. */
export function routerJson({ router, ownerEmail, kind }: RouterWithOwner): JsonObject {
  return {
    id: router.id,
    name: router.name,
    owner: ownerEmail,
    kind,
    strategy: router.strategy,
    models: router.models,
    rpm: router.rpmLimit ?? null,
    tpm: router.tpmLimit ?? null,
    settings: settingsJson(router.settings),
    createdAt: isoTime(router.createdAt),
    updatedAt: isoTime(router.updatedAt),
  };
}

/** "embedding " for an embedding router, nothing for a chat router (as every router was before embeddings). */
function kindLabel(kind: ModelKind): string {
  return kind === 'embedding' ? 'embedding ' : '';
}

/** Every setting, `null` where the default applies. */
function settingsJson(settings: RouterSettings): JsonObject {
  const weights = settings.weights;
  return {
    weights:
      weights === undefined ? null : { cost: weights.cost ?? 0, latency: weights.latency ?? 0, quality: weights.quality ?? 0, carbon: weights.carbon ?? 0 },
    qualityTarget: settings.qualityTarget ?? null,
    maxCostPerRequestUsd: settings.maxCostPerRequestUsd ?? null,
    // Only once set or calibrated, so routers without them print as before.
    ...(settings.autoAbilities === undefined
      ? {}
      : { autoAbilities: Object.fromEntries(Object.entries(settings.autoAbilities).map(([id, ability]) => [id, { ...ability }])) }),
    ...(settings.exploration === undefined ? {} : { exploration: settings.exploration }),
    ...(settings.autoFit === undefined ? {} : { autoFit: fitJson(settings.autoFit) }),
  };
}

/** A router's fit as people read it: when, from how many labels, per model; the weights stay in the database. */
function fitJson(fit: RouterFit): JsonObject {
  return {
    fittedAt: fit.fittedAt,
    labels: fit.labels,
    models: Object.fromEntries(Object.entries(fit.models).map(([id, model]) => [id, { labels: model.labels }])),
  };
}

/** The settings flags `router create` and `router update` share. */
const SETTINGS_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  weights: {
    type: 'string',
    valueName: 'cost=w,latency=w,quality=w,carbon=w',
    description: 'balanced: weights ≥ 0 of each criterion, left-out ones 0; "equal" for the default',
  },
  'quality-target': { type: 'string', valueName: '0..1', description: 'auto: the predicted probability of a good answer to aim for (default 0.8); "none" for the default' },
  exploration: { type: 'string', valueName: '0..1', description: 'auto: the share of requests that try a model the router is unsure of (default 0.05; 0 never); "none" for the default' },
  'max-cost': { type: 'string', valueName: 'usd', description: 'Skip models whose expected cost for a request is above this many USD; "none" for no ceiling' },
  'budget-usd': { type: 'string', valueName: 'usd', description: 'Spend cap of the router in USD per --budget-period (every key together); "none" to remove it' },
  'budget-period': { type: 'string', valueName: 'day|month', description: 'UTC calendar day or month the budget covers (default month)' },
  rpm: { type: 'string', valueName: 'n', description: 'Requests per minute across every key of the router (any 60 s window); "none" to remove; default no router limit' },
  tpm: { type: 'string', valueName: 'n', description: 'Tokens per minute across every key of the router; "none" to remove; default no router limit' },
};

/** --rpm / --tpm of a router: a whole number, or "none" (null) to remove the limit. */
function routerLimit(options: OptionValues, flag: 'rpm' | 'tpm'): number | null | undefined {
  const text = options.string(flag);
  if (text === undefined) return undefined;
  return text.trim() === 'none' ? null : parseWholeNumber(text, `--${flag}`);
}

function settingsChange(options: OptionValues): RouterSettingsChange {
  const weights = options.string('weights');
  const qualityTarget = options.string('quality-target');
  const maxCost = options.string('max-cost');
  const exploration = options.string('exploration');
  return {
    ...(exploration !== undefined ? { exploration: parseSettingNumber(exploration, '--exploration') } : {}),
    ...(weights !== undefined ? { weights: parseWeights(weights) } : {}),
    ...(qualityTarget !== undefined ? { qualityTarget: parseSettingNumber(qualityTarget, '--quality-target') } : {}),
    ...(maxCost !== undefined ? { maxCostPerRequestUsd: parseSettingNumber(maxCost, '--max-cost') } : {}),
  };
}

/** What changed in a create (defaults left out), for the summary line. */
function settingsSummary(settings: RouterSettings): string {
  const parts = [
    ...(settings.weights !== undefined ? [`weights ${formatWeights(settings.weights)}`] : []),
    ...(settings.qualityTarget !== undefined ? [`quality target ${settings.qualityTarget}`] : []),
    ...(settings.maxCostPerRequestUsd !== undefined ? [`at most $${settings.maxCostPerRequestUsd} a request`] : []),
    ...(settings.exploration !== undefined ? [`exploration ${settings.exploration}`] : []),
  ];
  return parts.length === 0 ? '' : `; ${parts.join('; ')}`;
}

const createRouter: CommandSpec = {
  noun: 'router',
  verb: 'create',
  summary: 'Create a router and print its id',
  description:
    'Creates a router over the given models (provider:model ids from "modelport models list", in order of preference) with an optimization strategy, and prints its id: the value clients send as "model". The id is random and unguessable. A router serves chat or embeddings, as its models do: all of one kind, and an embedding router\'s all deployments of one model (one vector space; fallback never mixes vectors of different models). Settings (weights, quality target, cost ceiling) are optional; see docs/routing.md.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user who owns the router' },
    name: { type: 'string', valueName: 'name', required: true, description: 'A name for people to recognise it' },
    models: { type: 'string', valueName: 'p:m,p:m', required: true, description: 'Comma-separated provider:model ids' },
    strategy: { type: 'string', valueName: 'strategy', required: true, description: `One of ${STRATEGY_NAMES.join(', ')}` },
    ...SETTINGS_OPTIONS,
  },
  examples: [
    'modelport router create --owner owner@example.com --name support-bot --models sim:small,sim:medium --strategy cost_optimized',
    'modelport router create --owner owner@example.com --name mix --models sim:small,sim:large --strategy balanced --weights cost=0.5,quality=0.5 --max-cost 0.01',
    'modelport router create --owner owner@example.com --name vectors --models openai:text-embedding-3-small,azure:text-embedding-3-small --strategy latency_optimized',
  ],
  async run(options, context) {
    const budget = parseBudgetFlags(options.string('budget-usd'), options.string('budget-period'));
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner');
    const router = await admin.createRouter({
      ownerEmail,
      name: options.requiredString('name'),
      models: splitList(options.requiredString('models')),
      strategy: options.requiredString('strategy'),
      // On a new router "none"/"equal" simply mean the default.
      settings: applySettingsChange({}, settingsChange(options)),
      rpmLimit: routerLimit(options, 'rpm') ?? undefined,
      tpmLimit: routerLimit(options, 'tpm') ?? undefined,
    });
    const budgetSet = budget?.amountUsd == null ? undefined : await admin.setBudget(ownerEmail, 'router', router.id, budget);
    const kind = (await admin.routerKinds(router.ownerId))(router);
    return {
      json: { router: { ...routerJson({ router, ownerEmail: ownerEmail.toLowerCase(), kind }), budget: budgetSet === undefined ? null : { usd: budgetSet.amountUsd, period: budgetSet.period } } },
      stdout: `${router.id}\n`,
      stderr: `Created ${kindLabel(kind)}router "${router.name}" for ${ownerEmail}: ${router.strategy} over ${router.models.join(', ')}${settingsSummary(router.settings)}${budgetSet === undefined ? '' : `; ${describeBudget(budgetSet)}`}.\n`,
    };
  },
};

const updateRouter: CommandSpec = {
  noun: 'router',
  verb: 'update',
  summary: 'Change a router\'s name, models, strategy or settings',
  description:
    'Changes what is given and keeps the rest; "none" (or "equal" for --weights) puts a setting back to its default. Running servers use the new router within their MODELPORT_CHANGE_POLL_MS. Prints the router id.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user who owns the router' },
    id: { type: 'string', valueName: 'router_id', required: true, description: 'The router to change (rt_...)' },
    name: { type: 'string', valueName: 'name', description: 'A new name' },
    models: { type: 'string', valueName: 'p:m,p:m', description: 'The new model list, replacing the old one' },
    strategy: { type: 'string', valueName: 'strategy', description: `One of ${STRATEGY_NAMES.join(', ')}` },
    ...SETTINGS_OPTIONS,
  },
  examples: [
    'modelport router update --owner owner@example.com --id rt_5VNRyTtKBPT4MDzf5JeF1Q --strategy balanced --weights cost=0.5,latency=0.2,quality=0.2,carbon=0.1',
    'modelport router update --owner owner@example.com --id rt_5VNRyTtKBPT4MDzf5JeF1Q --quality-target 0.8 --max-cost none',
  ],
  async run(options, context) {
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner');
    const models = options.string('models');
    const id = options.requiredString('id');
    const budget = parseBudgetFlags(options.string('budget-usd'), options.string('budget-period'));
    const budgetOnly = budget !== undefined && ['name', 'strategy', 'models', 'weights', 'quality-target', 'exploration', 'max-cost', 'rpm', 'tpm'].every((flag) => options.string(flag) === undefined);
    if (budget !== undefined) await admin.setBudget(ownerEmail, 'router', id, budget);
    const router = budgetOnly
      ? (await admin.listRoutersWithOwners(ownerEmail)).find((entry) => entry.router.id === id)?.router
      : await admin.updateRouter({
          ownerEmail,
          id,
          name: options.string('name'),
          strategy: options.string('strategy'),
          models: models === undefined ? undefined : splitList(models),
          settings: settingsChange(options),
          rpmLimit: routerLimit(options, 'rpm'),
          tpmLimit: routerLimit(options, 'tpm'),
        });
    if (router === undefined) throw new Error(`router ${id} vanished while it was updated`);
    const budgetNow = await admin.findBudget('router', router.id);
    const { weights, qualityTarget, maxCostPerRequestUsd, exploration } = router.settings;
    const kind = (await admin.routerKinds(router.ownerId))(router);
    return {
      json: { router: { ...routerJson({ router, ownerEmail: ownerEmail.toLowerCase(), kind }), budget: budgetNow === undefined ? null : { usd: budgetNow.amountUsd, period: budgetNow.period } } },
      stdout: `${router.id}\n`,
      stderr:
        `Updated ${kindLabel(kind)}router "${router.name}": ${router.strategy} over ${router.models.join(', ')}; weights ${formatWeights(weights)}; ` +
        `quality target ${qualityTarget ?? 'default (0.8)'}${router.strategy === 'auto' ? `; exploration ${exploration ?? 'default (0.05)'}` : ''}; cost ceiling ${maxCostPerRequestUsd === undefined ? 'none' : `$${maxCostPerRequestUsd}`}${budgetNow === undefined ? '' : `; ${describeBudget(budgetNow)}`}.\n`,
    };
  },
};

const listRouters: CommandSpec = {
  noun: 'router',
  verb: 'list',
  readsOnly: true,
  summary: 'List routers, of one owner or of everyone',
  description: 'Lists routers (deleted ones are left out), oldest first.',
  options: {
    owner: { type: 'string', valueName: 'email', description: 'Only the routers of this user' },
  },
  examples: ['modelport router list', 'modelport router list --owner owner@example.com --json'],
  async run(options, context) {
    const admin = await context.admin();
    const routers = await admin.listRoutersWithOwners(options.string('owner'));
    const table =
      routers.length === 0
        ? '(no routers)\n'
        : renderTable(
            ['ID', 'NAME', 'KIND', 'OWNER', 'STRATEGY', 'MODELS', 'CREATED'],
            routers.map(({ router, ownerEmail, kind }) => [router.id, router.name, kind, ownerEmail, router.strategy, router.models.join(','), shortTime(router.createdAt)]),
          );
    return { json: { routers: routers.map(routerJson) }, stdout: table };
  },
};

const calibrateRouterCommand: CommandSpec = {
  noun: 'router',
  verb: 'calibrate',
  summary: 'Fit an auto router to labelled examples of your own traffic',
  description:
    'Reads labelled examples (JSON lines {"prompt": "...", "scores": {"provider:model": 0|1}}, the format of shared/data/routing/mmlu.jsonl, keyed by the router\'s model ids), stores them as the router\'s calibration labels (replacing earlier ones; feedback stays) and fits, on them and its feedback, which of its models wins on which kind of prompt, shrunk toward what the catalog says of each model. The router routes with the fit from its next request, and refits in the background as feedback arrives. The dashboard\'s router page takes the same file. Prints the router id.',
  options: {
    owner: { type: 'string', valueName: 'email', required: true, description: 'Email of the user who owns the router' },
    id: { type: 'string', valueName: 'router_id', required: true, description: 'The router to calibrate (rt_...)' },
    file: { type: 'string', valueName: 'examples.jsonl', required: true, description: 'Labelled examples scoring the router\'s models' },
  },
  examples: ['modelport router calibrate --owner owner@example.com --id rt_5VNRyTtKBPT4MDzf5JeF1Q --file labelled.jsonl'],
  async run(options, context) {
    const admin = await context.admin();
    const ownerEmail = options.requiredString('owner');
    const { readRoutingDataset, RoutingDataError } = await import('../routing/auto/dataset.js');
    const file = options.requiredString('file');
    let examples: Awaited<ReturnType<typeof readRoutingDataset>>;
    try {
      examples = await readRoutingDataset(file);
    } catch (error) {
      if (error instanceof RoutingDataError) throw new AdminInputError(error.message);
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') throw new AdminInputError(`${file}: no such file.`);
      throw error;
    }
    const { router, modelsFitted, ignored, fit } = await admin.calibrateRouter({ ownerEmail, id: options.requiredString('id'), examples });
    const lines = Object.entries(fit.models).map(([id, model]) => `  ${id}: ${model.labels} labels`);
    // Embedding routers cannot be calibrated (router-learning.ts), so this one serves chat.
    return {
      json: { router: routerJson({ router, ownerEmail: ownerEmail.toLowerCase(), kind: 'chat' }), examples: examples.prompts.length, modelsFitted: [...modelsFitted], ignored: [...ignored] },
      stdout: `${router.id}\n`,
      stderr:
        `Calibrated router "${router.name}" from ${examples.prompts.length} examples; fitted on ${fit.labels} labels at ${fit.fittedAt}:\n${lines.join('\n')}\n` +
        (ignored.length === 0 ? '' : `Ignored (not in the router): ${ignored.join(', ')}.\n`),
    };
  },
};

export const routerCommands: readonly CommandSpec[] = [createRouter, updateRouter, listRouters, calibrateRouterCommand];
