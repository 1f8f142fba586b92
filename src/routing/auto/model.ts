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
  /**
   * How much the hashed text features count on a prompt, by how familiar it is (see {@link FamiliarityGate}).
   * @default no gate: they always count fully
   */
  readonly gate?: FamiliarityGate;
  /**
   * A softmax over the meta features alone (same classes), trained beside the full one. Unfamiliar prompts
   * move toward it: it learned what length and structure say without the text to lean on.
   * @default none: an unfamiliar prompt keeps the full model's bias and meta weights
   */
  readonly fallback?: MetaOnlyWeights;
}

export interface MetaOnlyWeights {
  /** `OUTCOME_COUNT` weights per meta feature, in META_NAMES order. */
  readonly weights: Float32Array | Float64Array;
  readonly biases: Float32Array | Float64Array;
  /**
   * Per meta feature, the share of training prompts that had it (1 for the continuous ones): a prompt with a
   * structure the training rarely saw (no answer options, say, when every training prompt had four) is
   * unfamiliar whatever its words (see {@link FamiliarityGate.minShare}).
   */
  readonly shares?: Float32Array | Float64Array;
}

/**
 * The text features' weights are noise on prompts unlike the training data: its vocabulary is not theirs.
 * Familiarity f is the share of the prompt's hashed text features whose bucket carries trained weight
 * (training leaves buckets seen in too few prompts at zero); the text features count with
 * g = ceiling · clamp((f − low)/(high − low), 0, 1), and the rest of the way the prediction is the meta-only one.
 */
export interface FamiliarityGate {
  /** Familiarity at or below which the text features do not count. */
  readonly low: number;
  /** Familiarity at or above which they count fully. */
  readonly high: number;
  /** A bucket is trained when the sum of its |weights| over the classes exceeds this. @default 0 */
  readonly threshold?: number;
  /** The most the text features ever count, familiar or not: below 1, every prompt leans partly on the meta-only model. @default 1 */
  readonly ceiling?: number;
  /**
   * Structural familiarity: each meta feature the prompt has whose training share (MetaOnlyWeights.shares) is
   * below this scales g by share / minShare, so a structure the training never saw turns the text features off.
   * @default 0: words only
   */
  readonly minShare?: number;
}

/** The anchors' log-odds on one prompt. Reused between calls: read them before scoring the next prompt. */
export interface PromptTraits {
  weakLogit: number;
  strongLogit: number;
}

/** The traits with how familiar the prompt was and how much its text features counted (0..1 each). */
export interface ScoredPrompt extends PromptTraits {
  familiarity: number;
  gate: number;
}

export interface PromptScorer {
  /** Scores `text` into the scorer's one {@link ScoredPrompt} object and returns it. */
  score(text: string): ScoredPrompt;
  /** The features of the last prompt scored. */
  readonly buffer: FeatureBuffer;
}

/** Probabilities are kept within [ε, 1−ε] so log-odds stay finite. */
const EPSILON = 1e-6;
const LOG_CHARS = META_NAMES.indexOf('log-chars');
const logOdds = (p: number) => {
  const clamped = Math.min(1 - EPSILON, Math.max(EPSILON, p));
  return Math.log(clamped / (1 - clamped));
};

/** g(f) of a gate; 1 without one. */
export function gateValue(gate: FamiliarityGate | null | undefined, familiarity: number): number {
  if (gate === undefined || gate === null) return 1;
  const ceiling = Math.min(1, Math.max(0, gate.ceiling ?? 1));
  if (gate.high <= gate.low) return familiarity >= gate.high ? ceiling : 0;
  return ceiling * Math.min(1, Math.max(0, (familiarity - gate.low) / (gate.high - gate.low)));
}

/** The smallest share / minShare over the meta features the prompt has, at most 1; 1 without shares. */
function structuralFamiliarity(shares: Float32Array | Float64Array | undefined, meta: Float32Array, minShare: number): number {
  if (shares === undefined || minShare <= 0) return 1;
  let lowest = 1;
  for (let j = 0; j < META_COUNT; j += 1) {
    if ((meta[j] ?? 0) !== 0) lowest = Math.min(lowest, (shares[j] ?? 1) / minShare);
  }
  return lowest;
}

