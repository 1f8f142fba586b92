/**
 * Regenerates src/routing/auto/weights/auto-router.json from
 * ../shared/data/routing/mmlu.jsonl. Deterministic: L-BFGS from zero weights,
 * no randomness, so the same data gives the same file.
 *
 *   npm run train:router [-- --data path/to/mmlu.jsonl] [--out path.json]
 *
 * To measure `modelport eval routing` on subjects the weights never saw, hold
 * one fold of subjects out (the split of `npm run cv:router`) and write it as
 * its own data file:
 *
 *   npm run train:router -- --holdout-fold 1 --folds 5 --seed 1 --out /tmp/w1.json --heldout /tmp/fold1.jsonl
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseRoutingDataset } from '../src/routing/auto/dataset.js';
import { DEFAULT_FEATURE_CONFIG } from '../src/routing/auto/features.js';
import { foldsBySubject } from '../src/routing/auto/folds.js';
import { buildFeatureMatrix, OUTCOME_CLASSES, trainJointOutcomes, trainMetaOnly, metaShares } from '../src/routing/auto/train.js';
import { ANCHORS, FAMILIARITY_GATE, LENGTH_PRIOR, STRONG_ANCHOR, TRAIN_OPTIONS, WEAK_ANCHOR } from '../src/routing/auto/training-setup.js';
import { encodeWeightsFile } from '../src/routing/auto/weights-file.js';

const DEFAULT_DATA = fileURLToPath(new URL('../../shared/data/routing/mmlu.jsonl', import.meta.url));
const DEFAULT_OUT = fileURLToPath(new URL('../src/routing/auto/weights/auto-router.json', import.meta.url));

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    out: { type: 'string' },
    'holdout-fold': { type: 'string' },
    folds: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    heldout: { type: 'string' },
  },
});
const dataPath = values.data ?? DEFAULT_DATA;
const outPath = values.out ?? DEFAULT_OUT;

const text = await readFile(dataPath, 'utf8');
const dataset = parseRoutingDataset(text, dataPath);
const weak = dataset.scores.get(WEAK_ANCHOR);
const strong = dataset.scores.get(STRONG_ANCHOR);
if (weak === undefined || strong === undefined) throw new Error(`${dataPath} must score ${WEAK_ANCHOR} and ${STRONG_ANCHOR}`);

const started = performance.now();
const matrix = buildFeatureMatrix(dataset.prompts, DEFAULT_FEATURE_CONFIG);
let rows = dataset.prompts.map((_, index) => index);
const holdout = values['holdout-fold'] === undefined ? undefined : Number(values['holdout-fold']);
if (holdout !== undefined) {
  const folds = Number(values.folds);
  if (!Number.isInteger(holdout) || holdout < 1 || holdout > folds) throw new Error(`--holdout-fold takes 1..${folds}`);
  if (values.out === undefined || values.heldout === undefined) throw new Error('--holdout-fold needs --out and --heldout (the shipped weights are trained on everything)');
  const foldOf = foldsBySubject(dataset.subjects, folds, Number(values.seed));
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  await writeFile(values.heldout, lines.filter((_, index) => foldOf[index] === holdout - 1).map((line) => `${line}\n`).join(''));
  rows = rows.filter((index) => foldOf[index] !== holdout - 1);
}
const trained = trainJointOutcomes(matrix, { weak, strong }, rows, TRAIN_OPTIONS);
const metaOnly = trainMetaOnly(matrix, { weak, strong }, rows, TRAIN_OPTIONS);
const seconds = (performance.now() - started) / 1000;

const file = encodeWeightsFile({
  features: DEFAULT_FEATURE_CONFIG,
  weights: trained.weights,
  biases: trained.biases,
  anchors: ANCHORS,
  classes: OUTCOME_CLASSES,
  lengthPrior: LENGTH_PRIOR,
  gate: FAMILIARITY_GATE,
  fallback: { weights: metaOnly.weights, biases: metaOnly.biases, shares: metaShares(matrix, rows) },
  training: {
    data: basename(dataPath),
    dataSha256: createHash('sha256').update(text).digest('hex'),
    prompts: rows.length,
    ...(holdout === undefined ? {} : { heldOut: `fold ${holdout} of ${values.folds} by subject, seed ${values.seed}` }),
    penalty: TRAIN_OPTIONS.penalty,
    minPrompts: TRAIN_OPTIONS.minPrompts ?? null,
    metaPenalty: TRAIN_OPTIONS.metaPenalty ?? null,
    iterations: trained.iterations,
    loss: Number(trained.loss.toFixed(6)),
    metaOnlyLoss: Number(metaOnly.loss.toFixed(6)),
    regenerate: 'npm run train:router',
  },
});
const json = `${JSON.stringify(file, null, 2)}\n`;
await writeFile(outPath, json);
process.stdout.write(
  `Trained on ${rows.length} prompts in ${seconds.toFixed(1)} s (${trained.iterations} iterations, loss ${trained.loss.toFixed(4)}); ` +
    `${file.buckets.count} buckets kept; wrote ${outPath} (${(json.length / 1024).toFixed(0)} KiB).\n`,
);
