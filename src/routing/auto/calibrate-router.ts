import type { CalibratedAbility } from '../routing-contract.js';
import { calibrateAbility } from './abilities.js';
import { createAutoPredictor, type AutoCandidate } from './auto-predictor.js';
import type { RoutingDataset } from './dataset.js';
import { createPromptScorer, type AutoRouterModel, type ModelAbility, type PromptTraits } from './model.js';
import { createPromptVectorizer } from './prompt-vector.js';
import type { RouterLabel } from './router-fit.js';

/** Where a model with no catalog entry starts before its examples move it: halfway between the anchors. */
export const UNKNOWN_MODEL_PRIOR: ModelAbility = { position: 0.5, offset: 0 };

export interface RouterCalibration {
  /** The fitted ability of every router model the examples score, by id. */
  readonly abilities: Record<string, CalibratedAbility>;
  /** Models the examples score that the router does not list (ignored). */
  readonly ignored: readonly string[];
}

/**
 * Fits, for each of a router's models that the labelled examples score, its
 * ability on the auto predictor's scale: a maximum a posteriori fit around
 * what the catalog says of it (abilities.ts `calibrateAbility`), so a few
 * examples nudge it and many decide it. The prompts' traits come from the
 * same weights the gateway routes with.
 */
export function calibrateRouter(
  model: AutoRouterModel,
  routerModels: readonly string[],
  catalogEntry: (id: string) => AutoCandidate | undefined,
  examples: RoutingDataset,
): RouterCalibration {
  const predictor = createAutoPredictor(model);
  const scorer = createPromptScorer(model);
  // The scorer reuses one object: copy each prompt's traits.
  const traits: PromptTraits[] = examples.prompts.map((prompt) => ({ ...scorer.score(prompt) }));
  const abilities: Record<string, CalibratedAbility> = {};
  const ignored: string[] = [];
  for (const [id, scores] of examples.scores) {
    if (!routerModels.includes(id)) {
      ignored.push(id);
      continue;
    }
    const entry = catalogEntry(id);
    const prior = entry === undefined ? UNKNOWN_MODEL_PRIOR : predictor.abilityOf(entry);
    const fitted = calibrateAbility({ position: prior.position, offset: prior.offset }, traits, scores);
    abilities[id] = { position: round(fitted.position), offset: round(fitted.offset), examples: examples.prompts.length };
  }
  return { abilities, ignored };
}

const round = (value: number) => Math.round(value * 1e4) / 1e4;

/**
 * The prior a router fit (router-fit.ts) corrects, by model id: the ability the `auto` strategy itself gives
 * the catalog's model, {@link UNKNOWN_MODEL_PRIOR} for one the catalog lacks.
 */
export function priorAbilityOf(model: AutoRouterModel, catalogEntry: (id: string) => AutoCandidate | undefined): (id: string) => ModelAbility {
  const predictor = createAutoPredictor(model);
  return (id) => {
    const entry = catalogEntry(id);
    if (entry === undefined) return UNKNOWN_MODEL_PRIOR;
    const { position, offset } = predictor.abilityOf(entry);
    return { position, offset };
  };
}

/**
 * Labelled examples as router-fit labels: each prompt's vector once, with one label per router model the
 * examples score; the models the router does not list are returned as ignored.
 */
export function routerLabelsOf(model: AutoRouterModel, routerModels: readonly string[], examples: RoutingDataset): { labels: RouterLabel[]; ignored: string[] } {
  const vectorize = createPromptVectorizer(model);
  const vectors = examples.prompts.map((prompt) => vectorize(prompt));
  const labels: RouterLabel[] = [];
  const ignored: string[] = [];
  for (const [id, scores] of examples.scores) {
    if (!routerModels.includes(id)) ignored.push(id);
    else vectors.forEach((vector, index) => labels.push({ vector, model: id, score: scores[index] ?? 0 }));
  }
  return { labels, ignored };
}
