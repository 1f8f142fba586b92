import type { FittedModel, RouterFit } from '../routing-contract.js';
import { createRandom } from './folds.js';
import { minimizeLbfgsSteps } from './lbfgs.js';
import type { Table } from './metrics.js';
import { logistic, type ModelAbility } from './model.js';
import { calibrateAbility } from './abilities.js';
import { PROMPT_VECTOR_LENGTH, PROMPT_VECTOR_VERSION, traitsOfVector, VECTOR_INDEX } from './prompt-vector.js';

/**
 * A router's own fit from its labels (calibration uploads and feedback): per
 * model, a logistic regression on the prompt vector (prompt-vector.ts) added
 * to the prior's log-odds,
 *
 *   logit P(m answers x well) = logitOf(prior_m, traits(x)) + w_m · x
 *
 * The intercept w_m[0] is only lightly held back, so a few labels already
 * move a model's mean accuracy (what a mean-accuracy router learns); the
 * other weights carry an L2 penalty chosen by K-fold cross-validation on the
 * model's labels, "intercept only" among the choices, by held-out log-loss.
 * Before the weights, each model's ability (position, offset) is calibrated on
 * its labels around the prior, so the weights correct what a per-model
 * calibration cannot: which prompts the model fails.
 * Cross-validation may also choose the target the weights correct: the prior's
 * log-odds, or the same without the base model's gap (which model gains on
 * this prompt), for traffic on which that gap does not hold.
 * With few labels, or labels that say nothing about the prompt, the fit
 * stays a shift of the prior; with many, it learns which prompts a model
 * fails. Deterministic: seeded folds, L-BFGS from zero.
 */

export interface RouterLabel {
  readonly vector: Float32Array;
  readonly model: string;
  /** 0..1: how good that model's answer was. */
  readonly score: number;
}

export interface FitOptions {
  /**
   * L2 precisions tried on the non-intercept weights, each scaled by its column's variance so every feature
   * is held back alike; `Infinity` is intercept only. @default FIT_PENALTIES
   */
  readonly penalties?: readonly number[];
  /** Prior sd of the intercept, in log-odds. @default INTERCEPT_PRIOR_SD */
  readonly interceptPriorSd?: number;
  /** @default 5 */
  readonly folds?: number;
  /** Seeds the folds. @default 1 */
  readonly seed?: number;
  /**
   * Picks the most-penalised choice whose cross-validated log-loss is within `seRule` standard errors of the
   * best: 0 picks the best, 1 is the usual one-standard-error rule. @default 1
   */
  readonly seRule?: number;
  /** Newest labels kept per model. @default 20000 */
  readonly maxLabels?: number;
  /** Newest labels per model the penalty is chosen on (the final fit uses all kept). @default 4000 */
  readonly cvRows?: number;
  /** Below this many labels a model gets an intercept shift only. @default 5 */
  readonly minLabelsForWeights?: number;
  /** @default L-BFGS iterations per fit: 100 */
  readonly maxIterations?: number;
  /**
   * Also try, for each model, a fit whose prior keeps the prompt's difficulty but not the base model's gap (which
   * model gains on it), and keep it when cross-validation says so. Measured with `npm run eval:lodo` and left off:
   * cross-validation never preferred it on the data we have. @default false
   */
  readonly gaplessTarget?: boolean;
  /**
   * First calibrate the model's ability (position and offset: a MAP fit around the prior, abilities.ts) on its
   * labels, then fit the weights as a correction to that, so the fit nests the per-model calibration (it won on
   * `npm run eval:lodo`: +0.0025 AIQ at 400 labels, +0.006 on mixed traffic). @default true
   */
  readonly calibratePrior?: boolean;
  /** The fit's time stamp. @default the current time */
  readonly now?: () => Date;
}

export interface FitRouterInput {
  /** Oldest first: when a model has more than `maxLabels`, the newest are kept. Vectors of another length are skipped. */
  readonly labels: readonly RouterLabel[];
  /**
   * Each model's prior ability: the predictor's own (`createAutoPredictor(model).abilityOf(candidate)`), never
   * the router's calibrated `autoAbilities`, since the runtime adds the fit to that same prior.
   */
  readonly priorAbility: (model: string) => ModelAbility;
  readonly options?: FitOptions;
}

export const FIT_PENALTIES: readonly number[] = [Number.POSITIVE_INFINITY, 1000, 300, 100, 30, 10, 3, 1];
export const INTERCEPT_PRIOR_SD = 1;
/** The log-odds sd Thompson sampling uses for a model the fit has no labels for. */
export const DEFAULT_UNCERTAINTY = INTERCEPT_PRIOR_SD;

