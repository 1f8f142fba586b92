import { abilityFromPrice, calibrateAbility } from './abilities.js';
import { CHARS_PER_TOKEN, DEFAULT_OUTPUT_TOKENS } from './auto-predictor.js';
import type { PricedModel, RoutingDataset } from './dataset.js';
import { createRandom } from './folds.js';
import {
  averageImprovementInQuality,
  costToReach,
  lambdaGrid,
  lambdaSweep,
  mean,
  nonDecreasingHull,
  twoModelMetrics,
  type CostPoint,
  type Table,
} from './metrics.js';
import { createPromptScorer, probabilityOf, type AutoRouterModel, type FamiliarityGate, type ModelAbility, type PromptTraits } from './model.js';

/**
 * Where each evaluated model's ability came from. 'calibrated': moved by
 * labelled calibration prompts (by `resolveAbilities`' ability fit, or, in
 * `eval routing`, by the router's own fit on top of this prior).
 */
export interface ResolvedAbility extends ModelAbility {
  readonly name: string;
  readonly source: 'trained' | 'price-prior' | 'calibrated';
  /** Labelled calibration prompts used, if calibrated. */
  readonly calibrationPrompts?: number;
}

/**
 * Abilities of the models to evaluate: the trained anchors' own or the
 * price/size prior, then calibrated on the calibration set's scores when it
 * scores that model. Reads only the calibration set's scores, never the
 * evaluated data's.
 */
export function resolveAbilities(model: AutoRouterModel, models: readonly PricedModel[], calibration?: RoutingDataset): ResolvedAbility[] {
  let traits: PromptTraits[] = [];
  if (calibration !== undefined) {
    const scorer = createPromptScorer(model);
    traits = calibration.prompts.map((prompt) => ({ ...scorer.score(prompt) }));
  }
  return models.map((priced): ResolvedAbility => {
    const anchor = model.anchors.find((candidate) => candidate.name === priced.name);
    const prior: ResolvedAbility =
      anchor !== undefined
        ? { name: priced.name, position: anchor.position, offset: anchor.offset, source: 'trained' }
        : { name: priced.name, ...abilityFromPrice(priced, model.anchors), source: 'price-prior' };
    const scores = calibration?.scores.get(priced.name);
    if (scores === undefined) return prior;
    return { name: priced.name, ...calibrateAbility(prior, traits, scores), source: 'calibrated', calibrationPrompts: scores.length };
  });
}

/** P(good answer) for every prompt and model, from the prompts alone; `gate` overrides the model's familiarity gate (null: none). */
export function predictPrompts(
  model: AutoRouterModel,
  prompts: readonly string[],
  abilities: readonly ModelAbility[],
  gate: FamiliarityGate | null | undefined = model.gate,
): Table {
  const scorer = createPromptScorer(model, gate);
  const values = new Float64Array(prompts.length * abilities.length);
  prompts.forEach((prompt, p) => {
    const traits = scorer.score(prompt);
    abilities.forEach((ability, m) => {
      values[p * abilities.length + m] = probabilityOf(ability, traits);
    });
  });
  return { prompts: prompts.length, models: abilities.length, values };
}

/** Cost of a prompt: (characters / 4) prompt tokens and {@link DEFAULT_OUTPUT_TOKENS} completion tokens at list prices. */
export function costTable(prompts: readonly string[], models: readonly PricedModel[]): Table {
  const values = new Float64Array(prompts.length * models.length);
  prompts.forEach((prompt, p) => {
    const tokens = Math.ceil(prompt.length / CHARS_PER_TOKEN);
    models.forEach((model, m) => {
      values[p * models.length + m] = (tokens * model.inputPrice + DEFAULT_OUTPUT_TOKENS * model.outputPrice) / 1e6;
    });
  });
  return { prompts: prompts.length, models: models.length, values };
}

export interface RouterReport {
  readonly name: string;
  /** Two models only; undefined for the single-model baselines. */
  readonly apgr?: number;
  readonly cpt50?: number;
  readonly cpt80?: number;
  readonly aiq: number;
  /** Total USD to reach 95 % of the best single model's mean quality, if reached. */
  readonly costTo95?: number;
}

export interface EvaluationReport {
  readonly prompts: number;
  readonly models: ReadonlyArray<{ readonly name: string; readonly quality: number; readonly cost: number }>;
  /** Two models only: the cheaper and the dearer. */
  readonly weak?: string;
  readonly strong?: string;
  readonly cheapest: string;
  readonly best: string;
  readonly costRange: { readonly low: number; readonly high: number };
  readonly routers: readonly RouterReport[];
}

export const BASELINE_SEED = 20240601;

/** Another router's predictions (prompts × models, in `models` order), scored beside auto. */
export interface NamedTable {
  readonly name: string;
  readonly table: Table;
}

export interface EvaluateOptions {
  /** Scored after auto, before the baselines, in this order. */
  readonly routers?: readonly NamedTable[];
}

/** Name of the router that knows only each model's mean score on the calibration prompts. */
export const MEAN_ACCURACY_ROUTER = 'mean-accuracy';

/**
 * The mean-accuracy router: every prompt gets each model's mean score on the
 * calibration prompts; a model the calibration does not score gets
 * `fallback(name)` (what is known of it without labels).
 */
export function meanAccuracyRouter(
  prompts: number,
  models: readonly PricedModel[],
  calibration: Pick<RoutingDataset, 'scores'> | undefined,
  fallback: (name: string) => number,
): NamedTable {
  const means = models.map((model) => {
    const scores = calibration?.scores.get(model.name);
    return scores === undefined || scores.length === 0 ? fallback(model.name) : mean(scores);
  });
  const values = new Float64Array(prompts * models.length);
  for (let p = 0; p < prompts; p += 1) values.set(means, p * models.length);
  return { name: MEAN_ACCURACY_ROUTER, table: { prompts, models: models.length, values } };
}

