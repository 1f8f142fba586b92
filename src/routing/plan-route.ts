import { parseModelRef } from '../catalog/catalog.js';
import { GatewayError, errors } from '../lib/errors.js';
import { flattenString } from '../lib/flat-string.js';
import type { ChatRequest } from '../providers/contract.js';
import type { ModelCatalog, ModelInfo, ModelKind } from '../catalog/catalog.js';
import type { ModelHealthView, RouterSettings } from './routing-contract.js';
import { filterEligible, type DroppedCandidate } from './strategies/eligibility.js';
import { profileEmbeddingRequest, profileRequest } from './strategies/estimates.js';
import type { AutoPlanNote, RankedCandidate, StrategyName, StrategyNotes } from './strategies/routing-strategy.js';
import { defaultStrategies, strategyFor, type StrategyRegistry } from './strategies/strategy-registry.js';

/** The router as routing needs it (a RouterRecord fits). */
export interface RoutableRouter {
  readonly strategy: string;
  readonly models: readonly string[];
  readonly settings?: RouterSettings;
}

export interface PlanRouteInput {
  readonly router: RoutableRouter;
  /** An embedding request: one user message per input, holding its text (the longest input must fit a model's window). */
  readonly request: ChatRequest;
  /**
   * What the request asks for: models of the other kind are dropped (`kind`). An embedding plan
   * expects no output tokens: cost, latency and carbon are those of the input alone.
   * @default 'chat'
   */
  readonly kind?: ModelKind | undefined;
  /**
   * Why the request's input cannot go to a model, or undefined when it can: e.g. "token-array input" for a
   * provider that takes only text. Such models are dropped (`input`); when every model is, 400 `unsupported_value`.
   */
  readonly refuseInput?: ((model: ModelInfo) => string | undefined) | undefined;
  /** The owner's catalog: the shipped one with their own models and prices over it. */
  readonly catalog: ModelCatalog;
  /** Undefined: every model is healthy and nothing is measured. */
  readonly health: ModelHealthView | undefined;
  /** The key a model's health is kept under (an owner's own credentials have their own). @default the model id */
  readonly healthKey?: ((model: ModelInfo) => string) | undefined;
  /** Epoch milliseconds. */
  readonly now: number;
  /** Uniform in [0, 1). */
  readonly random: () => number;
  /** @default the shipped strategies */
  readonly strategies?: StrategyRegistry;
  /**
   * Whether the model's provider has credentials here (server-wide or the owner's).
   * Models that cannot be called are dropped before ranking, so no strategy ever
   * puts them first (latency exploration would, as they never get measured).
   * @default every model is callable
   */
  readonly isCallable?: ((provider: string, model: string) => boolean) | undefined;
}

export interface RoutePlan {
  /** The strategy that ranked, by name (an unknown stored name ranks as `balanced`). */
  readonly strategy: StrategyName;
  /** Eligible models best-first, each with its score and reason. Never empty. */
  readonly ranked: readonly RankedCandidate[];
  readonly dropped: readonly DroppedCandidate[];
  /** The prompt size routing used (o200k count for short prompts, ≈ 4 characters a token for long ones). */
  readonly promptTokens: number;
  /** `auto` only: the prompt vector to keep for feedback, whether the decision explored, the strongest candidate. */
  readonly auto?: AutoPlanNote;
}

/**
 * Filters the router's models down to those that can serve the request, then
 * ranks them with the router's strategy. When none is left, throws the
 * gateway error that says why (see noEligibleModel).
 */
export function planRoute(input: PlanRouteInput): RoutePlan {
  const settings = input.router.settings ?? {};
  const kind = input.kind ?? 'chat';
  const profile = kind === 'chat' ? profileRequest(input.request) : profileEmbeddingRequest(input.request);
  const notConfigured: DroppedCandidate[] = [];
  const callableIds = input.isCallable === undefined ? input.router.models : input.router.models.filter((id) => {
    const ref = parseModelRef(id);
    if (ref === undefined || input.isCallable?.(ref.provider, ref.model) !== false) return true;
    notConfigured.push({ model: id, code: 'not_configured', reason: `provider "${ref.provider}" is not configured on this server or for this owner` });
    return false;
  });
  const { eligible, dropped: droppedByRules } = filterEligible({
    modelIds: callableIds,
    catalog: input.catalog,
    kind,
    refuseInput: input.refuseInput,
    profile,
    settings,
    health: input.health,
    healthKey: input.healthKey,
    now: input.now,
  });
  const dropped = [...notConfigured, ...droppedByRules];
  if (eligible.length === 0) throw noEligibleModel(dropped, input.now, kind);
  const strategy = strategyFor(input.strategies ?? defaultStrategies, input.router.strategy);
  const notes: StrategyNotes = {};
  const ranked = strategy.rank(eligible, { settings, now: input.now, random: input.random, request: input.request, notes });
  return { strategy: strategy.name, ranked, dropped, promptTokens: profile.promptTokens, ...(notes.auto === undefined ? {} : { auto: notes.auto }) };
}

