import { logistic, type AnchorModel, type ModelAbility, type PromptTraits } from './model.js';

/**
 * Where models the weights were not trained on sit on the line between the
 * two anchors (see model.ts), from what is known about them: a quality score,
 * prices and size as priors, labelled examples to calibrate.
 */

/** Positions are kept in this range: extrapolating further is not believable. */
export const POSITION_RANGE = { min: -1.5, max: 3 } as const;

const clampPosition = (t: number) => Math.min(POSITION_RANGE.max, Math.max(POSITION_RANGE.min, t));

/**
 * Linear map from an LMArena-style quality score (the catalog's
 * `quality.score`) to a position: the anchors' own scores map to 0 and 1.
 */
export function abilityFromQualityScore(score: number, anchors: readonly [AnchorModel, AnchorModel]): ModelAbility {
  const [weak, strong] = anchors;
  return { position: clampPosition((score - weak.qualityScore) / (strong.qualityScore - weak.qualityScore)), offset: 0 };
}

/** Price of a typical call, 3 prompt tokens to 1 completion token, USD per million tokens. */
export const blendedPrice = (inputPrice: number, outputPrice: number): number => (3 * inputPrice + outputPrice) / 4;

/**
 * Positions gained per tenfold increase in parameters. Public MMLU results of
 * one model family at 7B, 13B and 70B rise by about 1 log-odds per tenfold;
 * the anchors are 0.67 log-odds apart on the training data, hence 1.5.
 */
export const POSITION_PER_SIZE_DECADE = 1.5;

export interface PriorInput {
  /** USD per million prompt tokens. */
  readonly inputPrice: number;
  /** USD per million completion tokens. */
  readonly outputPrice: number;
  /** Total parameters, billions. */
  readonly sizeB?: number;
}

/**
 * A rough prior when nothing but prices (and maybe size) is known: the
 * position is the log blended price interpolated between the anchors' prices,
 * averaged with the size prior (log parameters relative to the weak anchor's)
 * when a size is given. Prices drift down over time and open models are sold
 * near cost, so calibrate with labelled examples whenever possible.
 */
export function abilityFromPrice(model: PriorInput, anchors: readonly [AnchorModel, AnchorModel]): ModelAbility {
  const [weak, strong] = anchors;
  const price = Math.max(1e-3, blendedPrice(model.inputPrice, model.outputPrice));
  const low = blendedPrice(weak.inputPrice, weak.outputPrice);
  const high = blendedPrice(strong.inputPrice, strong.outputPrice);
  const byPrice = Math.log(price / low) / Math.log(high / low);
  if (model.sizeB === undefined || weak.sizeB === undefined) return { position: clampPosition(byPrice), offset: 0 };
  const bySize = POSITION_PER_SIZE_DECADE * Math.log10(model.sizeB / weak.sizeB);
  return { position: clampPosition((byPrice + bySize) / 2), offset: 0 };
}

/** Spread of the Gaussian prior around the starting ability when calibrating: a few examples move it, many decide it. */
export const CALIBRATION_PRIOR = { position: 0.75, offset: 0.75 } as const;

/**
 * Fits a model's ability to labelled examples: the maximum a posteriori
 * (position, offset) under the logistic model, with a Gaussian prior centred
 * on `prior` ({@link CALIBRATION_PRIOR} wide). Newton's method on two
 * parameters; the prompts' traits stay fixed.
 */
export function calibrateAbility(prior: ModelAbility, traits: readonly PromptTraits[], scores: ArrayLike<number>): ModelAbility {
  let position = prior.position;
  let offset = prior.offset;
  const precisionT = 1 / CALIBRATION_PRIOR.position ** 2;
  const precisionC = 1 / CALIBRATION_PRIOR.offset ** 2;
  for (let iteration = 0; iteration < 50; iteration += 1) {
    // Gradient and Hessian of the negative log posterior.
    let gT = precisionT * (position - prior.position);
    let gC = precisionC * (offset - prior.offset);
    let hTT = precisionT;
    let hCC = precisionC;
    let hTC = 0;
    traits.forEach((trait, index) => {
      const gap = trait.strongLogit - trait.weakLogit;
      const p = logistic(offset + trait.weakLogit + position * gap);
      const residual = p - (scores[index] ?? 0);
      const curvature = p * (1 - p);
      gT += residual * gap;
      gC += residual;
      hTT += curvature * gap * gap;
      hCC += curvature;
      hTC += curvature * gap;
    });
    const determinant = hTT * hCC - hTC * hTC;
    const stepT = (hCC * gT - hTC * gC) / determinant;
    const stepC = (hTT * gC - hTC * gT) / determinant;
    position -= stepT;
    offset -= stepC;
    if (Math.abs(stepT) + Math.abs(stepC) < 1e-9) break;
  }
  return { position: clampPosition(position), offset };
}
