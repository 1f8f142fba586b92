import { accountCall, type CallAccount } from '../accounting/call-accounting.js';
import { computeCostUsd } from '../accounting/cost.js';
import type { ClientSignal } from '../lib/client-abort.js';
import { DEFAULT_FALLBACK_DEADLINE_MS } from './pipeline-defaults.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import type { ChatModel, ChatRequest, ChatResult, EmbeddingModel, ToolCall, Usage } from '../providers/contract.js';
import { toPartStream, type PartStream } from '../providers/part-stream.js';
import type { OwnerProviders } from '../providers/credentials/owner-providers.js';
import type { ModelCatalog, ModelInfo } from '../catalog/catalog.js';
import { callWithFallback, type Attempt, type FallbackOptions, type ModelClient } from '../routing/fallback.js';
import { ownerScopedKey } from '../routing/health/health-keys.js';
import type { OwnerCatalogs } from '../catalog/owner-catalog.js';
import { planRoute, plannedModels, routingMeta, type RoutableRouter, type RoutingMeta } from '../routing/plan-route.js';
import type { ModelHealth } from '../routing/routing-contract.js';
import type { StrategyName } from '../routing/strategies/routing-strategy.js';

/**
 * The routing engine as one request-independent call: plan (eligibility,
 * strategy, health), call best-first with fallback, account (cost, carbon).
 * Requests (routed-call.ts) and agent steps both go through here, so a step is
 * routed exactly as a request to its router would be.
 */

/** What routing needs from the application (AppDependencies fits). */
export interface RouteCallDependencies {
  readonly ownerCatalogs: OwnerCatalogs;
  readonly providers: OwnerProviders;
  readonly health?: ModelHealth | undefined;
  /** Whether a model client runs on the server's credentials. @default every model is the server's */
  readonly isServerModel?: ((model: ChatModel) => boolean) | undefined;
  /** The same for embedding model clients. @default every model is the server's */
  readonly isServerEmbeddingModel?: ((model: EmbeddingModel) => boolean) | undefined;
  /** Epoch milliseconds. */
  readonly now: () => number;
  /** @default Math.random */
  readonly random?: (() => number) | undefined;
  readonly settings: { readonly maxAttempts: number; readonly fallbackDeadlineMs?: number | undefined };
}

/** The router whose models are ranked, with its owner (a RouterRecord fits). */
export interface OwnedRouter extends RoutableRouter {
  readonly ownerId: string;
}

/** A ranked route, ready to call; `M` is the kind of model client its models are (chat or embedding). */
export interface PreparedRoute<M extends ModelClient = ChatModel> {
  readonly ownerId: string;
  readonly strategy: StrategyName;
  /** Eligible models, best-first. */
  readonly candidates: readonly ModelInfo[];
  readonly routing: RoutingMeta;
  readonly resolveModel: (provider: string, model: string) => M | undefined;
  /** Whether a client runs on the server's credentials (its health is the model's), not an owner's own. */
  readonly isServerModel: ((model: M) => boolean) | undefined;
  readonly estimatedPromptTokens: number;
  /** `auto` routers only: what the settle-up keeps (the prompt vector) and what `_meta` reports (savings, exploration). */
  readonly auto: AutoRoute | undefined;
}

/** What an `auto` decision leaves for its settle-up. */
export interface AutoRoute {
  /** The prompt vector, base64: stored with the usage record so feedback on the request can become a label. */
  readonly promptVector: string;
  /** Whether Thompson sampling changed the first choice. */
  readonly explored: boolean;
  /** The candidate with the highest predicted quality: what "always use the strongest" would have called. */
  readonly strongestModel: string;
  /** Its catalog entry (the owner's prices included), for the counterfactual cost. */
  readonly strongest: ModelInfo | undefined;
}

/** When and how a call may run. */
export interface RouteCallTiming {
  /** performance.now() when the work started: the fallback deadline counts from it. */
  readonly startedAt: number;
  readonly signal?: ClientSignal | undefined;
  /** Overrides the deadline (on the performance.now() clock). @default startedAt + the fallback deadline */
  readonly deadlineAt?: number | undefined;
}

