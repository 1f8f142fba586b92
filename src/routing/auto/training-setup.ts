import type { AnchorModel, FamiliarityGate } from './model.js';
import type { TrainOptions } from './train.js';

/**
 * What `npm run train:router` and `npm run cv:router` train with, in one
 * place so the shipped weights and the held-out figures describe the same model.
 */

/** Names in ../shared/data/routing/mmlu.jsonl. */
export const WEAK_ANCHOR = 'mixtral-8x7b-instruct-v0.1';
export const STRONG_ANCHOR = 'gpt-4-1106-preview';

/** Chosen by 5-fold cross-validation by subject (see docs/routing.md). */
export const TRAIN_OPTIONS: TrainOptions = { penalty: 1e-3, minPrompts: 3, maxIterations: 300 };

/**
 * β of the length prior (AutoRouterModel.lengthPrior), stored with the weights. Chosen by the pooled
 * cross-validated APGR over all folds (0, 0.25, 0.5, 1, 2 tried; see docs/routing.md).
 */
export const LENGTH_PRIOR = 0.25;

/**
 * The familiarity gate (AutoRouterModel.gate) stored with the weights. With 2^16 buckets hash collisions give
 * nearly every bucket some weight, so a bucket counts as trained only when its |weights| sum above `threshold`:
 * then gibberish scores about 0.08, MMLU and RouterBench prompts about 0.6 at the median.
 */
export const FAMILIARITY_GATE: FamiliarityGate = { low: 0.3, high: 0.5, threshold: 0.05, minShare: 0.002 };

/**
 * The anchors as the priors need them. Prices: list prices when the data was
 * collected (OpenAI's GPT-4 Turbo preview; Mixtral 8x7B as hosted by
 * Together AI and Anyscale, about $0.60 per million tokens either way).
 * Quality scores: their LMArena text ratings on the catalog's scale.
 * GPT-4's size was never disclosed.
 */
export const ANCHORS: readonly [AnchorModel, AnchorModel] = [
  { name: WEAK_ANCHOR, position: 0, offset: 0, inputPrice: 0.6, outputPrice: 0.6, sizeB: 46.7, qualityScore: 1114 },
  { name: STRONG_ANCHOR, position: 1, offset: 0, inputPrice: 10, outputPrice: 30, qualityScore: 1251 },
];
