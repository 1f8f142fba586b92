import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { parseJsonObject, runModelport } from '../../../test/cli/run-modelport.js';
import { predictPrompts, resolveAbilities } from './evaluate.js';
import { runRoutingEvaluation } from './eval-routing.js';
import { createRandom } from './folds.js';
import { loadShippedAutoModel } from './shipped-model.js';
import { STRONG_ANCHOR, WEAK_ANCHOR } from './training-setup.js';

const model = loadShippedAutoModel();
const directory = mkdtempSync(join(tmpdir(), 'modelport-eval-'));
const file = (name: string) => join(directory, name);
const TOPICS = ['the court held that the contract', 'a cell membrane protein', 'the integral of x^2 from 0 to 3', 'the main character lies to a friend', 'GDP and inflation'];
const MODELS = [WEAK_ANCHOR, STRONG_ANCHOR, 'acme-mini'];

interface Row {
  prompt: string;
  subject?: string;
  scores: Record<string, number>;
}

/** Labelled prompts whose scores depend on their length, deterministically. */
function generateRows(count: number, seed: number): Row[] {
  const random = createRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length] ?? '';
    const words = Array.from({ length: 5 + Math.floor(random() * 60) }, () => topic.split(' ')[Math.floor(random() * 5)] ?? 'x');
    const prompt = `Question ${i}: ${words.join(' ')}?\nA. ${i}\nB. yes\nC. no\nD. maybe\nAnswer:`;
    const hard = prompt.length / 500;
    const right = (skill: number) => (random() < skill - hard ? 1 : 0);
    return { prompt, ...(i % 2 === 0 ? { subject: 'synthetic' } : {}), scores: { [WEAK_ANCHOR]: right(0.6), [STRONG_ANCHOR]: right(0.9), 'acme-mini': right(0.7) } };
  });
}

const writeRows = (name: string, rows: readonly Row[]) => {
  writeFileSync(file(name), rows.map((row) => JSON.stringify(row)).join('\n'));
  return file(name);
};

const rows = generateRows(150, 1);
const data = writeRows('data.jsonl', rows);
const calibration = writeRows('calibration.jsonl', generateRows(60, 2));
const models = file('models.json');
writeFileSync(
  models,
  JSON.stringify({
    [WEAK_ANCHOR]: { input_price: 0.6, output_price: 0.6 },
    [STRONG_ANCHOR]: { input_price: 10, output_price: 30 },
    'acme-mini': { input_price: 0.15, output_price: 0.6, size: '8B' },
  }),
);

after(() => rmSync(directory, { recursive: true, force: true }));

const readPredictions = (path: string) =>
  readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { predicted: Record<string, number> }).predicted);

describe('eval routing', () => {
  it('writes one line of probabilities per prompt, in order', async () => {
    const result = await runRoutingEvaluation(model, { data, models, predictions: file('out.jsonl') });
    const lines = readPredictions(file('out.jsonl'));
    assert.equal(lines.length, rows.length);
    const abilities = resolveAbilities(model, MODELS.map((name) => ({ name, inputPrice: 1, outputPrice: 1 })));
    rows.forEach((row, index) => {
      const line = lines[index] ?? {};
      assert.deepEqual(Object.keys(line), MODELS);
      const alone = predictPrompts(model, [row.prompt], abilities);
      MODELS.forEach((name, m) => {
        const probability = line[name] ?? NaN;
        assert.ok(probability >= 0 && probability <= 1);
        if (name !== 'acme-mini') assert.ok(Math.abs(probability - (alone.values[m] ?? NaN)) < 1e-6, `line ${index} is prompt ${index}`);
      });
    });
    assert.deepEqual(
      result.report.routers.map((router) => router.name),
      ['auto', 'random', 'prompt-length', 'always-cheapest', 'always-best', 'oracle'],
    );
    assert.equal(result.report.weak, undefined, 'APGR is for two models only');
    assert.equal(result.abilities.find((entry) => entry.name === 'acme-mini')?.source, 'price-prior');
  });

  it('never reads the scores of the data to predict: shuffled or zeroed scores give the same file', async () => {
    await runRoutingEvaluation(model, { data, models, predictions: file('original.jsonl') });
    const random = createRandom(9);
    const shuffled = rows.map((row) => ({ ...row, scores: rows[Math.floor(random() * rows.length)]?.scores ?? row.scores }));
    const zeroed = rows.map((row) => ({ ...row, scores: Object.fromEntries(MODELS.map((name) => [name, 0])) }));
    await runRoutingEvaluation(model, { data: writeRows('shuffled.jsonl', shuffled), models, predictions: file('shuffled-out.jsonl') });
    await runRoutingEvaluation(model, { data: writeRows('zeroed.jsonl', zeroed), models, predictions: file('zeroed-out.jsonl') });
    const original = readFileSync(file('original.jsonl'), 'utf8');
    assert.equal(readFileSync(file('shuffled-out.jsonl'), 'utf8'), original);
    assert.equal(readFileSync(file('zeroed-out.jsonl'), 'utf8'), original);
  });

  it('learns the abilities of unknown models from the calibration file', async () => {
    const result = await runRoutingEvaluation(model, { data, models, calibration, predictions: file('calibrated.jsonl') });
    const mini = result.abilities.find((entry) => entry.name === 'acme-mini');
    assert.equal(mini?.source, 'calibrated');
    assert.equal(mini?.calibrationPrompts, 60);
    assert.notDeepEqual(readPredictions(file('calibrated.jsonl'))[0], readPredictions(file('out.jsonl'))[0]);
    // Beside auto: the router that knows only each model's mean score on the 60 calibration prompts.
    assert.deepEqual(
      result.report.routers.map((router) => router.name),
      ['auto', 'mean-accuracy', 'random', 'prompt-length', 'always-cheapest', 'always-best', 'oracle'],
    );
  });

  it('reports APGR and CPT for two models', async () => {
    const pair = writeRows(
      'pair.jsonl',
      rows.map((row) => ({ prompt: row.prompt, scores: { [WEAK_ANCHOR]: row.scores[WEAK_ANCHOR] ?? 0, [STRONG_ANCHOR]: row.scores[STRONG_ANCHOR] ?? 0 } })),
    );
    const { report } = await runRoutingEvaluation(model, { data: pair, models, predictions: file('pair-out.jsonl') });
    assert.equal(report.weak, WEAK_ANCHOR);
    assert.equal(report.strong, STRONG_ANCHOR);
    const oracle = report.routers.find((router) => router.name === 'oracle');
    const auto = report.routers.find((router) => router.name === 'auto');
    assert.ok(oracle?.apgr !== undefined && auto?.apgr !== undefined && oracle.apgr > auto.apgr);
    assert.ok(oracle.aiq >= auto.aiq);
    assert.equal(report.routers.find((router) => router.name === 'always-best')?.apgr, undefined);
  });
});