/**
 * Ranks the router's models for this request with its strategy (400/503 when none can take it).
 * Synchronous (the route, or a thrown error) when the owner's catalog and models are cached.
 */
export function prepareRoute(router: OwnedRouter, request: ChatRequest, deps: RouteCallDependencies): MaybePromise<PreparedRoute> {
  const catalog = deps.ownerCatalogs.forOwner(router.ownerId);
  const resolveModel = deps.providers.forOwner(router.ownerId);
  if (catalog instanceof Promise || resolveModel instanceof Promise) {
    return Promise.all([catalog, resolveModel]).then(([loaded, resolve]) => rankRoute(router, request, deps, loaded, resolve, deps.isServerModel, 'chat'));
  }
  return rankRoute(router, request, deps, catalog, resolveModel, deps.isServerModel, 'chat');
}

/**
 * Ranks an embedding router's models for these inputs (given as one user message of their text): only embedding
 * models are eligible, and their expected cost is the input's.
 */
export function prepareEmbeddingRoute(router: OwnedRouter, request: ChatRequest, deps: RouteCallDependencies): MaybePromise<PreparedRoute<EmbeddingModel>> {
  const catalog = deps.ownerCatalogs.forOwner(router.ownerId);
  const resolveModel = deps.providers.embeddingsForOwner(router.ownerId);
  if (catalog instanceof Promise || resolveModel instanceof Promise) {
    return Promise.all([catalog, resolveModel]).then(([loaded, resolve]) => rankRoute(router, request, deps, loaded, resolve, deps.isServerEmbeddingModel, 'embedding'));
  }
  return rankRoute(router, request, deps, catalog, resolveModel, deps.isServerEmbeddingModel, 'embedding');
}

function rankRoute<M extends ModelClient>(
  router: OwnedRouter,
  request: ChatRequest,
  deps: RouteCallDependencies,
  catalog: ModelCatalog,
  resolveModel: (provider: string, model: string) => M | undefined,
  isServerModel: ((model: M) => boolean) | undefined,
  kind: 'chat' | 'embedding',
): PreparedRoute<M> {
  // Health under the key fallback reports to: an owner's own credentials keep theirs apart.
  const healthKey = (info: ModelInfo): string => {
    const model = isServerModel === undefined ? undefined : resolveModel(info.provider, info.model);
    return model === undefined || isServerModel?.(model) !== false ? info.id : ownerScopedKey(info.id, router.ownerId);
  };
  const plan = planRoute({
    router,
    request,
    catalog,
    health: deps.health,
    healthKey,
    now: deps.now(),
    random: deps.random ?? Math.random,
    // A model of the other kind is dropped by the kind rule, with its reason, not as a provider not configured.
    isCallable: (provider, model) => resolveModel(provider, model) !== undefined || (catalog.get(`${provider}:${model}`)?.kind ?? 'chat') !== kind,
    kind,
  });
  return {
    ownerId: router.ownerId,
    strategy: plan.strategy,
    candidates: plannedModels(plan),
    routing: routingMeta(plan),
    resolveModel,
    isServerModel,
    estimatedPromptTokens: plan.promptTokens,
    auto: plan.auto === undefined ? undefined : { ...plan.auto, strongest: catalog.get(plan.auto.strongestModel) },
  };
}

/**
 * What the same tokens would have cost on the router's strongest model, at its catalog prices (long-context tiers and
 * cached tokens priced as the call itself): the `auto` router's counterfactual. Undefined for other routers.
 */
export function counterfactualCostUsd(route: Pick<PreparedRoute, 'auto'>, usage: Usage): number | undefined {
  const strongest = route.auto?.strongest;
  return strongest === undefined ? undefined : computeCostUsd(usage, strongest.pricing);
}

