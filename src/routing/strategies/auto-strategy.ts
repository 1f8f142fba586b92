import { messageText } from '../../providers/token-counter.js';
import type { ChatRequest } from '../../providers/contract.js';
import type { AutoPredictor } from '../auto/auto-predictor.js';
import { logistic } from '../auto/model.js';
import { encodePromptVector } from '../auto/prompt-vector.js';
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
 * probability ranked by, 0..1. Runs in-process, no I/O: hashed n-gram and meta
 * features of the prompt, a linear model, two numbers per model, plus the
 * router's own fit from its labels (`settings.autoFit`) when it has one.
 *
 * Exploration: a share of decisions (`settings.exploration`; by default
 * {@link DEFAULT_EXPLORATION} once the router learns from labels, none before:
 * a router nobody labels would pay for exploring and learn nothing) rank by a
 * Thompson sample instead, each model's log-odds plus Gaussian noise of its
 * uncertainty, so models with few labels still get some traffic to learn from.
 */

/** The router's quality target when it sets none (docs/routing.md). */
export const DEFAULT_QUALITY_TARGET = 0.8;

/** The share of decisions that explore when the router sets none and has a fit (docs/routing.md). */
export const DEFAULT_EXPLORATION = 0.05;

/** A standard normal draw from two uniform ones (Box–Muller). */
export function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

interface Scored {
  readonly candidate: CandidateEstimate;
  /** What the ranking sorts by: the predicted probability, or its Thompson sample when exploring. */
  readonly probability: number;
  readonly predicted: number;
  readonly meets: boolean;
}

/** Target-meeting models cheapest first, then the others likeliest first; ties keep the owner's order. */
function compare(a: Scored, b: Scored): number {
  if (a.meets !== b.meets) return a.meets ? -1 : 1;
  if (a.meets) return a.candidate.expectedCostUsd - b.candidate.expectedCostUsd || b.probability - a.probability;
  return b.probability - a.probability || a.candidate.expectedCostUsd - b.candidate.expectedCostUsd;
}

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
      if (candidates.length === 0) return [];
      predictor ??= source();
      const { settings } = context;
      const target = settings.qualityTarget ?? DEFAULT_QUALITY_TARGET;
      const assessment = predictor.assess(
        promptTextOf(context.request),
        candidates.map((candidate) => candidate.model),
        { abilities: settings.autoAbilities, fit: settings.autoFit },
      );
      const exploration = Math.min(1, Math.max(0, settings.exploration ?? (settings.autoFit === undefined ? 0 : DEFAULT_EXPLORATION)));
      const explore = exploration > 0 && context.random() < exploration;
      let strongest = 0;
      const greedy = candidates.map((candidate, index): Scored => {
        const probability = logistic(assessment.logits[index] ?? 0);
        if ((assessment.logits[index] ?? 0) > (assessment.logits[strongest] ?? 0)) strongest = index;
        return { candidate, probability, predicted: probability, meets: probability >= target };
      });
      let ranked = greedy;
      if (explore) {
        ranked = greedy.map((entry, index) => {
          const probability = logistic((assessment.logits[index] ?? 0) + (assessment.uncertainty[index] ?? 0) * gaussian(context.random));
          return { ...entry, probability, meets: probability >= target };
        });
      }
      const greedyFirst = greedy.reduce((best, entry) => (compare(entry, best) < 0 ? entry : best));
      ranked = [...ranked].sort(compare);
      const explored = explore && ranked[0]?.candidate !== greedyFirst.candidate;
      if (context.notes !== undefined) {
        context.notes.auto = {
          promptVector: encodePromptVector(assessment.vector),
          explored,
          strongestModel: candidates[strongest]?.model.id ?? '',
        };
      }
      return ranked.map(({ candidate, probability, predicted, meets }): RankedCandidate => ({
        candidate,
        score: probability,
        predictedQuality: predicted,
        reason: reasonFor(candidate, probability, meets, target, explore),
      }));
    },
  };
}

function reasonFor(candidate: CandidateEstimate, probability: number, meets: boolean, target: number, explore: boolean): string {
  const expected = `expected ${formatUsdEstimate(candidate.expectedCostUsd)}`;
  const what = explore ? 'sampled' : 'predicted';
  return meets
    ? `${what} ${probability.toFixed(2)} ≥ target ${target}; ${expected}`
    : `${what} ${probability.toFixed(2)} < target ${target}; ${expected}`;
}