interface Settings {
  readonly penalties: readonly number[];
  readonly interceptPrecision: number;
  readonly folds: number;
  readonly seed: number;
  readonly seRule: number;
  readonly maxLabels: number;
  readonly cvRows: number;
  readonly minLabelsForWeights: number;
  readonly maxIterations: number;
  readonly gaplessTarget: boolean;
  readonly calibratePrior: boolean;
}

function settingsOf(options: FitOptions = {}): Settings {
  const sd = options.interceptPriorSd ?? INTERCEPT_PRIOR_SD;
  return {
    penalties: [...(options.penalties ?? FIT_PENALTIES)].sort((a, b) => b - a),
    interceptPrecision: 1 / (sd * sd),
    folds: Math.max(2, options.folds ?? 5),
    seed: options.seed ?? 1,
    seRule: options.seRule ?? 1,
    maxLabels: options.maxLabels ?? 20_000,
    cvRows: options.cvRows ?? 4_000,
    minLabelsForWeights: options.minLabelsForWeights ?? 5,
    maxIterations: options.maxIterations ?? 100,
    gaplessTarget: options.gaplessTarget ?? false,
    calibratePrior: options.calibratePrior ?? true,
  };
}

/** One model's labels as dense rows, with the prior's log-odds on each. */
interface Design {
  readonly rows: number;
  readonly x: Float64Array;
  readonly y: Float64Array;
  readonly offset: Float64Array;
  /** Penalty scale of each column: its variance (floored), 0 for the intercept. */
  readonly scale: Float64Array;
}

const D = PROMPT_VECTOR_LENGTH;
/** Columns held back only as lightly as the intercept: the intercept alone (the base log-odds columns too lost on `npm run eval:lodo`). */
const BASE_COLUMNS = 1;

function* buildDesign(labels: readonly RouterLabel[], prior: ModelAbility): Generator<void, Design> {
  const rows = labels.length;
  const x = new Float64Array(rows * D);
  const y = new Float64Array(rows);
  const offset = new Float64Array(rows);
  labels.forEach((label, r) => {
    x.set(label.vector, r * D);
    y[r] = Math.min(1, Math.max(0, label.score));
    const weak = label.vector[VECTOR_INDEX.weakLogit] ?? 0;
    offset[r] = prior.offset + weak + prior.position * (label.vector[VECTOR_INDEX.gap] ?? 0);
  });
  yield;
  const scale = new Float64Array(D);
  for (let j = 1; j < D; j += 1) {
    let sum = 0;
    let squares = 0;
    for (let r = 0; r < rows; r += 1) {
      const v = x[r * D + j] ?? 0;
      sum += v;
      squares += v * v;
    }
    const mean = rows === 0 ? 0 : sum / rows;
    scale[j] = Math.max(1e-2, rows === 0 ? 0 : squares / rows - mean * mean);
  }
  return { rows, x, y, offset, scale };
}

/** The same labels with the prior's gap term left out of every row's offset: the prompt's difficulty only. */
function gaplessDesign(design: Design, labels: readonly RouterLabel[], prior: ModelAbility): Design {
  const offset = Float64Array.from(labels, (label) => prior.offset + (label.vector[VECTOR_INDEX.weakLogit] ?? 0));
  return { ...design, offset };
}

const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));
/** Log-loss of score y ∈ [0, 1] against log-odds z. */
const logLoss = (z: number, y: number) => softplus(z) - y * z;

/**
 * Penalised maximum likelihood on `rowsUsed`, from `start` (updated in place; its length says the dimensions
 * fitted: 1 is intercept only).
 */
function* fitWeights(design: Design, rowsUsed: Int32Array, penalty: number, settings: Settings, start: Float64Array): Generator<void, void> {
  const dims = start.length;
  const objective = (w: Float64Array, gradient: Float64Array): number => {
    gradient.fill(0);
    let loss = 0;
    for (let k = 0; k < rowsUsed.length; k += 1) {
      const r = rowsUsed[k] ?? 0;
      const at = r * D;
      let z = design.offset[r] ?? 0;
      for (let j = 0; j < dims; j += 1) z += (w[j] ?? 0) * (design.x[at + j] ?? 0);
      const y = design.y[r] ?? 0;
      loss += logLoss(z, y);
      const residual = logistic(z) - y;
      for (let j = 0; j < dims; j += 1) gradient[j] = (gradient[j] ?? 0) + residual * (design.x[at + j] ?? 0);
    }
    for (let j = 0; j < dims; j += 1) {
      const precision = j < BASE_COLUMNS ? settings.interceptPrecision : penalty * (design.scale[j] ?? 1);
      const w0 = w[j] ?? 0;
      loss += 0.5 * precision * w0 * w0;
      gradient[j] = (gradient[j] ?? 0) + precision * w0;
    }
    return loss;
  };
  yield* minimizeLbfgsSteps(objective, start, { maxIterations: settings.maxIterations, tolerance: 1e-6 });
}

