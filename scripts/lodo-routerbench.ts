/**
 * The RouterBench subset as an owner's traffic: the weights never saw it
 * (trained on MMLU only); each domain is held out in turn, the router gets k
 * labelled prompts of it as calibration and the rest are scored with
 * RouterBench's protocol, against the baselines and the mean-accuracy router.
 */
import type { PricedModel, RoutingDataset } from '../src/routing/auto/dataset.js';
import { calibrateAbility } from '../src/routing/auto/abilities.js';
import { evaluateRouting, meanAccuracyRouter, resolveAbilities, type EvaluationReport, type NamedTable } from '../src/routing/auto/evaluate.js';
import { createRandom } from '../src/routing/auto/folds.js';
import type { Table } from '../src/routing/auto/metrics.js';
import { probabilityOf, type AutoRouterModel, type ModelAbility, type PromptTraits } from '../src/routing/auto/model.js';
import { createPromptVectorizer, traitsOfVector } from '../src/routing/auto/prompt-vector.js';
import { fitRouter, predictWithFit, type RouterLabel } from '../src/routing/auto/router-fit.js';
import type { LodoDesign } from './lodo-design.js';
import { subset } from './lodo-mmlu.js';

/** The pseudo-domain of every domain's prompts together. */
export const MIXED = 'mixed';

/** The routers of the learning curve, in table order (evaluateRouting adds the baselines). */
export const CURVE_ROUTERS = ['auto', 'auto-ability-calibration', 'mean-accuracy', 'prompt-length', 'random', 'always-cheapest', 'always-best', 'oracle'] as const;

export interface RouterScore {
  readonly aiq: number;
  /** costTo95 / the best model's cost on the same prompts; undefined when never reached. */
  readonly costShare?: number;
  readonly apgr?: number;
}

export interface CurveRun {
  readonly repeat: number;
  readonly testPrompts: number;
  readonly routers: Readonly<Record<string, RouterScore>>;
  /** The two-model pair on the same test prompts. */
  readonly pair?: Readonly<Record<string, RouterScore>>;
}

export interface CurvePoint {
  readonly design: string;
  readonly domain: string;
  readonly k: number;
  readonly runs: readonly CurveRun[];
}

export interface RouterbenchSetup {
  readonly dataset: RoutingDataset;
  readonly models: readonly PricedModel[];
  readonly model: AutoRouterModel;
  /** The anchors' log-odds at which the k = 0 mean-accuracy router reads the prior abilities. */
  readonly meanTraits: PromptTraits;
  /** Names of the two-model check, cheaper first, if both are scored. */
  readonly pair?: readonly [string, string];
  readonly ks: readonly number[];
  readonly repeats: number;
  readonly seed: number;
  readonly log: (line: string) => void;
}

/** Mixtral 8x7B against GPT-4 1106 if both are scored, else the cheapest against the best. */
export function choosePair(dataset: RoutingDataset, models: readonly PricedModel[]): [string, string] {
  const names = models.map((model) => model.name);
  const mixtral = names.find((name) => /mixtral-8x7b/i.test(name));
  const gpt4 = names.find((name) => name === 'gpt-4-1106-preview');
  if (mixtral !== undefined && gpt4 !== undefined) return [mixtral, gpt4];
  const price = (model: PricedModel) => 3 * model.inputPrice + model.outputPrice;
  const cheapest = [...models].sort((a, b) => price(a) - price(b))[0]?.name ?? '';
  const quality = (name: string) => Array.from(dataset.scores.get(name) ?? []).reduce((sum, value) => sum + value, 0);
  const best = [...names].sort((a, b) => quality(b) - quality(a))[0] ?? '';
  return [cheapest, best];
}

function scoresOf(report: EvaluationReport): Record<string, RouterScore> {
  const bestCost = report.models.find((entry) => entry.name === report.best)?.cost ?? 0;
  return Object.fromEntries(
    report.routers.map((router) => [
      router.name,
      {
        aiq: router.aiq,
        ...(router.costTo95 === undefined || bestCost === 0 ? {} : { costShare: router.costTo95 / bestCost }),
        ...(router.apgr === undefined ? {} : { apgr: router.apgr }),
      },
    ]),
  );
}

function probabilities(traits: readonly PromptTraits[], abilities: readonly ModelAbility[]): Table {
  const values = new Float64Array(traits.length * abilities.length);
  traits.forEach((trait, p) => abilities.forEach((ability, m) => (values[p * abilities.length + m] = probabilityOf(ability, trait))));
  return { prompts: traits.length, models: abilities.length, values };
}

function pickColumns(table: Table, columns: readonly number[]): Table {
  const values = new Float64Array(table.prompts * columns.length);
  for (let p = 0; p < table.prompts; p += 1) columns.forEach((m, c) => (values[p * columns.length + c] = table.values[p * table.models + m] ?? 0));
  return { prompts: table.prompts, models: columns.length, values };
}

