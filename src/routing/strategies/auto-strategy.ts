import { messageText } from '../../providers/token-counter.js';
import type { ChatRequest } from '../../providers/contract.js';
import type { AutoPredictor } from '../auto/auto-predictor.js';
import { formatUsdEstimate } from '../../lib/money.js';
import type { CandidateEstimate, RankedCandidate, RoutingStrategy } from './routing-strategy.js';

/**
 * `auto`: prompt-aware routing. The predictor (src/routing/auto/, trained only
 * on shared/data/routing) gives every eligible model its probability of a good
 * answer to this prompt; the strategy then picks the cheapest model expected
 * to meet the router's quality target (`settings.qualityTarget`, default
 * {@link DEFAULT_QUALITY_TARGET}). Ranking, for fallback:
 *
 * 1. models that meet the target, cheapest first (expected cost of this request);
 * 2. then the others, likeliest first (a stronger model is the better fallback).
 *
 * When no model meets the target the likeliest comes first. Score: the
 * predicted probability, 0..1. Runs in-process, no I/O: hashed n-gram and meta
 * features of the prompt, a linear model, two numbers per model.
 */

/** The router's quality target when it sets none (docs/routing.md). */
export const DEFAULT_QUALITY_TARGET = 0.8;

/**
 * The text the predictor reads: the last user message (the question to be
 * answered now), with the system prompt before it when there is one. Earlier
 * turns are left out: the features are of one question, as in the training data.
 */
export function promptTextOf(request: ChatRequest): string {
  let system = '';
  let lastUser = '';
  for (const message of request.messages) {
    if (message.role === 'user') lastUser = messageText(message);
    else if ((message.role === 'system' || message.role === 'developer') && system === '') system = messageText(message);
  }
  if (lastUser === '') {
    // No user turn (e.g. a system-only prompt): read whatever text there is.
    return request.messages.map((message) => messageText(message)).join('\n');
  }
  return system === '' ? lastUser : `${system}\n${lastUser}`;
}

/** Where the strategy gets its predictor; called on first use, so the weights load only if a router uses `auto`. */
export type AutoPredictorSource = () => AutoPredictor;

export function createAutoStrategy(source: AutoPredictorSource): RoutingStrategy {
  let predictor: AutoPredictor | undefined;
  return {
    name: 'auto',
    rank(candidates, context) {
      predictor ??= source();
      const target = context.settings.qualityTarget ?? DEFAULT_QUALITY_TARGET;
      const predicted = predictor.predict(
        promptTextOf(context.request),
        candidates.map((candidate) => candidate.model),
        context.settings.autoAbilities,
      );
      const ranked = candidates.map((candidate) => {
        const probability = predicted.get(candidate.model.id) ?? 0;
        return { candidate, probability, meets: probability >= target };
      });
      ranked.sort((a, b) => {
        if (a.meets !== b.meets) return a.meets ? -1 : 1;
        if (a.meets) return a.candidate.expectedCostUsd - b.candidate.expectedCostUsd || b.probability - a.probability;
        return b.probability - a.probability || a.candidate.expectedCostUsd - b.candidate.expectedCostUsd;
      });
      return ranked.map(({ candidate, probability, meets }): RankedCandidate => ({
        candidate,
        score: probability,
        predictedQuality: probability,
        reason: reasonFor(candidate, probability, meets, target),
      }));
    },
  };
}

function reasonFor(candidate: CandidateEstimate, probability: number, meets: boolean, target: number): string {
  const expected = `expected ${formatUsdEstimate(candidate.expectedCostUsd)}`;
  return meets
    ? `predicted ${probability.toFixed(2)} ≥ target ${target}; ${expected}`
    : `predicted ${probability.toFixed(2)} < target ${target}; ${expected}`;
}