type Scoring = Pick<AutoRouterModel, 'weights' | 'biases' | 'lengthPrior' | 'gate' | 'fallback'>;

/**
 * The traits of the features already in `buffer`. `gate` overrides the model's own (null: no gate), so a
 * sweep over gates needs no re-encoded weights.
 */
export function traitsOf(model: Scoring, buffer: FeatureBuffer, out: ScoredPrompt, gate: FamiliarityGate | null | undefined = model.gate): ScoredPrompt {
  const weights = model.weights;
  const threshold = gate?.threshold ?? 0;
  let z0 = 0;
  let z1 = 0;
  let z2 = 0;
  let z3 = 0;
  let trained = 0;
  const indices = buffer.textIndices;
  for (let k = 0; k < buffer.textCount; k += 1) {
    const at = (indices[k] ?? 0) << 2;
    const w0 = weights[at] ?? 0;
    const w1 = weights[at + 1] ?? 0;
    const w2 = weights[at + 2] ?? 0;
    const w3 = weights[at + 3] ?? 0;
    if (Math.abs(w0) + Math.abs(w1) + Math.abs(w2) + Math.abs(w3) > threshold) trained += 1;
    z0 += w0;
    z1 += w1;
    z2 += w2;
    z3 += w3;
  }
  const familiarity = buffer.textCount === 0 ? 0 : trained / buffer.textCount;
  const g = gateValue(gate, familiarity) * structuralFamiliarity(model.fallback?.shares, buffer.meta, gate?.minShare ?? 0);
  const scale = buffer.textValue * g;
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
  // Without a meta-only model, the full model's bias and meta weights carry an unfamiliar prompt alone.
  const fallback = model.fallback;
  if (g < 1 && fallback !== undefined) {
    const rest = 1 - g;
    const fw = fallback.weights;
    let f0 = fallback.biases[0] ?? 0;
    let f1 = fallback.biases[1] ?? 0;
    let f2 = fallback.biases[2] ?? 0;
    let f3 = fallback.biases[3] ?? 0;
    for (let j = 0; j < META_COUNT; j += 1) {
      const value = meta[j] ?? 0;
      if (value !== 0) {
        const at = j << 2;
        f0 += value * (fw[at] ?? 0);
        f1 += value * (fw[at + 1] ?? 0);
        f2 += value * (fw[at + 2] ?? 0);
        f3 += value * (fw[at + 3] ?? 0);
      }
    }
    z0 = g * z0 + rest * f0;
    z1 = g * z1 + rest * f1;
    z2 = g * z2 + rest * f2;
    z3 = g * z3 + rest * f3;
  }
  const max = Math.max(z0, z1, z2, z3);
  const bothWrong = Math.exp(z0 - max);
  const strongOnly = Math.exp(z1 - max);
  const weakOnly = Math.exp(z2 - max);
  const bothRight = Math.exp(z3 - max);
  const total = bothWrong + strongOnly + weakOnly + bothRight;
  out.weakLogit = logOdds((weakOnly + bothRight) / total);
  out.strongLogit = logOdds((strongOnly + bothRight) / total);
  out.familiarity = familiarity;
  out.gate = g;
  const prior = model.lengthPrior ?? 0;
  if (prior !== 0) {
    const shift = 0.5 * prior * (meta[LOG_CHARS] ?? 0);
    out.weakLogit -= shift;
    out.strongLogit += shift;
  }
  return out;
}

/** A scorer with its own feature buffer: no allocation per call. Not reentrant. `gate` overrides the model's. */
export function createPromptScorer(model: AutoRouterModel, gate: FamiliarityGate | null | undefined = model.gate): PromptScorer {
  const buffer = createFeatureBuffer(model.features);
  const traits: ScoredPrompt = { weakLogit: 0, strongLogit: 0, familiarity: 0, gate: 1 };
  return {
    buffer,
    score(text) {
      extractFeatures(text, model.features, buffer);
      return traitsOf(model, buffer, traits, gate);
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
