/**
 * Hyper-parameter search for the `auto` predictor: the cross-validation of
 * cv-auto-router.ts for several configurations in one process (the features
 * are extracted once per feature configuration), printing, per configuration
 * and split seed, the pooled held-out APGR and AIQ and each fold's APGR
 * against prompt length's on the same fold. Choose by the pooled figures over
 * all folds and seeds, never by one fold.
 *
 *   npx tsx scripts/tune-auto-router.ts --seeds 1 --configs '[{"name":"a","options":{"penalty":1e-3}}]'
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readRoutingDataset, type PricedModel } from '../src/routing/auto/dataset.js';
import { evaluateRouting, predictPrompts } from '../src/routing/auto/evaluate.js';
import { DEFAULT_FEATURE_CONFIG, type FeatureConfig } from '../src/routing/auto/features.js';
import { foldsBySubject } from '../src/routing/auto/folds.js';
import { twoModelMetrics, type Table } from '../src/routing/auto/metrics.js';
import { buildFeatureMatrix, OUTCOME_CLASSES, trainJointOutcomes, type FeatureMatrix, type TrainOptions } from '../src/routing/auto/train.js';
import { ANCHORS, STRONG_ANCHOR, WEAK_ANCHOR } from '../src/routing/auto/training-setup.js';
import { decodeWeightsFile, encodeWeightsFile } from '../src/routing/auto/weights-file.js';

interface Candidate {
  readonly name: string;
  readonly options: TrainOptions;
  readonly features?: Partial<FeatureConfig>;
  /** Length priors to try after training: β·z(log length) moved from the weak anchor's log-odds to the strong one's. */
  readonly blends?: readonly number[];
}

const logit = (p: number) => Math.log(p / (1 - p));
const logistic = (x: number) => 1 / (1 + Math.exp(-x));
/** The standardised log length, as the length meta feature computes it. */
const lengthZ = (prompt: string) => (Math.log2(prompt.length + 1) - 8.5) / 1.25;

const DEFAULT_DATA = fileURLToPath(new URL('../../shared/data/routing/mmlu.jsonl', import.meta.url));
const { values } = parseArgs({
  options: { data: { type: 'string' }, folds: { type: 'string', default: '5' }, seeds: { type: 'string', default: '1' }, configs: { type: 'string' } },
});
const folds = Number(values.folds);
const seeds = (values.seeds ?? '1').split(',').map(Number);
const candidates = JSON.parse(values.configs ?? '[]') as Candidate[];

const dataset = await readRoutingDataset(values.data ?? DEFAULT_DATA);
const weak = dataset.scores.get(WEAK_ANCHOR);
const strong = dataset.scores.get(STRONG_ANCHOR);
if (weak === undefined || strong === undefined) throw new Error('missing anchors');
const models: PricedModel[] = [...dataset.scores.keys()].map((name) => {
  const anchor = ANCHORS.find((candidate) => candidate.name === name);
  if (anchor === undefined) throw new Error(`unknown model ${name}`);
  return { name, inputPrice: anchor.inputPrice, outputPrice: anchor.outputPrice };
});
const abilities = models.map((model) => ANCHORS.find((anchor) => anchor.name === model.name) ?? ANCHORS[0]);
const matrices = new Map<string, FeatureMatrix>();

for (const candidate of candidates) {
  const features: FeatureConfig = { ...DEFAULT_FEATURE_CONFIG, ...candidate.features };
  const key = JSON.stringify(features);
  const matrix = matrices.get(key) ?? buildFeatureMatrix(dataset.prompts, features);
  matrices.set(key, matrix);
  for (const seed of seeds) {
    const foldOf = foldsBySubject(dataset.subjects, folds, seed);
    const raw: Table = { prompts: dataset.prompts.length, models: models.length, values: new Float64Array(dataset.prompts.length * models.length) };
    const tests: number[][] = [];
    for (let fold = 0; fold < folds; fold += 1) {
      const train: number[] = [];
      const test: number[] = [];
      foldOf.forEach((k, index) => (k === fold ? test : train).push(index));
      tests.push(test);
      const trained = trainJointOutcomes(matrix, { weak, strong }, train, candidate.options);
      const model = decodeWeightsFile(
        encodeWeightsFile({ features, weights: trained.weights, biases: trained.biases, anchors: ANCHORS, classes: OUTCOME_CLASSES, training: {} }),
      );
      const heldOut = predictPrompts(model, test.map((index) => dataset.prompts[index] ?? ''), abilities);
      test.forEach((index, k) => {
        for (let m = 0; m < models.length; m += 1) raw.values[index * models.length + m] = heldOut.values[k * models.length + m] ?? 0;
      });
    }
    for (const beta of candidate.blends ?? [0]) {
      const predicted: Table = { ...raw, values: Float64Array.from(raw.values) };
      dataset.prompts.forEach((prompt, p) => {
        const shift = (beta / 2) * lengthZ(prompt);
        predicted.values[p * 2] = logistic(logit(raw.values[p * 2] ?? 0.5) - shift);
        predicted.values[p * 2 + 1] = logistic(logit(raw.values[p * 2 + 1] ?? 0.5) + shift);
      });
      const perFold: string[] = [];
      let won = 0;
      for (const test of tests) {
        const w = test.map((index) => weak[index] ?? 0);
        const s = test.map((index) => strong[index] ?? 0);
        const gain = test.map((index) => (predicted.values[index * 2 + 1] ?? 0) - (predicted.values[index * 2] ?? 0));
        const apgr = twoModelMetrics(gain, w, s).apgr;
        const length = twoModelMetrics(test.map((index) => (dataset.prompts[index] ?? '').length), w, s).apgr;
        if (apgr > length) won += 1;
        perFold.push(`${apgr.toFixed(3)}/${length.toFixed(3)}`);
      }
      const report = evaluateRouting(dataset, models, predicted);
      const auto = report.routers.find((router) => router.name === 'auto');
      const length = report.routers.find((router) => router.name === 'prompt-length');
      process.stdout.write(
        `${candidate.name} β=${beta}\tseed ${seed}\tAPGR ${auto?.apgr?.toFixed(4)}\tAIQ ${auto?.aiq.toFixed(4)}\tlength ${length?.apgr?.toFixed(4)}/${length?.aiq.toFixed(4)}\t` +
          `folds won ${won}/${folds}\t${perFold.join(' ')}\n`,
      );
    }
  }
}