/** How fallback runs: the attempt limit, the deadline, the signal, and health under the right key. */
export function routeFallbackOptions<T, M extends ModelClient>(
  route: PreparedRoute<M>,
  deps: RouteCallDependencies,
  timing: RouteCallTiming,
  measure: FallbackOptions<T, M>['measure'],
): FallbackOptions<T, M> {
  const { health } = deps;
  const isServerModel = route.isServerModel;
  return {
    maxAttempts: deps.settings.maxAttempts,
    now: () => performance.now(),
    deadlineAt: timing.deadlineAt ?? timing.startedAt + (deps.settings.fallbackDeadlineMs ?? DEFAULT_FALLBACK_DEADLINE_MS),
    signal: timing.signal,
    health:
      health === undefined
        ? undefined
        : { state: health, now: deps.now, keyOf: (info, model) => (isServerModel === undefined || isServerModel(model) ? info.id : ownerScopedKey(info.id, route.ownerId)) },
    measure,
  };
}

/** A complete answer, accounted. */
export interface RoutedAnswer extends CallAccount {
  readonly result: ChatResult;
  /** The model that answered. */
  readonly model: ModelInfo;
  readonly attempts: readonly Attempt[];
}

/** Calls the candidates best-first until one answers, then accounts the call. Throws RoutingFailure (with attempts) when none does. */
export async function callRoute(route: PreparedRoute, request: ChatRequest, deps: RouteCallDependencies, timing: RouteCallTiming): Promise<RoutedAnswer> {
  let upstreamStarted = 0;
  const measure = (answer: ChatResult, elapsedMs: number) => ({ totalMs: elapsedMs, completionTokens: answer.usage?.completionTokens });
  const outcome = await callWithFallback(route.candidates, route.resolveModel, routeFallbackOptions(route, deps, timing, measure), (model, _info, { signal }) => {
    upstreamStarted = performance.now();
    return model.generate(request, { signal });
  });
  const generationMs = performance.now() - upstreamStarted;
  const result = outcome.value;
  const account = accountCall({
    model: outcome.model,
    request,
    usage: result.usage,
    generatedText: (result.message.content ?? '') + toolCallText(result.message.toolCalls),
    generationMs,
  });
  return { usage: account.usage, costUsd: account.costUsd, prices: account.prices, carbon: account.carbon, result, model: outcome.model, attempts: outcome.attempts };
}

/** A stream whose first part has arrived (failures before it fell back). */
export interface StartedStream {
  readonly model: ModelInfo;
  /** Its parts, the first one still queued. */
  readonly parts: PartStream;
  /** performance.now() when the first part arrived. */
  readonly firstAt: number;
  readonly attempts: readonly Attempt[];
}

/**
 * Opens a stream with fallback: the upstream's first part is awaited inside the
 * fallback loop, so a model that fails before its first byte is replaced invisibly.
 */
export async function streamRoute(route: PreparedRoute, request: ChatRequest, deps: RouteCallDependencies, timing: RouteCallTiming): Promise<StartedStream> {
  // The call resolves at the first part: its duration is the time to first token.
  const measure = (_first: unknown, elapsedMs: number) => ({ ttftMs: elapsedMs, totalMs: elapsedMs });
  const outcome = await callWithFallback(route.candidates, route.resolveModel, routeFallbackOptions(route, deps, timing, measure), async (model, _info, { signal }) => {
    const parts = toPartStream(await model.stream(request, { signal }));
    await parts.started();
    return { parts, firstAt: performance.now() };
  });
  return { model: outcome.model, ...outcome.value, attempts: outcome.attempts };
}

export function toolCallText(toolCalls: readonly ToolCall[] | undefined): string {
  return toolCalls?.map((call) => call.function.name + call.function.arguments).join('') ?? '';
}

/**
 * Accounts a stream that ended (or broke): the provider's usage, or the relayed text counted when it gave none;
 * the generation time runs from the first part.
 */
export function accountStream(started: StartedStream, request: ChatRequest, end: { readonly usage: Usage | undefined; readonly generated: string }): CallAccount {
  return accountCall({ model: started.model, request, usage: end.usage, generatedText: end.generated, generationMs: performance.now() - started.firstAt });
}
