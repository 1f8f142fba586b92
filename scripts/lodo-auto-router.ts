/**
 * Leave-one-domain-out evaluation of the `auto` predictor on all the data in
 * ../shared/data/routing/ (protocol in its README):
 * - MMLU: the base weights trained without each of MMLU's four categories in
 *   turn, scored on it with RouteLLM's protocol (APGR, CPT(50%)).
 * - The RouterBench subset (never trained on): each domain held out with k
 *   labelled prompts of it as calibration (per-router fit), the rest scored
 *   with RouterBench's protocol (AIQ, cost share to 95% of the best model),
 *   and the two-model check on Mixtral 8x7B / GPT-4.
 *
 *   npm run eval:lodo [-- --repeats 5 --seed 1 --ks 0,50,100,200,400 --json]
 *     [--design '{"name":"x","gate":{"low":0.3,"high":0.5,"threshold":0.05},"fit":{"seRule":0}}'] (or an array of designs)
 *     [--only mmlu|routerbench] [--cache node_modules/.cache/modelport-lodo]
 *
 * Trained MMLU fold weights are cached under --cache, keyed by data and
 * training options. Nothing derived from the RouterBench subset is written.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseRoutingDataset, readModelsFile, type RoutingDataset } from '../src/routing/auto/dataset.js';
import { modelsToEvaluate } from '../src/routing/auto/eval-routing.js';
import { loadShippedAutoModel } from '../src/routing/auto/shipped-model.js';
import { DEFAULT_FEATURE_CONFIG, META_NAMES } from '../src/routing/auto/features.js';
import type { AutoRouterModel } from '../src/routing/auto/model.js';
import { buildFeatureMatrix, trainMetaOnly } from '../src/routing/auto/train.js';
import { STRONG_ANCHOR, TRAIN_OPTIONS, WEAK_ANCHOR } from '../src/routing/auto/training-setup.js';
import { designJson, parseDesigns, type LodoDesign } from './lodo-design.js';
import { mmluFolds, mmluLodo, mmluMeanTraits, type MmluDomainResult } from './lodo-mmlu.js';
import { renderCurve, renderMmlu } from './lodo-render.js';
import { choosePair, routerbenchCurve, type CurvePoint } from './lodo-routerbench.js';

const DATA_DIR = fileURLToPath(new URL('../../shared/data/routing/', import.meta.url));
const DEFAULT_CACHE = fileURLToPath(new URL('../node_modules/.cache/modelport-lodo/', import.meta.url));

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: DATA_DIR },
    cache: { type: 'string', default: DEFAULT_CACHE },
    design: { type: 'string' },
    repeats: { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    ks: { type: 'string', default: '0,50,100,200,400' },
    only: { type: 'string' },
    json: { type: 'boolean', default: false },
  },
});
const repeats = Number(values.repeats);
const seed = Number(values.seed);
const ks = (values.ks ?? '').split(',').map(Number);
if (!Number.isInteger(repeats) || repeats < 1) throw new Error('--repeats needs an integer ≥ 1');
if (!Number.isInteger(seed)) throw new Error('--seed needs an integer');
if (ks.some((k) => !Number.isInteger(k) || k < 0)) throw new Error('--ks needs integers ≥ 0, comma-separated');
if (values.only !== undefined && values.only !== 'mmlu' && values.only !== 'routerbench') throw new Error('--only takes mmlu or routerbench');
const designs = parseDesigns(values.design);
const dataDir = values.data ?? DATA_DIR;
const log = (line: string) => process.stderr.write(`${line}\n`);
const started = performance.now();

const mmluText = await readFile(`${dataDir}/mmlu.jsonl`, 'utf8');
const mmlu = parseRoutingDataset(mmluText, 'mmlu.jsonl');
const mmluResults: MmluDomainResult[] = [];
if (values.only !== 'routerbench') {
  const folds = await mmluFolds(mmlu, createHash('sha256').update(mmluText).digest('hex'), values.cache ?? DEFAULT_CACHE, log);
  for (const design of designs) mmluResults.push(...mmluLodo(mmlu, folds, design));
}

const curve: CurvePoint[] = [];
let pair: readonly [string, string] | undefined;
if (values.only !== 'mmlu') {
  const dataset = await readWithDomains(`${dataDir}/routerbench-subset.jsonl`);
  const modelsPath = `${dataDir}/routerbench-subset-models.json`;
  const models = modelsToEvaluate(dataset, await readModelsFile(modelsPath), modelsPath);
  pair = choosePair(dataset, models);
  const model = loadShippedAutoModel();
  const setup = { dataset, models, model, meanTraits: mmluMeanTraits(mmlu), pair, ks, repeats, seed, log };
  const fallbacks = new Map<string, AutoRouterModel['fallback']>();
  const withFallback = (design: LodoDesign): AutoRouterModel => {
    if (design.fallback === undefined || design.fallback === 'meta') return model;
    const kind = design.fallback;
    if (!fallbacks.has(kind)) fallbacks.set(kind, narrowFallback(mmlu, model, kind === 'length' ? ['log-chars'] : []));
    return { ...model, fallback: fallbacks.get(kind) };
  };
  for (const design of designs) curve.push(...routerbenchCurve({ ...setup, model: withFallback(design) }, design));
}
const seconds = (performance.now() - started) / 1000;

/** A fallback softmax over the named meta features alone (none: the mean outcome), trained on all of MMLU as the shipped one is. */
function narrowFallback(data: RoutingDataset, shipped: AutoRouterModel, features: readonly string[]): NonNullable<AutoRouterModel['fallback']> {
  const weak = data.scores.get(WEAK_ANCHOR);
  const strong = data.scores.get(STRONG_ANCHOR);
  if (weak === undefined || strong === undefined) throw new Error('mmlu.jsonl must score both anchors');
  const matrix = buildFeatureMatrix(data.prompts, DEFAULT_FEATURE_CONFIG);
  const rows = data.prompts.map((_, index) => index);
  const trained = trainMetaOnly(matrix, { weak, strong }, rows, TRAIN_OPTIONS, features.map((name) => META_NAMES.indexOf(name as (typeof META_NAMES)[number])));
  return { weights: trained.weights, biases: trained.biases, ...(shipped.fallback?.shares === undefined ? {} : { shares: shipped.fallback.shares }) };
}

