import { createFeatureBuffer, extractFeatures, META_COUNT, META_NAMES, type FeatureBuffer, type FeatureConfig } from './features.js';

/**
 * The `auto` strategy's model.
 *
 * For the two anchor models it was trained on (Mixtral 8x7B, the weak one,
 * and GPT-4, the strong one) a linear softmax over the prompt's features
 * predicts their joint outcome: both wrong, only the strong one right, only
 * the weak one right, both right. That gives each anchor's probability of a
 * good answer and so its log-odds, ℓ_weak(x) and ℓ_strong(x).
 *
 * Every other model sits on the line through them, item-response style:
 *
 *   logit P(m answers x well) = c_m + ℓ_weak(x) + t_m · (ℓ_strong(x) − ℓ_weak(x))
 *
 * that is c_m − d(x) + (t_m − ½)·g(x) with the prompt's difficulty
 * d = −(ℓ_weak + ℓ_strong)/2 and gap g = ℓ_strong − ℓ_weak (how much more a
 * strong model gains on it). A model is two numbers: its position t_m (0 weak
 * anchor, 1 strong anchor, beyond 1 stronger) and an offset c_m.
 */
export interface ModelAbility {
  /** t_m: 0 for the weak anchor, 1 for the strong one; beyond 1 for stronger models. */
  readonly position: number;
  /** c_m: log-odds added on every prompt; 0 for the anchors. */
  readonly offset: number;
}

/** A model the weights were trained on, with what the priors need to place other models beside it. */
export interface AnchorModel extends ModelAbility {
  readonly name: string;
  /** USD per million prompt tokens when the data was collected. */
  readonly inputPrice: number;
  /** USD per million completion tokens. */
  readonly outputPrice: number;
  /** Total parameters in billions, where disclosed. */
  readonly sizeB?: number;
  /** Its LMArena text score, on the scale of the catalog's `quality.score`. */
  readonly qualityScore: number;
}

/** Number of joint outcome classes, in the order both wrong, strong only, weak only, both right. */
export const OUTCOME_COUNT = 4;

export interface AutoRouterModel {
  readonly features: FeatureConfig;
  /** `OUTCOME_COUNT` weights per feature index (meta features first, then hashed buckets). */
  readonly weights: Float32Array | Float64Array;
  /** One bias per outcome class. */
  readonly biases: Float32Array | Float64Array;
  /** The weak anchor first, then the strong one. */
  readonly anchors: readonly [AnchorModel, AnchorModel];
  /**
   * β of the length prior: β/2 · z, with z the standardised log length (the `log-chars` meta feature), is added
   * to the strong anchor's log-odds and taken from the weak one's, so the gap g(x) grows by β·z on top of what the
   * softmax learned. Prompt length predicts the gap on subjects the training never saw, where the text features
   * do not; chosen by cross-validation by subject. @default 0
   */
  readonly lengthPrior?: number;
}

/** The anchors' log-odds on one prompt. Reused between calls: read them before scoring the next prompt. */
export interface PromptTraits {
  weakLogit: number;
  strongLogit: number;
}

export interface PromptScorer {
  /** Scores `text` into the scorer's one {@link PromptTraits} object and returns it. */
  score(text: string): PromptTraits;
}

/** Probabilities are kept within [ε, 1−ε] so log-odds stay finite. */
const EPSILON = 1e-6;
const LOG_CHARS = META_NAMES.indexOf('log-chars');
const logOdds = (p: number) => {
  const clamped = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(clamped / (1 - clamped));
};

/** The traits of the features already in `buffer`. */
export function traitsOf(model: Pick<AutoRouterModel, 'weights' | 'biases' | 'lengthPrior'>, buffer: FeatureBuffer, out: PromptTraits): PromptTraits {
  const weights = model.weights;
  let z0 = 0;
  let z1 = 0;
  let z2 = 0;
  let z3 = 0;
  const indices = buffer.textIndices;
  for (let k = 0; k < buffer.textCount; k += 1) {
    const at = (indices[k] ?? 0) << 2;
    z0 += weights[at] ?? 0;
    z1 += weights[at + 1] ?? 0;
    z2 += weights[at + 2] ?? 0;
    z3 += weights[at + 3] ?? 0;
  }
  const scale = buffer.textValue;
  z0 = z0 * scale + (model.biases[0] ?? 0);
  z1 = z1 * scale + (model.biases[1] ?? 0);
  z2 = z2 * scale + (model.biases[2] ?? 0);
  z3 = z3 * scale + (model.biases[3] ?? 0);
  const meta = buffer.meta;
  for (let j = 0; j < META_COUNT; j += 1) {
    const value = meta[j] ?? 0;
    if (value !== 0) {
      const at = j << 2;
      z0 += value * (weights[at] ?? 0);
      z1 += value * (weights[at + 1] ?? 0);
      z2 += value * (weights[at + 2] ?? 0);
      z3 += value * (weights[at + 3] ?? 0);
    }
  }
  const max = Math.max(z0, z1, z2, z3);
  const bothWrong = Math.exp(z0 - max);
  const strongOnly = Math.exp(z1 - max);
  const weakOnly = Math.exp(z2 - max);
  const bothRight = Math.exp(z3 - max);
  const total = bothWrong + strongOnly + weakOnly + bothRight;
  out.weakLogit = logOdds((weakOnly + bothRight) / total);
  out.strongLogit = logOdds((strongOnly + bothRight) / total);
  const prior = model.lengthPrior ?? 0;
  if (prior !== 0) {
    const shift = 0.5 * prior * (meta[LOG_CHARS] ?? 0);
    out.weakLogit -= shift;
    out.strongLogit += shift;
  }
  return out;
}

/** A scorer with its own feature buffer: no allocation per call. Not reentrant. */
export function createPromptScorer(model: AutoRouterModel): PromptScorer {
  const buffer = createFeatureBuffer(model.features);
  const traits: PromptTraits = { weakLogit: 0, strongLogit: 0 };
  return {
    score(text) {
      extractFeatures(text, model.features, buffer);
      return traitsOf(model, buffer, traits);
    },
  };
}

export const logistic = (x: number): number => 1 / (1 + Math.exp(-x));

/** The log-odds of a right answer for a model of `ability` on a prompt with `traits`. */
export function logitOf(ability: ModelAbility, traits: PromptTraits): number {
  return ability.offset + traits.weakLogit + ability.position * (traits.strongLogit - traits.weakLogit);
}

/** P(right answer) for a model of `ability` on a prompt with `traits`. */
export function probabilityOf(ability: ModelAbility, traits: PromptTraits): number {
  return logistic(logitOf(ability, traits));
}
