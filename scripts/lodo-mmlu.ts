/**
 * Leave-one-domain-out on MMLU: for each of MMLU's four categories
 * (domains.ts), the base weights are trained on the other three only (same
 * options as the shipped weights), the held-out domain is predicted and
 * scored with RouteLLM's protocol. Trained fold weights are cached on disk,
 * keyed by everything that shapes them.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PricedModel, RoutingDataset } from '../src/routing/auto/dataset.js';
import { MMLU_DOMAINS, mmluDomainOf, type MmluDomain } from '../src/routing/auto/domains.js';
import { evaluateRouting, meanAccuracyRouter, predictPrompts, type EvaluationReport } from '../src/routing/auto/evaluate.js';
import { DEFAULT_FEATURE_CONFIG } from '../src/routing/auto/features.js';
import { mean } from '../src/routing/auto/metrics.js';
import type { AutoRouterModel } from '../src/routing/auto/model.js';
import { buildFeatureMatrix, OUTCOME_CLASSES, trainJointOutcomes, trainMetaOnly, type FeatureMatrix } from '../src/routing/auto/train.js';
import { ANCHORS, FAMILIARITY_GATE, LENGTH_PRIOR, STRONG_ANCHOR, TRAIN_OPTIONS, WEAK_ANCHOR } from '../src/routing/auto/training-setup.js';
import { decodeWeightsFile, encodeWeightsFile, parseWeightsFile } from '../src/routing/auto/weights-file.js';
import type { LodoDesign } from './lodo-design.js';

/** Bump when the training recipe changes in a way the key below does not see. */
const CACHE_RECIPE = 2;

export interface MmluFold {
  readonly domain: MmluDomain;
  readonly model: AutoRouterModel;
  readonly test: readonly number[];
  /** Seconds spent training, 0 when read from the cache. */
  readonly trainSeconds: number;
}

export interface MmluDomainResult {
  readonly design: string;
  readonly domain: MmluDomain;
  readonly subjects: number;
  readonly report: EvaluationReport;
}

export function mmluModels(dataset: RoutingDataset): PricedModel[] {
  return [...dataset.scores.keys()].map((name) => {
    const anchor = ANCHORS.find((candidate) => candidate.name === name);
    if (anchor === undefined) throw new Error(`MMLU scores ${name}, which is not an anchor`);
    return { name, inputPrice: anchor.inputPrice, outputPrice: anchor.outputPrice };
  });
}

export function domainsOf(dataset: RoutingDataset): MmluDomain[] {
  return dataset.subjects.map((subject, index) => {
    const domain = mmluDomainOf(subject ?? '');
    if (domain === undefined) throw new Error(`prompt ${index + 1}: subject "${subject}" is in no MMLU domain`);
    return domain;
  });
}

