import type { RouterFit } from '../routing-contract.js';
import { abilityFromPrice, abilityFromQualityScore } from './abilities.js';
import { createPromptScorer, logitOf, probabilityOf, type AutoRouterModel, type ModelAbility } from './model.js';
import { fillPromptVector, PROMPT_VECTOR_LENGTH } from './prompt-vector.js';
import { DEFAULT_UNCERTAINTY, fittedModelOf, logitWithFit } from './router-fit.js';

/** What the predictor needs to know about a candidate model; the catalog's ModelInfo fits. */
export interface AutoCandidate {
  /** `provider:model`, or a bare model name. */
  readonly id: string;
  /** LMArena-style text score (the catalog's `quality.score`). */
  readonly qualityScore?: number;
  readonly pricing: { readonly inputPerMTok: number; readonly outputPerMTok: number };
  /** Parameters in billions (active ones for mixtures of experts); used only by the price/size prior. */
  readonly activeParamsB?: number;
}

export type AutoObjective =
  /** The cheapest model whose predicted probability of a good answer is at least `target` (0..1); the likeliest if none is. */
  | { readonly kind: 'quality-target'; readonly target: number }
  /** The model maximising probability − λ·expected cost in USD. */
  | { readonly kind: 'quality-minus-cost'; readonly lambda: number };

export interface ExpectedUsage {
  /** Prompt tokens; default the prompt's characters / 4. */
  readonly promptTokens?: number;
  /** Completion tokens expected; default {@link DEFAULT_OUTPUT_TOKENS}. */
  readonly outputTokens?: number;
}

export interface AutoChoice {
  readonly id: string;
  readonly probability: number;
  readonly expectedCostUsd: number;
  /** Every candidate's probability, by id. */
  readonly predicted: ReadonlyMap<string, number>;
}

/** What the predictor makes of one prompt for a router: per candidate, in the order given. */
export interface AutoAssessment {
  /** The prompt vector (prompt-vector.ts), a new array. */
  readonly vector: Float32Array;
  /** Log-odds of a good answer. */
  readonly logits: Float64Array;
  /** Their standard deviation, for Thompson sampling. */
  readonly uncertainty: Float64Array;
}

export interface AssessOptions {
  /** Abilities calibrated for the router, by id; used for models its fit does not cover. */
  readonly abilities?: Readonly<Record<string, ModelAbility>> | undefined;
  /** The router's own fit (router-fit.ts): its models get their catalog prior plus the fitted correction. Ignored for another vector version. */
  readonly fit?: RouterFit | undefined;
}

export interface AutoPredictor {
  /** Log-odds, their uncertainty and the prompt vector for each candidate, in one feature pass. */
  assess(promptText: string, models: readonly AutoCandidate[], options?: AssessOptions): AutoAssessment;
  /**
   * P(good answer) for each candidate on this prompt, by id. Runs in-process, no I/O.
   * `calibrated`: abilities fitted for this router, by id; they win over every other source.
   */
  predict(promptText: string, models: readonly AutoCandidate[], calibrated?: Readonly<Record<string, ModelAbility>>): Map<string, number>;
  /** Picks one candidate for the objective; `models` must not be empty. */
  choose(promptText: string, models: readonly AutoCandidate[], objective: AutoObjective, usage?: ExpectedUsage): AutoChoice;
  /** Where a candidate sits relative to the anchors, and why. */
  abilityOf(model: AutoCandidate): ModelAbility & { readonly source: AbilitySource };
}

export type AbilitySource = 'calibrated' | 'trained' | 'quality-score' | 'price-prior';

export interface AutoPredictorOptions {
  /** Abilities calibrated for this router from labelled examples (abilities.ts `calibrateAbility`), by candidate id. */
  readonly calibrated?: ReadonlyMap<string, ModelAbility>;
}

/** Completion length assumed when the caller gives none (as the other strategies assume). */
export const DEFAULT_OUTPUT_TOKENS = 256;
/** Rough tokens per character for English text, used when the prompt's token count is unknown. */
export const CHARS_PER_TOKEN = 4;

export function expectedCostUsd(pricing: AutoCandidate['pricing'], promptTokens: number, outputTokens: number): number {
  return (promptTokens * pricing.inputPerMTok + outputTokens * pricing.outputPerMTok) / 1e6;
}

/** The anchor this candidate is, matching `provider:model` ids on the model part. */
function anchorAbility(model: AutoRouterModel, id: string): ModelAbility | undefined {
  const colon = id.indexOf(':');
  const name = colon >= 0 ? id.slice(colon + 1) : id;
  return model.anchors.find((anchor) => anchor.name === id || anchor.name === name);
}