/** The models to call, best-first. */
export function plannedModels(plan: RoutePlan): ModelInfo[] {
  return plan.ranked.map((entry) => entry.candidate.model);
}

/**
 * Why no model can take the request, most actionable first: a model that is
 * only backing off could serve it later (503, with Retry-After when the first
 * may be called again); otherwise the request
 * itself is too big (context_length_exceeded) or asks for what no model offers
 * or allows (unsupported_request), or is of the other kind than the router's
 * models (a chat request to an embedding router); a router whose models are
 * all unknown is 503.
 */
export function noEligibleModel(dropped: readonly DroppedCandidate[], now: number, kind: ModelKind = 'chat'): GatewayError {
  const reasons = dropped.map((drop) => `${drop.model}: ${drop.reason}`).join('; ');
  const has = (code: DroppedCandidate['code']) => dropped.some((drop) => drop.code === code);
  if (has('unavailable')) {
    // Retry-After: when the first of them may be called again (a circuit lets its probe through, a back-off ends).
    const again = Math.min(...dropped.map((drop) => drop.availableAgainAt ?? Number.POSITIVE_INFINITY));
    const seconds = Number.isFinite(again) ? Math.max(1, Math.ceil((again - now) / 1000)) : 1;
    const error = errors.allModelsUnavailable(`None can be tried now: ${reasons}.`);
    return new GatewayError(error.status, error.type, error.code, error.message, { param: error.param, headers: { ...error.headers, 'retry-after': String(seconds) } });
  }
  const message = `No model of this router can take this request: ${reasons}.`;
  if (has('context_window')) return errors.invalidRequest(message, kind === 'embedding' ? 'input' : 'messages', 'context_length_exceeded');
  if (has('input') && dropped.every((drop) => drop.code === 'input' || drop.code === 'kind' || drop.code === 'unknown_model' || drop.code === 'not_configured')) {
    return errors.invalidRequest(message, 'input', 'unsupported_value');
  }
  if (dropped.length > 0 && dropped.every((drop) => drop.code === 'kind' || drop.code === 'unknown_model') && has('kind')) {
    const serves = kind === 'embedding' ? 'chat, not embeddings: send embedding requests to a router of embedding models' : 'embeddings, not chat: send its requests to /embeddings, or chat requests to a router of chat models';
    return errors.invalidRequest(`This router serves ${serves} (${reasons}).`, 'model', 'unsupported_request');
  }
  if (dropped.some((drop) => drop.code !== 'unknown_model' && drop.code !== 'not_configured')) {
    return errors.invalidRequest(message, null, 'unsupported_request');
  }
  if (has('not_configured')) return errors.allModelsUnavailable(`No provider of this router is configured: ${reasons}.`);
  return errors.allModelsUnavailable('The router lists no model this server knows.');
}

/** `_meta.routing`: what the router considered and why, as clients see it. */
export interface RoutingMeta {
  readonly strategy: StrategyName;
  readonly candidates: readonly {
    readonly model: string;
    readonly rank: number;
    readonly score: number;
    readonly reason: string;
    readonly expectedCostUsd: number;
    readonly expectedLatencyMs: number;
    readonly expectedCarbonGrams: number;
    readonly predictedQuality?: number;
  }[];
  readonly dropped: readonly { readonly model: string; readonly reason: string }[];
  /** `auto` only: Thompson sampling changed the first choice. */
  readonly explored?: boolean;
}

export function routingMeta(plan: RoutePlan): RoutingMeta {
  return {
    strategy: plan.strategy,
    candidates: plan.ranked.map((entry, index) => ({
      model: entry.candidate.model.id,
      rank: index + 1,
      score: significant(entry.score),
      // Kept with the request until its end (`_meta`); built by concatenation, it would be a rope (flat-string.ts).
      reason: flattenString(entry.reason),
      expectedCostUsd: entry.candidate.expectedCostUsd,
      expectedLatencyMs: Math.round(entry.candidate.expectedLatencyMs * 10) / 10,
      expectedCarbonGrams: entry.candidate.expectedCarbonGrams,
      ...(entry.predictedQuality !== undefined ? { predictedQuality: significant(entry.predictedQuality) } : {}),
    })),
    dropped: plan.dropped.map((drop) => ({ model: drop.model, reason: drop.reason })),
    ...(plan.auto === undefined ? {} : { explored: plan.auto.explored }),
  };
}

/** Six significant digits: enough to compare, without float noise in the JSON. */
function significant(value: number): number {
  return value === 0 || !Number.isFinite(value) ? value : Number(value.toPrecision(6));
}