function logitAt(design: Design, r: number, w: Float64Array): number {
  let z = design.offset[r] ?? 0;
  for (let j = 0; j < w.length; j += 1) z += (w[j] ?? 0) * (design.x[r * D + j] ?? 0);
  return z;
}

/** A fit's target (the prior's log-odds, or without their gap term) and its penalty. */
interface Choice {
  readonly design: Design;
  readonly gapScale: number;
  readonly penalty: number;
}

/**
 * The choice with the best cross-validated log-loss, within the `seRule` tolerance toward the simplest:
 * choices run from the most penalised (intercept only) down, the prior's target before the gapless one at
 * each penalty, and the first within tolerance of the best wins. Every choice sees the same folds.
 */
function* chooseFit(choices: readonly Choice[], settings: Settings): Generator<void, Choice> {
  const rows = choices[0]?.design.rows ?? 0;
  const first = Math.max(0, rows - settings.cvRows);
  const n = rows - first;
  const folds = Math.min(settings.folds, n);
  const order = Int32Array.from({ length: n }, (_, k) => first + k);
  const random = createRandom(settings.seed);
  for (let i = n - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    const swap = order[i] ?? 0;
    order[i] = order[j] ?? 0;
    order[j] = swap;
  }
  // losses[c * n + k]: held-out loss of the k-th row of `order` under choice c.
  const losses = new Float64Array(choices.length * n);
  for (let fold = 0; fold < folds; fold += 1) {
    const train = Int32Array.from(order.filter((_, k) => k % folds !== fold));
    const heldOut: number[] = [];
    for (let k = fold; k < n; k += folds) heldOut.push(k);
    // Per target, from the most penalised down, each fit starting where the previous ended.
    const warm = new Map<Design, Float64Array>();
    for (let c = 0; c < choices.length; c += 1) {
      const choice = choices[c] as Choice;
      let weights = warm.get(choice.design);
      if (weights === undefined) warm.set(choice.design, (weights = new Float64Array(D)));
      const w = Number.isFinite(choice.penalty) ? weights : weights.subarray(0, BASE_COLUMNS);
      yield* fitWeights(choice.design, train, choice.penalty, settings, w);
      for (const k of heldOut) {
        const r = order[k] ?? 0;
        losses[c * n + k] = logLoss(logitAt(choice.design, r, w), choice.design.y[r] ?? 0);
      }
    }
  }
  const means = choices.map((_, c) => mean(losses.subarray(c * n, (c + 1) * n)));
  let best = 0;
  means.forEach((value, c) => {
    if (value < (means[best] ?? Infinity)) best = c;
  });
  const bestLosses = losses.subarray(best * n, (best + 1) * n);
  const bestMean = means[best] ?? 0;
  let variance = 0;
  for (const value of bestLosses) variance += (value - bestMean) ** 2;
  const standardError = n > 1 ? Math.sqrt(variance / (n - 1) / n) : 0;
  const tolerance = settings.seRule * standardError;
  const chosen = means.findIndex((value) => value <= bestMean + tolerance);
  return choices[chosen < 0 ? best : chosen] as Choice;
}

function mean(values: Float64Array): number {
  let sum = 0;
  for (const value of values) sum += value;
  return values.length === 0 ? 0 : sum / values.length;
}

const round = (value: number) => (value === 0 ? 0 : Number(value.toPrecision(6)));

