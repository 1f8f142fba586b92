/**
 * Cross-validates the `auto` predictor on MMLU with whole subjects held out:
 * the subjects are split into folds, each fold is predicted by a model trained
 * on the other folds only (same features and options as the shipped weights,
 * quantised the same way), and the pooled held-out predictions are scored
 * with RouteLLM's protocol against the baselines.
 *
 *   npm run cv:router [-- --folds 5 --seeds 1,2,3 --data path/to/mmlu.jsonl]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderEvaluation } from '../src/cli/eval-commands.js';
import { readRoutingDataset, type PricedModel, type RoutingDataset } from '../src/routing/auto/dataset.js';
import { evaluateRouting, predictPrompts, type EvaluationReport } from '../src/routing/auto/evaluate.js';
import { DEFAULT_FEATURE_CONFIG } from '../src/routing/auto/features.js';
import { foldsBySubject } from '../src/routing/auto/folds.js';
import { twoModelMetrics, type Table } from '../src/routing/auto/metrics.js';
import { buildFeatureMatrix, OUTCOME_CLASSES, trainJointOutcomes } from '../src/routing/auto/train.js';
import { ANCHORS, LENGTH_PRIOR, STRONG_ANCHOR, TRAIN_OPTIONS, WEAK_ANCHOR } from '../src/routing/auto/training-setup.js';
import { decodeWeightsFile, encodeWeightsFile } from '../src/routing/auto/weights-file.js';

const DEFAULT_DATA = fileURLToPath(new URL('../../shared/data/routing/mmlu.jsonl', import.meta.url));
const { values } = parseArgs({
  options: { data: { type: 'string' }, folds: { type: 'string', default: '5' }, seeds: { type: 'string', default: '1' } },
});
const folds = Number(values.folds);
const seeds = (values.seeds ?? '1').split(',').map(Number);
if (!Number.isInteger(folds) || folds < 2 || seeds.some((seed) => !Number.isInteger(seed))) throw new Error('--folds needs an integer ≥ 2, --seeds integers');

const dataset = await readRoutingDataset(values.data ?? DEFAULT_DATA);
const weak = dataset.scores.get(WEAK_ANCHOR);
const strong = dataset.scores.get(STRONG_ANCHOR);
if (weak === undefined || strong === undefined) throw new Error(`the data must score ${WEAK_ANCHOR} and ${STRONG_ANCHOR}`);
if (dataset.scores.size !== 2) throw new Error('cross-validation expects exactly the two anchor models');
const models: PricedModel[] = [...dataset.scores.keys()].map((name) => {
  const anchor = ANCHORS.find((candidate) => candidate.name === name);
  if (anchor === undefined) throw new Error(`unknown model ${name}`);
  return { name, inputPrice: anchor.inputPrice, outputPrice: anchor.outputPrice };
});
const abilities = models.map((model) => ANCHORS.find((anchor) => anchor.name === model.name) ?? ANCHORS[0]);
const matrix = buildFeatureMatrix(dataset.prompts, DEFAULT_FEATURE_CONFIG);
const log = (line: string) => process.stderr.write(`${line}\n`);

const pooled: number[] = [];
for (const seed of seeds) {
  const foldOf = foldsBySubject(dataset.subjects, folds, seed);
  const predicted: Table = { prompts: dataset.prompts.length, models: models.length, values: new Float64Array(dataset.prompts.length * models.length) };
  const perFold: string[] = [];
  for (let fold = 0; fold < folds; fold += 1) {
    const started = performance.now();
    const train: number[] = [];
    const test: number[] = [];
    foldOf.forEach((k, index) => (k === fold ? test : train).push(index));
    const trained = trainJointOutcomes(matrix, { weak, strong }, train, TRAIN_OPTIONS);
    const model = decodeWeightsFile(
      encodeWeightsFile({ features: DEFAULT_FEATURE_CONFIG, weights: trained.weights, biases: trained.biases, anchors: ANCHORS, classes: OUTCOME_CLASSES, lengthPrior: LENGTH_PRIOR, training: {} }),
    );
    const heldOut = predictPrompts(model, test.map((index) => dataset.prompts[index] ?? ''), abilities);
    test.forEach((index, k) => {
      for (let m = 0; m < models.length; m += 1) predicted.values[index * models.length + m] = heldOut.values[k * models.length + m] ?? 0;
    });
    const gain = test.map((_, k) => (heldOut.values[k * 2 + 1] ?? 0) - (heldOut.values[k * 2] ?? 0));
    const weakScores = test.map((index) => weak[index] ?? 0);
    const strongScores = test.map((index) => strong[index] ?? 0);
    const apgr = twoModelMetrics(gain, weakScores, strongScores).apgr;
    const lengthApgr = twoModelMetrics(test.map((index) => (dataset.prompts[index] ?? '').length), weakScores, strongScores).apgr;
    const subjects = new Set(test.map((index) => dataset.subjects[index] ?? ''));
    perFold.push(
      `  fold ${fold + 1}: ${subjects.size} subjects, ${test.length} prompts, APGR within the fold ${apgr.toFixed(4)} (prompt length ${lengthApgr.toFixed(4)})`,
    );
    log(`seed ${seed} fold ${fold + 1}/${folds} trained in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  const report = evaluateRouting(dataset, models, predicted);
  pooled.push(report.routers[0]?.apgr ?? NaN);
  process.stdout.write(`\n== ${folds}-fold cross-validation by subject, split seed ${seed}: pooled held-out predictions ==\n`);
  process.stdout.write(`${perFold.join('\n')}\n\n${renderEvaluation(report)}`);
  process.stdout.write(`\n${subjectsAsUnseenData(dataset, predicted)}\n`);
}
if (seeds.length > 1) {
  const average = pooled.reduce((sum, value) => sum + value, 0) / pooled.length;
  process.stdout.write(`\nauto APGR by split seed: ${pooled.map((value) => value.toFixed(4)).join(', ')}; mean ${average.toFixed(4)}\n`);
}

/** Does auto beat every baseline but the oracle on this measure? */
function beatsBaselines(report: EvaluationReport, measure: 'apgr' | 'aiq'): boolean {
  const auto = report.routers.find((router) => router.name === 'auto')?.[measure];
  if (auto === undefined) return false;
  return report.routers.every((router) => router.name === 'auto' || router.name === 'oracle' || router[measure] === undefined || auto > (router[measure] ?? 0));
}

