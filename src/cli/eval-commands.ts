import { AdminInputError } from '../admin/admin-errors.js';
import type { EvaluationReport, RouterReport } from '../routing/auto/evaluate.js';
import { WeightsFileError } from '../routing/auto/weights-file.js';
import type { RoutingEvaluationResult } from '../routing/auto/eval-routing.js';
import type { CommandSpec } from './command.js';
import { formatUsd } from '../lib/money.js';
import { renderTable, type JsonObject } from './output.js';

const percent = (value: number | undefined) => (value === undefined ? '-' : `${(value * 100).toFixed(1)}%`);
const fixed = (value: number | undefined, digits: number) => (value === undefined ? '-' : value.toFixed(digits));

function routerJson(router: RouterReport): JsonObject {
  return {
    name: router.name,
    apgr: router.apgr ?? null,
    cpt50: router.cpt50 ?? null,
    cpt80: router.cpt80 ?? null,
    aiq: router.aiq,
    costTo95: router.costTo95 ?? null,
  };
}

function resultJson(result: RoutingEvaluationResult, predictions: string): JsonObject {
  const { report } = result;
  return {
    evaluation: {
      prompts: report.prompts,
      models: report.models.map((model) => {
        const ability = result.abilities.find((entry) => entry.name === model.name);
        return {
          name: model.name,
          quality: model.quality,
          cost: model.cost,
          position: ability?.position ?? null,
          offset: ability?.offset ?? null,
          abilitySource: ability?.source ?? null,
          calibrationPrompts: ability?.calibrationPrompts ?? null,
        };
      }),
      weak: report.weak ?? null,
      strong: report.strong ?? null,
      cheapest: report.cheapest,
      best: report.best,
      costRange: { ...report.costRange },
      routers: report.routers.map(routerJson),
      predictions,
    },
  };
}

/** The human report of an evaluation (also printed by scripts/cv-auto-router.ts). */
export function renderEvaluation(report: EvaluationReport, predictions?: string): string {
  const twoModels = report.weak !== undefined;
  const bestCost = report.models.find((model) => model.name === report.best)?.cost ?? 0;
  const lines = [
    `${report.prompts} prompts, ${report.models.length} models${twoModels ? ` (weak ${report.weak}, strong ${report.strong})` : ''}:`,
    renderTable(
      ['MODEL', 'QUALITY', 'COST'],
      report.models.map((model) => [model.name, fixed(model.quality, 4), formatUsd(model.cost)]),
    ).trimEnd(),
    '',
    renderTable(
      [...(twoModels ? ['ROUTER', 'APGR', 'CPT(50%)', 'CPT(80%)'] : ['ROUTER']), 'AIQ', 'COST TO 95% OF BEST'],
      report.routers.map((router) => [
        router.name,
        ...(twoModels ? [fixed(router.apgr, 4), percent(router.cpt50), percent(router.cpt80)] : []),
        fixed(router.aiq, 4),
        router.costTo95 === undefined ? 'not reached' : `${formatUsd(router.costTo95)} (${percent(bestCost === 0 ? undefined : router.costTo95 / bestCost)} of best)`,
      ]),
    ).trimEnd(),
    '',
    ...(predictions === undefined ? [] : [`Predictions: ${predictions} (${report.prompts} lines).`, '']),
  ];
  return lines.join('\n');
}

const evalRouting: CommandSpec = {
  noun: 'eval',
  verb: 'routing',
  summary: "Score the auto strategy's predictions on labelled prompts, against baselines",
  description: [
    'Predicts, for every prompt of --data, how likely each model is to answer it well, from the prompt text alone (the',
    "file's scores are read only afterwards, to score the predictions), writes one line per prompt to --predictions,",
    'and prints APGR, CPT(50%) and CPT(80%) (two models), AIQ and the cost to reach 95% of the best single model',
    "(any number), for auto and the baselines random, prompt-length, always-cheapest, always-best and oracle.",
    "With --calibration, auto adds the router's own fit on those labelled prompts (what `router calibrate` stores) to each",
    "model's prior, and the mean-accuracy router (each model's mean score on them, the same for every prompt) joins the baselines.",
    '--data and --calibration are JSON lines like {"prompt": "...", "scores": {"<model>": 0|1}}; --models maps each',
    'scored model to {"input_price": USD/1M, "output_price": USD/1M, "size"?: "8B"}. Cost per prompt: characters/4',
    'prompt tokens plus 256 completion tokens. Reads no database.',
  ].join(' '),
  options: {
    data: { type: 'string', required: true, valueName: 'file.jsonl', description: 'Labelled prompts to route and score' },
    models: { type: 'string', required: true, valueName: 'models.json', description: 'Prices (and optional size) of every scored model' },
    calibration: { type: 'string', valueName: 'calib.jsonl', description: 'Labelled prompts to fit the router to (per model, which prompts it wins), as `router calibrate` does' },
    predictions: { type: 'string', required: true, valueName: 'out.jsonl', description: 'Where to write {"predicted": {"<model>": p}} per prompt' },
    weights: { type: 'string', valueName: 'weights.json', description: 'Weights other than the shipped ones (npm run train:router -- --out), e.g. trained with subjects held out' },
  },
  examples: [
    'modelport eval routing --data mmlu.jsonl --models models.json --predictions predicted.jsonl',
    'modelport eval routing --data new.jsonl --models models.json --calibration labelled.jsonl --predictions out.jsonl --json',
  ],
  async run(options) {
    // Loaded on use: the weights are a few MB that no other command needs.
    const [{ runRoutingEvaluation }, { loadShippedAutoModel }, { RoutingDataError }, { readWeightsFile }] = await Promise.all([
      import('../routing/auto/eval-routing.js'),
      import('../routing/auto/shipped-model.js'),
      import('../routing/auto/dataset.js'),
      import('../routing/auto/weights-file.js'),
    ]);
    const weights = options.string('weights');
    const predictions = options.requiredString('predictions');
    const calibration = options.string('calibration');
    let result: RoutingEvaluationResult;
    try {
      const model = weights === undefined ? loadShippedAutoModel() : await readWeightsFile(weights);
      result = await runRoutingEvaluation(model, {
        data: options.requiredString('data'),
        models: options.requiredString('models'),
        predictions,
        ...(calibration === undefined ? {} : { calibration }),
      });
    } catch (error) {
      if (error instanceof RoutingDataError || error instanceof WeightsFileError) throw new AdminInputError(error.message);
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') throw new AdminInputError(error.message);
      throw error;
    }
    const notes = result.unusedModels.length === 0 ? undefined : `Note: the data scores none of ${result.unusedModels.join(', ')}; ignored.\n`;
    return { json: resultJson(result, predictions), stdout: renderEvaluation(result.report, predictions), ...(notes === undefined ? {} : { stderr: notes }) };
  },
};

export const evalCommands: readonly CommandSpec[] = [evalRouting];
