import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { readModelsFile, readRoutingDataset, RoutingDataError, type PricedModel, type RoutingDataset } from './dataset.js';
import { evaluateRouting, meanAccuracyRouter, predictPrompts, resolveAbilities, type EvaluationReport, type ResolvedAbility } from './evaluate.js';
import { mean, type Table } from './metrics.js';
import { UNKNOWN_MODEL_PRIOR } from './calibrate-router.js';
import type { AutoRouterModel } from './model.js';
import { createPromptVectorizer } from './prompt-vector.js';
import { fitRouter, predictWithFit, type RouterLabel } from './router-fit.js';

export interface RoutingEvaluationFiles {
  readonly data: string;
  readonly models: string;
  readonly calibration?: string;
  readonly predictions: string;
}

export interface RoutingEvaluationResult {
  readonly report: EvaluationReport;
  readonly abilities: readonly ResolvedAbility[];
  /** Models of MODELS.json that the data does not score (ignored). */
  readonly unusedModels: readonly string[];
}

/** The priced models the data scores, in the data's order; every one must be priced. */
export function modelsToEvaluate(dataset: RoutingDataset, priced: readonly PricedModel[], modelsPath: string): PricedModel[] {
  const byName = new Map(priced.map((model) => [model.name, model]));
  return [...dataset.scores.keys()].map((name) => {
    const model = byName.get(name);
    if (model === undefined) throw new RoutingDataError(`${modelsPath} has no prices for "${name}", which the data scores.`);
    return model;
  });
}

/** Writes one `{"predicted": {...}}` line per prompt, in prompt order. */
export async function writePredictions(path: string, models: readonly PricedModel[], predicted: Table): Promise<void> {
  const out = createWriteStream(path, { encoding: 'utf8' });
  const failed = once(out, 'error').then(([error]: unknown[]) => {
    throw error;
  });
  for (let p = 0; p < predicted.prompts; p += 1) {
    const entry: Record<string, number> = {};
    models.forEach((model, m) => {
      entry[model.name] = Number((predicted.values[p * models.length + m] ?? 0).toFixed(6));
    });
    if (!out.write(`${JSON.stringify({ predicted: entry })}\n`)) await Promise.race([once(out, 'drain'), failed]);
  }
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
}

/**
 * `modelport eval routing`: predicts every prompt of the data from its text
 * alone (the scores are read only afterwards, to score the predictions),
 * writes the predictions, and scores them against the baselines. With a
 * calibration set, the router's own fit on its labels (router-fit.ts, as
 * `router calibrate` makes it) adds to each model's prior, and the
 * mean-accuracy router of those labels joins the baselines.
 */
export async function runRoutingEvaluation(model: AutoRouterModel, files: RoutingEvaluationFiles): Promise<RoutingEvaluationResult> {
  const [dataset, priced, calibration] = await Promise.all([
    readRoutingDataset(files.data),
    readModelsFile(files.models),
    files.calibration === undefined ? Promise.resolve(undefined) : readRoutingDataset(files.calibration),
  ]);
  const models = modelsToEvaluate(dataset, priced, files.models);
  if (models.length < 2) throw new RoutingDataError(`${files.data} scores one model; routing needs at least two.`);
  const priors = resolveAbilities(model, models);
  let abilities: readonly ResolvedAbility[] = priors;
  let predicted: Table;
  if (calibration === undefined) predicted = predictPrompts(model, dataset.prompts, priors);
  else {
    const vectorize = createPromptVectorizer(model);
    const priorOf = new Map(priors.map((ability) => [ability.name, ability]));
    // Labels are only made for the evaluated models, which all have a prior.
    const fit = fitRouter({ labels: calibrationLabels(calibration, models, vectorize), priorAbility: (name) => priorOf.get(name) ?? UNKNOWN_MODEL_PRIOR });
    predicted = predictWithFit(dataset.prompts.map(vectorize), priors.map((ability) => ({ name: ability.name, ability })), fit);
    abilities = priors.map((ability): ResolvedAbility => {
      const fitted = fit.models[ability.name];
      return fitted === undefined ? ability : { ...ability, source: 'calibrated', calibrationPrompts: fitted.labels };
    });
  }
  await writePredictions(files.predictions, models, predicted);
  const scored = new Set(dataset.scores.keys());
  const routers = calibration === undefined ? [] : [meanAccuracyBaseline(model, models, priors, calibration, dataset.prompts.length)];
  return {
    report: evaluateRouting(dataset, models, predicted, { routers }),
    abilities,
    unusedModels: priced.map((entry) => entry.name).filter((name) => !scored.has(name)),
  };
}

/** One label per calibration prompt and evaluated model that the calibration scores. */
function calibrationLabels(calibration: RoutingDataset, models: readonly PricedModel[], vectorize: (text: string) => Float32Array): RouterLabel[] {
  const vectors = calibration.prompts.map(vectorize);
  return models.flatMap((entry) => {
    const scores = calibration.scores.get(entry.name);
    return scores === undefined ? [] : vectors.map((vector, p) => ({ vector, model: entry.name, score: scores[p] ?? 0 }));
  });
}

/**
 * The router that knows only each model's mean score on the calibration
 * prompts; a model they do not score gets its prior's mean predicted
 * probability on those prompts.
 */
function meanAccuracyBaseline(model: AutoRouterModel, models: readonly PricedModel[], priors: readonly ResolvedAbility[], calibration: RoutingDataset, prompts: number) {
  const prior = predictPrompts(model, calibration.prompts, priors);
  const priorMean = (name: string) => {
    const m = models.findIndex((entry) => entry.name === name);
    return mean(Float64Array.from({ length: prior.prompts }, (_, p) => prior.values[p * prior.models + m] ?? 0));
  };
  return meanAccuracyRouter(prompts, models, calibration, priorMean);
}
