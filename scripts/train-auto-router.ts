/**
 * Regenerates src/routing/auto/weights/auto-router.json from
 * ../shared/data/routing/mmlu.jsonl. Deterministic: L-BFGS from zero weights,
 * no randomness, so the same data gives the same file.
 *
 *   npm run train:router [-- --data path/to/mmlu.jsonl] [--out path.json]
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseRoutingDataset } from '../src/routing/auto/dataset.js';
import { DEFAULT_FEATURE_CONFIG } from '../src/routing/auto/features.js';
import { buildFeatureMatrix, OUTCOME_CLASSES, trainJointOutcomes } from '../src/routing/auto/train.js';
import { ANCHORS, STRONG_ANCHOR, TRAIN_OPTIONS, WEAK_ANCHOR } from '../src/routing/auto/training-setup.js';
import { encodeWeightsFile } from '../src/routing/auto/weights-file.js';

const DEFAULT_DATA = fileURLToPath(new URL('../../shared/data/routing/mmlu.jsonl', import.meta.url));
const DEFAULT_OUT = fileURLToPath(new URL('../src/routing/auto/weights/auto-router.json', import.meta.url));

const { values } = parseArgs({ options: { data: { type: 'string' }, out: { type: 'string' } } });
const dataPath = values.data ?? DEFAULT_DATA;
const outPath = values.out ?? DEFAULT_OUT;

const text = await readFile(dataPath, 'utf8');
const dataset = parseRoutingDataset(text, dataPath);
const weak = dataset.scores.get(WEAK_ANCHOR);
const strong = dataset.scores.get(STRONG_ANCHOR);
if (weak === undefined || strong === undefined) throw new Error(`${dataPath} must score ${WEAK_ANCHOR} and ${STRONG_ANCHOR}`);

const started = performance.now();
const matrix = buildFeatureMatrix(dataset.prompts, DEFAULT_FEATURE_CONFIG);
const rows = dataset.prompts.map((_, index) => index);
const trained = trainJointOutcomes(matrix, { weak, strong }, rows, TRAIN_OPTIONS);
const seconds = (performance.now() - started) / 1000;

const file = encodeWeightsFile({
  features: DEFAULT_FEATURE_CONFIG,
  weights: trained.weights,
  biases: trained.biases,
  anchors: ANCHORS,
  classes: OUTCOME_CLASSES,
  training: {
    data: basename(dataPath),
    dataSha256: createHash('sha256').update(text).digest('hex'),
    prompts: dataset.prompts.length,
    penalty: TRAIN_OPTIONS.penalty,
    minPrompts: TRAIN_OPTIONS.minPrompts ?? null,
    iterations: trained.iterations,
    loss: Number(trained.loss.toFixed(6)),
    regenerate: 'npm run train:router',
  },
});
const json = `${JSON.stringify(file, null, 2)}\n`;
await writeFile(outPath, json);
process.stdout.write(
  `Trained on ${dataset.prompts.length} prompts in ${seconds.toFixed(1)} s (${trained.iterations} iterations, loss ${trained.loss.toFixed(4)}); ` +
    `${file.buckets.count} buckets kept; wrote ${outPath} (${(json.length / 1024).toFixed(0)} KiB).\n`,
);
