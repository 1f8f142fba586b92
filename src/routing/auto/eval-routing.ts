import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { readModelsFile, readRoutingDataset, RoutingDataError, type PricedModel, type RoutingDataset } from './dataset.js';
import { evaluateRouting, predictPrompts, resolveAbilities, type EvaluationReport, type ResolvedAbility } from './evaluate.js';
import type { Table } from './metrics.js';
import type { AutoRouterModel } from './model.js';

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
 * writes the predictions, and scores them against the baselines.
 */
export async function runRoutingEvaluation(model: AutoRouterModel, files: RoutingEvaluationFiles): Promise<RoutingEvaluationResult> {
  const [dataset, priced, calibration] = await Promise.all([
    readRoutingDataset(files.data),
    readModelsFile(files.models),
    files.calibration === undefined ? Promise.resolve(undefined) : readRoutingDataset(files.calibration),
  ]);
  const models = modelsToEvaluate(dataset, priced, files.models);
  if (models.length < 2) throw new RoutingDataError(`${files.data} scores one model; routing needs at least two.`);
  const abilities = resolveAbilities(model, models, calibration);
  const predicted = predictPrompts(model, dataset.prompts, abilities);
  await writePredictions(files.predictions, models, predicted);
  const scored = new Set(dataset.scores.keys());
  return {
    report: evaluateRouting(dataset, models, predicted),
    abilities,
    unusedModels: priced.map((entry) => entry.name).filter((name) => !scored.has(name)),
  };
}