/** Trains (or reads from `cacheDir`) the weights of every fold. */
export async function mmluFolds(dataset: RoutingDataset, dataSha256: string, cacheDir: string, log: (line: string) => void): Promise<MmluFold[]> {
  const weak = dataset.scores.get(WEAK_ANCHOR);
  const strong = dataset.scores.get(STRONG_ANCHOR);
  if (weak === undefined || strong === undefined) throw new Error(`MMLU must score ${WEAK_ANCHOR} and ${STRONG_ANCHOR}`);
  const domainOf = domainsOf(dataset);
  await mkdir(cacheDir, { recursive: true });
  let matrix: FeatureMatrix | undefined;
  const folds: MmluFold[] = [];
  for (const domain of MMLU_DOMAINS) {
    const train: number[] = [];
    const test: number[] = [];
    domainOf.forEach((d, index) => (d === domain ? test : train).push(index));
    // The gate is applied when predicting (see mmluLodo), so a new default gate needs no retraining.
    const recipe = { CACHE_RECIPE, dataSha256, domain, TRAIN_OPTIONS, LENGTH_PRIOR, DEFAULT_FEATURE_CONFIG, ANCHORS };
    const key = createHash('sha256').update(JSON.stringify(recipe)).digest('hex').slice(0, 24);
    const path = join(cacheDir, `mmlu-without-${domain}-${key}.json`);
    const cached = await readFile(path, 'utf8').catch(() => undefined);
    if (cached !== undefined) {
      folds.push({ domain, model: decodeWeightsFile(parseWeightsFile(JSON.parse(cached))), test, trainSeconds: 0 });
      log(`mmlu: weights without ${domain} read from ${path}`);
      continue;
    }
    const started = performance.now();
    matrix ??= buildFeatureMatrix(dataset.prompts, DEFAULT_FEATURE_CONFIG);
    const trained = trainJointOutcomes(matrix, { weak, strong }, train, TRAIN_OPTIONS);
    const metaOnly = trainMetaOnly(matrix, { weak, strong }, train, TRAIN_OPTIONS);
    const file = encodeWeightsFile({
      features: DEFAULT_FEATURE_CONFIG,
      weights: trained.weights,
      biases: trained.biases,
      anchors: ANCHORS,
      classes: OUTCOME_CLASSES,
      lengthPrior: LENGTH_PRIOR,
      gate: FAMILIARITY_GATE,
      fallback: { weights: metaOnly.weights, biases: metaOnly.biases },
      training: { heldOutDomain: domain, prompts: train.length, iterations: trained.iterations, metaOnlyIterations: metaOnly.iterations },
    });
    await writeFile(path, JSON.stringify(file));
    const seconds = (performance.now() - started) / 1000;
    log(`mmlu: trained without ${domain} (${train.length} prompts) in ${seconds.toFixed(1)} s`);
    // Decoded from the file, so the measured model is quantised exactly as shipped weights are.
    folds.push({ domain, model: decodeWeightsFile(file), test, trainSeconds: seconds });
  }
  return folds;
}

export function subset(dataset: RoutingDataset, rows: readonly number[]): RoutingDataset {
  return {
    prompts: rows.map((index) => dataset.prompts[index] ?? ''),
    subjects: rows.map((index) => dataset.subjects[index]),
    scores: new Map([...dataset.scores].map(([name, column]) => [name, Float64Array.from(rows, (index) => column[index] ?? 0)])),
  };
}

/** Scores each held-out domain for one design: auto (its gate, else today's FAMILIARITY_GATE), auto without a gate, the mean-accuracy router of the training domains, the baselines. */
export function mmluLodo(dataset: RoutingDataset, folds: readonly MmluFold[], design: LodoDesign): MmluDomainResult[] {
  const models = mmluModels(dataset);
  const abilities = models.map((model) => ANCHORS.find((anchor) => anchor.name === model.name) ?? ANCHORS[0]);
  return folds.map((fold) => {
    const held = subset(dataset, fold.test);
    const heldOut = new Set(fold.test);
    const trainRows = dataset.prompts.map((_, index) => index).filter((index) => !heldOut.has(index));
    const training = subset(dataset, trainRows);
    const gate = design.gate === undefined ? FAMILIARITY_GATE : design.gate;
    const predicted = predictPrompts(fold.model, held.prompts, abilities, gate);
    const routers = [meanAccuracyRouter(held.prompts.length, models, training, () => NaN)];
    if (gate !== null && gate !== undefined) routers.push({ name: 'auto-no-gate', table: predictPrompts(fold.model, held.prompts, abilities, null) });
    const report = evaluateRouting(held, models, predicted, { routers });
    return { design: design.name, domain: fold.domain, subjects: new Set(held.subjects).size, report };
  });
}

/** Mean anchor accuracies on MMLU: the traits the k = 0 mean-accuracy router places prior abilities at. */
export function mmluMeanTraits(dataset: RoutingDataset): { weakLogit: number; strongLogit: number } {
  const logit = (p: number) => Math.log(p / (1 - p));
  return { weakLogit: logit(mean(dataset.scores.get(WEAK_ANCHOR) ?? [])), strongLogit: logit(mean(dataset.scores.get(STRONG_ANCHOR) ?? [])) };
}