function* fitModel(labels: readonly RouterLabel[], catalogPrior: ModelAbility, settings: Settings): Generator<void, FittedModel> {
  const prior = settings.calibratePrior
    ? calibrateAbility(
        catalogPrior,
        labels.map((label) => traitsOfVector(label.vector, { weakLogit: 0, strongLogit: 0 })),
        labels.map((label) => label.score),
      )
    : catalogPrior;
  const design = yield* buildDesign(labels, prior);
  const targets = settings.gaplessTarget ? [design, gaplessDesign(design, labels, prior)] : [design];
  let choice: Choice = { design, gapScale: 1, penalty: Number.POSITIVE_INFINITY };
  if (design.rows >= settings.minLabelsForWeights) {
    const choices = settings.penalties.flatMap((penalty) => targets.map((target, t): Choice => ({ design: target, gapScale: t === 0 ? 1 : 0, penalty })));
    choice = yield* chooseFit(choices, settings);
  }
  const chosen = choice.design;
  const weights = new Float64Array(Number.isFinite(choice.penalty) ? D : BASE_COLUMNS);
  const all = Int32Array.from({ length: chosen.rows }, (_, r) => r);
  yield* fitWeights(chosen, all, choice.penalty, settings, weights);
  // Laplace approximation of the intercept's posterior: its sd is the log-odds uncertainty Thompson samples from.
  let curvature = settings.interceptPrecision;
  for (let r = 0; r < chosen.rows; r += 1) {
    const p = logistic(logitAt(chosen, r, weights));
    curvature += p * (1 - p);
  }
  const full = new Array<number>(D).fill(0);
  weights.forEach((w, j) => {
    full[j] = round(w);
  });
  return {
    weights: full,
    labels: chosen.rows,
    uncertainty: round(1 / Math.sqrt(curvature)),
    ...(choice.gapScale === 1 ? {} : { gapScale: choice.gapScale }),
    ...(prior === catalogPrior ? {} : { ability: { position: round(prior.position), offset: round(prior.offset) } }),
  };
}

function* fitSteps(input: FitRouterInput): Generator<void, RouterFit> {
  const settings = settingsOf(input.options);
  const byModel = new Map<string, RouterLabel[]>();
  let used = 0;
  for (const label of input.labels) {
    if (label.vector.length !== D || !Number.isFinite(label.score)) continue;
    let list = byModel.get(label.model);
    if (list === undefined) byModel.set(label.model, (list = []));
    list.push(label);
  }
  const models: Record<string, FittedModel> = {};
  for (const model of [...byModel.keys()].sort()) {
    const labels = (byModel.get(model) ?? []).slice(-settings.maxLabels);
    used += labels.length;
    models[model] = yield* fitModel(labels, input.priorAbility(model), settings);
  }
  const now = input.options?.now?.() ?? new Date();
  return { version: 1, vectorVersion: PROMPT_VECTOR_VERSION, fittedAt: now.toISOString(), labels: used, models };
}

/** Fits every model the labels score, at once (the CLI, tests). */
export function fitRouter(input: FitRouterInput): RouterFit {
  const steps = fitSteps(input);
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
  }
}

/**
 * {@link fitRouter} in slices of at most about `sliceMs` of work (one pass over a model's labels is the
 * smallest step: ≈ 3 ms at 20,000 labels), awaiting `yieldToLoop` between them, for the background refit.
 */
export async function fitRouterInSlices(input: FitRouterInput, yieldToLoop: () => Promise<void>, sliceMs = 4): Promise<RouterFit> {
  const steps = fitSteps(input);
  let sliceStart = performance.now();
  for (;;) {
    const next = steps.next();
    if (next.done === true) return next.value;
    if (performance.now() - sliceStart >= sliceMs) {
      await yieldToLoop();
      sliceStart = performance.now();
    }
  }
}

/** The log-odds of a right answer: the prior's on the vector's traits, plus the model's fitted correction. */
export function logitWithFit(catalogAbility: ModelAbility, vector: ArrayLike<number>, fitted?: FittedModel): number {
  const ability = fitted?.ability ?? catalogAbility;
  const weak = vector[VECTOR_INDEX.weakLogit] ?? 0;
  let z = ability.offset + weak + (fitted?.gapScale ?? 1) * ability.position * (vector[VECTOR_INDEX.gap] ?? 0);
  if (fitted !== undefined) {
    const weights = fitted.weights;
    const dims = Math.min(weights.length, vector.length);
    for (let j = 0; j < dims; j += 1) z += (weights[j] ?? 0) * (vector[j] ?? 0);
  }
  return z;
}

/** The fit's entry for a model, if the fit is for this vector layout. */
export function fittedModelOf(fit: RouterFit | undefined, model: string): FittedModel | undefined {
  return fit === undefined || fit.vectorVersion !== PROMPT_VECTOR_VERSION ? undefined : fit.models[model];
}

/** P(right) of every model on every prompt vector, row-major prompts × models (for evaluation). */
export function predictWithFit(vectors: readonly Float32Array[], models: readonly { readonly name: string; readonly ability: ModelAbility }[], fit?: RouterFit): Table {
  const values = new Float64Array(vectors.length * models.length);
  const fitted = models.map((model) => fittedModelOf(fit, model.name));
  vectors.forEach((vector, p) => {
    models.forEach((model, m) => {
      values[p * models.length + m] = logistic(logitWithFit(model.ability, vector, fitted[m]));
    });
  });
  return { prompts: vectors.length, models: models.length, values };
}