/**
 * The `auto` strategy's predictor. Abilities: calibrated for the router if
 * given, else the trained anchors' own, else from the catalog quality score
 * (linear map through the anchors' LMArena scores), else the price/size prior.
 */
export function createAutoPredictor(model: AutoRouterModel, options: AutoPredictorOptions = {}): AutoPredictor {
  const scorer = createPromptScorer(model);
  const cache = new WeakMap<AutoCandidate, ModelAbility & { readonly source: AbilitySource }>();

  const abilityOf = (candidate: AutoCandidate): ModelAbility & { readonly source: AbilitySource } => {
    const cached = cache.get(candidate);
    if (cached !== undefined) return cached;
    const calibrated = options.calibrated?.get(candidate.id);
    const anchor = anchorAbility(model, candidate.id);
    let ability: ModelAbility & { readonly source: AbilitySource };
    if (calibrated !== undefined) ability = { position: calibrated.position, offset: calibrated.offset, source: 'calibrated' };
    else if (anchor !== undefined) ability = { position: anchor.position, offset: anchor.offset, source: 'trained' };
    else if (candidate.qualityScore !== undefined) ability = { ...abilityFromQualityScore(candidate.qualityScore, model.anchors), source: 'quality-score' };
    else {
      const prior = abilityFromPrice(
        {
          inputPrice: candidate.pricing.inputPerMTok,
          outputPrice: candidate.pricing.outputPerMTok,
          ...(candidate.activeParamsB === undefined ? {} : { sizeB: candidate.activeParamsB }),
        },
        model.anchors,
      );
      ability = { ...prior, source: 'price-prior' };
    }
    cache.set(candidate, ability);
    return ability;
  };

  const predict = (promptText: string, models: readonly AutoCandidate[], calibrated?: Readonly<Record<string, ModelAbility>>): Map<string, number> => {
    const traits = scorer.score(promptText);
    const result = new Map<string, number>();
    for (const candidate of models) result.set(candidate.id, probabilityOf(calibrated?.[candidate.id] ?? abilityOf(candidate), traits));
    return result;
  };

  const assess = (promptText: string, models: readonly AutoCandidate[], assessOptions: AssessOptions = {}): AutoAssessment => {
    const traits = scorer.score(promptText);
    const vector = fillPromptVector(scorer.buffer, traits, new Float32Array(PROMPT_VECTOR_LENGTH));
    const logits = new Float64Array(models.length);
    const uncertainty = new Float64Array(models.length);
    models.forEach((candidate, index) => {
      const fitted = fittedModelOf(assessOptions.fit, candidate.id);
      if (fitted !== undefined) {
        logits[index] = logitWithFit(abilityOf(candidate), vector, fitted);
        uncertainty[index] = fitted.uncertainty;
      } else {
        logits[index] = logitOf(assessOptions.abilities?.[candidate.id] ?? abilityOf(candidate), traits);
        uncertainty[index] = DEFAULT_UNCERTAINTY;
      }
    });
    return { vector, logits, uncertainty };
  };

  return {
    predict,
    assess,
    abilityOf,
    choose(promptText, models, objective, usage = {}) {
      if (models.length === 0) throw new Error('auto: no candidate models to choose from');
      const predicted = predict(promptText, models);
      const promptTokens = usage.promptTokens ?? Math.ceil(promptText.length / CHARS_PER_TOKEN);
      const outputTokens = usage.outputTokens ?? DEFAULT_OUTPUT_TOKENS;
      let best: AutoCandidate | undefined;
      let bestProbability = -Infinity;
      let bestCost = Infinity;
      let bestValue = -Infinity;
      let meetsTarget = false;
      for (const candidate of models) {
        const probability = predicted.get(candidate.id) ?? 0;
        const cost = expectedCostUsd(candidate.pricing, promptTokens, outputTokens);
        let better: boolean;
        if (objective.kind === 'quality-minus-cost') {
          const value = probability - objective.lambda * cost;
          better = value > bestValue || (value === bestValue && cost < bestCost);
          if (better) bestValue = value;
        } else {
          const meets = probability >= objective.target;
          if (meets !== meetsTarget) better = meets;
          else if (meets) better = cost < bestCost || (cost === bestCost && probability > bestProbability);
          else better = probability > bestProbability || (probability === bestProbability && cost < bestCost);
          if (better) meetsTarget = meets;
        }
        if (better || best === undefined) {
          best = candidate;
          bestProbability = probability;
          bestCost = cost;
        }
      }
      const chosen = best as AutoCandidate;
      return { id: chosen.id, probability: bestProbability, expectedCostUsd: bestCost, predicted };
    },
  };
}