/** The subset names its tasks in `"domain"` rather than `"subject"`: they become the dataset's subjects. */
async function readWithDomains(path: string): Promise<RoutingDataset> {
  const text = await readFile(path, 'utf8');
  const parsed = parseRoutingDataset(text, path);
  const domains = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const value = JSON.parse(line) as { domain?: unknown; subject?: unknown };
      return typeof value.domain === 'string' ? value.domain : typeof value.subject === 'string' ? value.subject : undefined;
    });
  if (domains.length !== parsed.prompts.length || domains.some((domain) => domain === undefined)) throw new Error(`${path}: every line needs a "domain"`);
  return { ...parsed, subjects: domains };
}

if (values.json) {
  const report = {
    designs: designs.map(designJson),
    repeats,
    seed,
    ks,
    seconds,
    mmlu: mmluResults.map((result) => ({ design: result.design, domain: result.domain, subjects: result.subjects, report: result.report })),
    routerbench: { pair: pair ?? null, curve },
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
} else {
  const out: string[] = [];
  for (const design of designs) {
    out.push(`## Design "${design.name}": ${JSON.stringify(designJson(design))}`, '');
    const own = mmluResults.filter((result) => result.design === design.name);
    if (own.length > 0) out.push('### MMLU, leave one domain out (two models)', '', renderMmlu(own), '');
    const points = curve.filter((point) => point.design === design.name);
    if (points.length > 0) {
      out.push(`### RouterBench subset, leave one domain out (${pair === undefined ? '' : `two-model pair ${pair.join(' / ')}; `}weights trained on MMLU only)`, '');
      out.push(renderCurve(points, repeats), '');
    }
  }
  out.push(`(${seconds.toFixed(0)} s; --repeats ${repeats} --seed ${seed} --ks ${ks.join(',')})`);
  process.stdout.write(`${out.join('\n')}\n`);
}