/**
 * Each held-out subject on its own, as if it were a new data set handed to
 * `eval routing`: how often auto beats every non-oracle baseline there.
 */
function subjectsAsUnseenData(data: RoutingDataset, predicted: Table): string {
  const bySubject = new Map<string, number[]>();
  data.subjects.forEach((subject, index) => bySubject.set(subject ?? '', [...(bySubject.get(subject ?? '') ?? []), index]));
  let apgrWins = 0;
  let aiqWins = 0;
  let bothWins = 0;
  let prompts = 0;
  for (const rows of bySubject.values()) {
    const subset: RoutingDataset = {
      prompts: rows.map((index) => data.prompts[index] ?? ''),
      subjects: rows.map((index) => data.subjects[index]),
      scores: new Map([...data.scores].map(([name, column]) => [name, Float64Array.from(rows, (index) => column[index] ?? 0)])),
    };
    const table: Table = { prompts: rows.length, models: predicted.models, values: new Float64Array(rows.length * predicted.models) };
    rows.forEach((index, k) => {
      for (let m = 0; m < predicted.models; m += 1) table.values[k * predicted.models + m] = predicted.values[index * predicted.models + m] ?? 0;
    });
    const report = evaluateRouting(subset, models, table);
    const apgr = beatsBaselines(report, 'apgr');
    const aiq = beatsBaselines(report, 'aiq');
    if (apgr) apgrWins += 1;
    if (aiq) aiqWins += 1;
    if (apgr && aiq) {
      bothWins += 1;
      prompts += rows.length;
    }
  }
  const total = bySubject.size;
  return (
    `Each held-out subject as a separate data set (${total} subjects): auto beats every baseline but the oracle ` +
    `on APGR in ${apgrWins}, on AIQ in ${aiqWins}, on both in ${bothWins} (${prompts} of ${data.prompts.length} prompts).`
  );
}