/**
 * Scores `predicted` (the auto router's probabilities, prompts × models in
 * `models` order) against the data's scores, with the baselines.
 */
export function evaluateRouting(dataset: RoutingDataset, models: readonly PricedModel[], predicted: Table, options: EvaluateOptions = {}): EvaluationReport {
  const n = dataset.prompts.length;
  const m = models.length;
  const actual = new Float64Array(n * m);
  models.forEach((model, k) => {
    const column = dataset.scores.get(model.name);
    if (column === undefined) throw new Error(`no scores for ${model.name}`);
    column.forEach((score, p) => {
      actual[p * m + k] = score;
    });
  });
  const actualTable: Table = { prompts: n, models: m, values: actual };
  const cost = costTable(dataset.prompts, models);
  const summary = models.map((model, k) => {
    let total = 0;
    for (let p = 0; p < n; p += 1) total += cost.values[p * m + k] ?? 0;
    return { name: model.name, quality: mean(dataset.scores.get(model.name) ?? []), cost: total };
  });
  const byCost = [...summary.keys()].sort((a, b) => (summary[a]?.cost ?? 0) - (summary[b]?.cost ?? 0));
  const cheapest = byCost[0] ?? 0;
  const dearest = byCost[byCost.length - 1] ?? 0;
  const best = [...summary.keys()].reduce((a, b) => ((summary[b]?.quality ?? 0) > (summary[a]?.quality ?? 0) ? b : a), 0);
  const low = summary[cheapest]?.cost ?? 0;
  const high = summary[dearest]?.cost ?? 0;
  const bestQuality = summary[best]?.quality ?? 0;
  // Every curve may fall back on the cheapest model alone (RouterBench's curves start there too).
  const cheapestPoint: CostPoint = { cost: low, quality: summary[cheapest]?.quality ?? 0 };
  const lambdas = lambdaGrid(cost);

  const random = createRandom(BASELINE_SEED);
  const randomTable: Table = { prompts: n, models: m, values: Float64Array.from({ length: n * m }, () => random()) };
  const lengthRank = quantileRanks(dataset.prompts.map((prompt) => prompt.length));
  const priceRank = quantileRanks(summary.map((entry) => entry.cost));
  const lengthTable: Table = { prompts: n, models: m, values: Float64Array.from({ length: n * m }, (_, i) => (lengthRank[Math.floor(i / m)] ?? 0) * (priceRank[i % m] ?? 0)) };

  const twoModels = m === 2;
  const weakColumn = (table: Table) => column(table, cheapest);
  const strongColumn = (table: Table) => column(table, dearest);
  const pair = (score: ArrayLike<number>) => {
    const metrics = twoModelMetrics(score, weakColumn(actualTable), strongColumn(actualTable));
    return { apgr: metrics.apgr, ...(metrics.cpt50 === undefined ? {} : { cpt50: metrics.cpt50 }), ...(metrics.cpt80 === undefined ? {} : { cpt80: metrics.cpt80 }) };
  };
  const curve = (points: readonly CostPoint[]) => {
    const hull = nonDecreasingHull([cheapestPoint, ...points]);
    const reach = costToReach(hull, 0.95 * bestQuality);
    return { aiq: averageImprovementInQuality(hull, low, high), ...(reach === undefined ? {} : { costTo95: reach }) };
  };
  const swept = (name: string, table: Table, twoModelScore: ArrayLike<number>): RouterReport => ({
    name,
    ...(twoModels ? pair(twoModelScore) : {}),
    ...curve(lambdaSweep(table, cost, actualTable, lambdas)),
  });
  const single = (name: string, k: number): RouterReport => ({ name, ...curve([{ cost: summary[k]?.cost ?? 0, quality: summary[k]?.quality ?? 0 }]) });
  const gain = (table: Table) => {
    const strong = strongColumn(table);
    const weak = weakColumn(table);
    return strong.map((value, p) => value - (weak[p] ?? 0));
  };

  const routers: RouterReport[] = [
    swept('auto', predicted, gain(predicted)),
    ...(options.routers ?? []).map((router) => swept(router.name, router.table, gain(router.table))),
    swept('random', randomTable, column(randomTable, 0)),
    swept('prompt-length', lengthTable, dataset.prompts.map((prompt) => prompt.length)),
    single('always-cheapest', cheapest),
    single('always-best', best),
    swept('oracle', actualTable, gain(actualTable)),
  ];
  return {
    prompts: n,
    models: summary,
    ...(twoModels ? { weak: models[cheapest]?.name ?? '', strong: models[dearest]?.name ?? '' } : {}),
    cheapest: models[cheapest]?.name ?? '',
    best: models[best]?.name ?? '',
    costRange: { low, high },
    routers,
  };
}

function column(table: Table, model: number): Float64Array {
  return Float64Array.from({ length: table.prompts }, (_, p) => table.values[p * table.models + model] ?? 0);
}

/** Each value's rank scaled to (0, 1] (ties share the highest rank). */
function quantileRanks(values: readonly number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  return values.map((value) => {
    let lowIndex = 0;
    let highIndex = sorted.length;
    while (lowIndex < highIndex) {
      const middle = (lowIndex + highIndex) >> 1;
      if ((sorted[middle] ?? 0) <= value) lowIndex = middle + 1;
      else highIndex = middle;
    }
    return lowIndex / sorted.length;
  });
}