/** Deterministic order of a domain's prompts for one repeat; calibration sets are its prefixes, so they nest across k. */
function shuffled(rows: readonly number[], seed: number): number[] {
  const order = [...rows];
  const random = createRandom(seed);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/** The learning curve of every domain of the subset for one design. */
export function routerbenchCurve(setup: RouterbenchSetup, design: LodoDesign): CurvePoint[] {
  const { dataset, models, model } = setup;
  const gate = design.gate === undefined ? model.gate : design.gate;
  const vectorize = createPromptVectorizer(model, gate);
  const vectors = dataset.prompts.map((prompt) => vectorize(prompt));
  const traits = vectors.map((vector) => traitsOfVector(vector, { weakLogit: 0, strongLogit: 0 }));
  const priors = resolveAbilities(model, models);
  const priorOf = new Map(priors.map((ability) => [ability.name, { position: ability.position, offset: ability.offset }]));
  const withPriors = models.map((entry) => ({ name: entry.name, ability: priorOf.get(entry.name) ?? { position: 0.5, offset: 0 } }));
  const pairColumns = setup.pair === undefined ? undefined : setup.pair.map((name) => models.findIndex((entry) => entry.name === name));
  const pairModels = pairColumns?.map((m) => models[m] as PricedModel);
  const priorMean = (name: string) => probabilityOf(priorOf.get(name) ?? { position: 0.5, offset: 0 }, setup.meanTraits);

  const domains = [...new Set(dataset.subjects.map((subject) => subject ?? ''))].sort();
  // Besides each domain alone, the three mixed, as an owner's traffic of several kinds would be: there the
  // calibration can learn which model wins on which kind of prompt.
  const groups: [string, number[]][] = domains.map((domain) => [domain, dataset.subjects.flatMap((subject, index) => ((subject ?? '') === domain ? [index] : []))]);
  groups.push([MIXED, dataset.prompts.map((_, index) => index)]);
  const points: CurvePoint[] = [];
  groups.forEach(([domain, rows], d) => {
    for (const k of setup.ks) {
      if (k >= rows.length) {
        setup.log(`routerbench ${domain}: k = ${k} leaves no prompt to score; skipped`);
        continue;
      }
      const started = performance.now();
      const runs: CurveRun[] = [];
      const repeats = k === 0 ? 1 : setup.repeats;
      for (let repeat = 0; repeat < repeats; repeat += 1) {
        const order = shuffled(rows, setup.seed * 7919 + d * 131 + repeat);
        const calibrationRows = order.slice(0, k);
        const testRows = order.slice(k);
        const test = subset(dataset, testRows);
        const calibration = subset(dataset, calibrationRows);
        const testVectors = testRows.map((index) => vectors[index] as Float32Array);
        const testTraits = testRows.map((index) => traits[index] as PromptTraits);
        let auto: Table;
        const routers: NamedTable[] = [];
        if (k === 0) {
          auto = predictWithFit(testVectors, withPriors);
          // Nothing to calibrate with: the old calibration is the prior.
          routers.push({ name: 'auto-ability-calibration', table: auto });
          routers.push(meanAccuracyRouter(testRows.length, models, undefined, priorMean));
        } else {
          const labels: RouterLabel[] = calibrationRows.flatMap((index) =>
            models.map((entry) => ({ vector: vectors[index] as Float32Array, model: entry.name, score: dataset.scores.get(entry.name)?.[index] ?? 0 })),
          );
          const fit = fitRouter({ labels, priorAbility: (name) => priorOf.get(name) ?? { position: 0.5, offset: 0 }, options: design.fit });
          auto = predictWithFit(testVectors, withPriors, fit);
          const calibrationTraits = calibrationRows.map((index) => traits[index] as PromptTraits);
          const calibrated = withPriors.map((entry) => calibrateAbility(entry.ability, calibrationTraits, calibration.scores.get(entry.name) ?? new Float64Array(k)));
          routers.push({ name: 'auto-ability-calibration', table: probabilities(testTraits, calibrated) });
          routers.push(meanAccuracyRouter(testRows.length, models, calibration, priorMean));
        }
        const report = evaluateRouting(test, models, auto, { routers });
        let pair: Record<string, RouterScore> | undefined;
        if (pairColumns !== undefined && pairModels !== undefined) {
          const pairData: RoutingDataset = { ...test, scores: new Map(pairModels.map((entry) => [entry.name, test.scores.get(entry.name) ?? new Float64Array()])) };
          const pairRouters = routers.filter((router) => router.name !== 'mean-accuracy').map((router) => ({ ...router, table: pickColumns(router.table, pairColumns) }));
          pair = scoresOf(evaluateRouting(pairData, pairModels, pickColumns(auto, pairColumns), { routers: pairRouters }));
        }
        runs.push({ repeat, testPrompts: testRows.length, routers: scoresOf(report), ...(pair === undefined ? {} : { pair }) });
      }
      setup.log(`routerbench ${design.name} ${domain} k=${k}: ${repeats} repeat(s) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      points.push({ design: design.name, domain, k, runs });
    }
  });
  return points;
}