describe('modelport eval routing (the CLI)', () => {
  const cli = (...args: string[]) => runModelport(file('unused.db'), args);

  it('prints one JSON object with --json and writes the predictions', async () => {
    const run = await cli('eval', 'routing', '--data', data, '--models', models, '--calibration', calibration, '--predictions', file('cli.jsonl'), '--json');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
    const evaluation = parseJsonObject(run.stdout).evaluation as { prompts: number; routers: Array<{ name: string; aiq: number; apgr: number | null }> };
    assert.equal(evaluation.prompts, rows.length);
    assert.deepEqual(
      evaluation.routers.map((router) => router.name),
      ['auto', 'mean-accuracy', 'random', 'prompt-length', 'always-cheapest', 'always-best', 'oracle'],
      'the mean-accuracy router of the calibration labels joins the baselines',
    );
    assert.equal(evaluation.routers[0]?.apgr, null);
    assert.equal(readPredictions(file('cli.jsonl')).length, rows.length);
  });

  it('prints a table by default, and refuses bad input with exit 1 or 2', async () => {
    const run = await cli('eval', 'routing', '--data', data, '--models', models, '--predictions', file('cli-human.jsonl'));
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /ROUTER +AIQ +COST TO 95% OF BEST/);
    assert.match(run.stdout, /^prompt-length /m);
    writeFileSync(file('partial-models.json'), JSON.stringify({ [WEAK_ANCHOR]: { input_price: 1, output_price: 1 } }));
    const unpriced = await cli('eval', 'routing', '--data', data, '--models', file('partial-models.json'), '--predictions', file('x.jsonl'));
    assert.equal(unpriced.code, 1);
    assert.match(unpriced.stderr, /no prices for/);
    const missing = await cli('eval', 'routing', '--data', file('nope.jsonl'), '--models', models, '--predictions', file('x.jsonl'));
    assert.equal(missing.code, 1);
    const usage = await cli('eval', 'routing', '--data', data, '--models', models);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--predictions/);
  });

  it('predicts with --weights instead of the shipped weights, and refuses a file that is not weights', async () => {
    const shippedRun = await cli('eval', 'routing', '--data', data, '--models', models, '--predictions', file('shipped.jsonl'));
    assert.equal(shippedRun.code, 0, shippedRun.stderr);
    // The shipped model with one bias changed: every prediction moves, so the file was really used.
    const weightsJson = JSON.parse(readFileSync(new URL('./weights/auto-router.json', import.meta.url), 'utf8')) as { biases: number[] };
    weightsJson.biases = weightsJson.biases.map((bias, index) => (index === 3 ? bias + 1 : bias));
    writeFileSync(file('weights.json'), JSON.stringify(weightsJson));
    const other = await cli('eval', 'routing', '--data', data, '--models', models, '--weights', file('weights.json'), '--predictions', file('other.jsonl'));
    assert.equal(other.code, 0, other.stderr);
    const before = readPredictions(file('shipped.jsonl'));
    const after = readPredictions(file('other.jsonl'));
    assert.equal(after.length, before.length);
    assert.ok(after.every((line, index) => JSON.stringify(line) !== JSON.stringify(before[index])));
    writeFileSync(file('not-weights.json'), JSON.stringify({ hello: 'world' }));
    const refused = await cli('eval', 'routing', '--data', data, '--models', models, '--weights', file('not-weights.json'), '--predictions', file('x.jsonl'));
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Not a version 1 auto-router weights file/);
  });
});
