import type { ModelInfo } from '../catalog/catalog.js';
import type { CallAccount } from '../accounting/call-accounting.js';
import type { RateLimits } from '../limits/rate-limits.js';
import type { ClientSignal } from '../lib/client-abort.js';
import { GatewayError, errors } from '../lib/errors.js';
import { thenMaybe, type MaybePromise } from '../lib/maybe-promise.js';
import type { ChatRequest, ChatResult, Usage } from '../providers/contract.js';
import { RoutingFailure } from '../routing/fallback.js';
import type { RouterDirectory } from '../routing/router-directory.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import { chargeCall, settleCall, type CallLog, type SettlementDependencies } from './call-settlement.js';
import type { CallState } from './call-state.js';
import { checkMessages } from './check-messages.js';
import { completionId } from './completion-id.js';
import { callRoute, counterfactualCostUsd, prepareRoute, type PreparedRoute, type RouteCallDependencies } from './route-and-call.js';
import { routerMeta, unbilledAttempt, type RouterMeta } from './router-meta.js';

/**
 * The one pipeline a routed call crosses, whichever surface it came in by:
 * admit (the key's and router's rate limits, concurrency, budgets) → plan
 * (router, eligibility, strategy) → call with fallback → account (tokens,
 * cost, carbon, latency) → charge budgets → `_meta`; the usage record and the
 * limits' release are the settle-up (call-settlement.ts). Surfaces only decode
 * their wire request into a ChatRequest and encode the answer back.
 *
 * Each step answers synchronously when its data is cached (the usual request)
 * and is awaited only when it returns a promise: an await of a plain value
 * still costs a microtask turn.
 */

/** Everything the pipeline needs from the application (the HTTP layer's AppDependencies fits). */
export interface PipelineDependencies extends RouteCallDependencies, SettlementDependencies {
  readonly rateLimiter: RateLimits;
  readonly routers: Pick<RouterDirectory, 'find'>;
}

/** Where the pipeline puts the headers it learns on the way (a Fastify reply fits). */
export interface HeaderSink {
  header(name: string, value: string): unknown;
  headers(values: Record<string, string>): unknown;
}

/** Router ids are `rt_` + 22 characters; anything much longer cannot be one. */
const MAX_ROUTER_ID_LENGTH = 128;

/**
 * Admission, before the body is read: requests per minute and requests in flight of `limitKey` (the caller's key, or
 * the key the limits count against when it is not the caller's own: the dashboard limits each person apart).
 */
export function admitKey(call: CallState, limitKey: ApiKeyRecord, deps: Pick<PipelineDependencies, 'rateLimiter'>, sink: HeaderSink): MaybePromise<void> {
  return thenMaybe(deps.rateLimiter.admitRequest(limitKey), (ticket) => {
    call.rateTicket = ticket;
    void sink.headers(ticket.headers);
  });
}

/** A surface's request, decoded. */
export interface CallInput {
  /** The request in the gateway's neutral (OpenAI) shape, `model` and `stream` removed. */
  readonly chatRequest: ChatRequest;
  /** The router id the client named: the path's, or else the body's `model` (spec 4.1 rule 2). */
  readonly target: string | null | undefined;
  /** Prefix of the answer's id: `chatcmpl-` for OpenAI, `msg_` for Anthropic. */
  readonly idPrefix: string;
  /** The client went away (its connection closed before the answer was written). */
  readonly signal: ClientSignal;
  readonly sink: HeaderSink;
  readonly log: CallLog;
}

/** A routed call, admitted, resolved and ranked, ready to run. */
export interface PreparedCall extends PreparedRoute {
  readonly router: RouterRecord;
  readonly chatRequest: ChatRequest;
  readonly completionId: string;
  /** Unix seconds, as OpenAI's `created`. */
  readonly created: number;
  readonly signal: ClientSignal;
  readonly sink: HeaderSink;
  readonly log: CallLog;
}

/**
 * Checks the messages (400), finds the router and checks the key may use it (404/403), checks the budgets (429
 * insufficient_quota), ranks the models that can take the request (400/503) and admits it against the key's tokens
 * per minute and the router's own limits (429).
 */
export async function prepareCall(call: CallState, input: CallInput, deps: PipelineDependencies): Promise<PreparedCall> {
  // Everything that makes the request itself invalid (400) is found before the router is looked up (404/403).
  checkMessages(input.chatRequest);
  const found = resolveRouter(call, input.target, deps);
  const router = found instanceof Promise ? await found : found;
  // Budgets (429 insufficient_quota) before any model is called; a request admitted here always completes.
  if (call.key !== undefined) {
    const checked = deps.budgets?.check({ keyId: call.key.id, routerId: router.id });
    if (checked instanceof Promise) await checked;
  }
  const prepared = prepareRoute(router, input.chatRequest, deps);
  const plan = prepared instanceof Promise ? await prepared : prepared;
  void input.sink.header('x-modelport-router-decision', plan.strategy);
  // Tokens per minute (the prompt plus max_tokens, corrected when the call ends) and the router's own limits.
  const ticket = call.rateTicket;
  if (ticket !== undefined && call.key !== undefined) {
    const maxTokens = input.chatRequest.max_completion_tokens ?? input.chatRequest.max_tokens ?? 0;
    const admitted = deps.rateLimiter.admitRouted(ticket, call.key, router, plan.estimatedPromptTokens + maxTokens);
    void input.sink.headers(admitted instanceof Promise ? await admitted : admitted);
  }
  // Every field named (no spread of the plan): one object shape for every request.
  return {
    ownerId: plan.ownerId,
    strategy: plan.strategy,
    candidates: plan.candidates,
    routing: plan.routing,
    resolveModel: plan.resolveModel,
    isServerModel: plan.isServerModel,
    estimatedPromptTokens: plan.estimatedPromptTokens,
    auto: plan.auto,
    router,
    chatRequest: input.chatRequest,
    completionId: completionId(input.idPrefix, call.requestId),
    created: Math.floor(deps.now() / 1000),
    signal: input.signal,
    sink: input.sink,
    log: input.log,
  };
}

/**
 * Runs a prepared call's work. A routing failure keeps its attempt count for the usage record; a client that left
 * gets no response, so nothing else would end its call: it is settled here with the error it ended on.
 */
export async function runCall<T>(
  call: CallState,
  prepared: Pick<PreparedCall, 'signal' | 'routing'> & { readonly router: { readonly id: string } },
  deps: SettlementDependencies,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RoutingFailure) {
      call.attempts = error.attempts.length;
      // No model answered: the request log still shows the plan and every attempt, none billed.
      call.detail ??= { routerId: prepared.router.id, routing: prepared.routing, attempts: error.attempts.map(unbilledAttempt), carbon: null, prices: null };
    }
    if (prepared.signal.aborted && error instanceof GatewayError) settleCall(call, error.status, error.code, deps);
    throw error;
  }
}

/** A non-streamed answer, accounted, with the `_meta` every format reports. */
export interface CompletedCall {
  readonly result: ChatResult;
  /** The model that answered. */
  readonly model: ModelInfo;
  /** The provider's counts, or the tokenizer's when it gave none. */
  readonly usage: Usage;
  readonly meta: RouterMeta;
}

/** Calls the candidates best-first until one answers, accounts the call, charges it, and gives its `_meta`. */
export async function completeCall(call: CallState, prepared: PreparedCall, deps: PipelineDependencies): Promise<CompletedCall> {
  const answer = await callRoute(prepared, prepared.chatRequest, deps, { startedAt: call.startedAt, signal: prepared.signal });
  noteAccount(call, answer.model.id, answer, answer.attempts.length);
  noteAutoRoute(call, prepared, answer.model.id, answer.usage);
  const charged = chargeCall(deps, call.key?.id, prepared.router.id, answer.costUsd, prepared.log);
  if (charged instanceof Promise) await charged;
  const meta = routerMeta(call, prepared, answer.model, answer, answer.attempts, undefined);
  void prepared.sink.header('x-modelport-model', answer.model.id);
  return { result: answer.result, model: answer.model, usage: answer.usage, meta };
}

/** The call's state after accounting: what its usage record and its limits' correction read. */
export function noteAccount(call: CallState, modelId: string, account: CallAccount, attempts: number): void {
  const { usage } = account;
  call.model = modelId;
  call.promptTokens = usage.promptTokens;
  call.completionTokens = usage.completionTokens;
  call.cachedPromptTokens = usage.cachedPromptTokens ?? 0;
  call.cacheWritePromptTokens = usage.cacheWritePromptTokens ?? 0;
  call.reasoningTokens = usage.reasoningTokens ?? 0;
  call.costUsd = account.costUsd;
  call.carbonGrams = account.carbon.carbonGrams;
  call.energyWh = account.carbon.energyWh;
  call.attempts = attempts;
}

/**
 * An `auto` call's counterfactual cost (usage record and `_meta`) and the sample its usage record carries: the prompt
 * vector and the model that answered, what feedback on this request will be fitted on.
 */
export function noteAutoRoute(call: CallState, prepared: Pick<PreparedCall, 'auto' | 'router'>, modelId: string, usage: Usage): void {
  const auto = prepared.auto;
  if (auto === undefined) return;
  call.counterfactualCostUsd = counterfactualCostUsd(prepared, usage) ?? null;
  call.routingSample = { router_id: prepared.router.id, model_id: modelId, vector: auto.promptVector };
}

/** The request's router, checked against the key (404/403); synchronous on a cache hit. */
export function resolveRouter(call: CallState, target: string | null | undefined, deps: Pick<PipelineDependencies, 'routers'>): MaybePromise<RouterRecord> {
  if (target === undefined || target === null || target === '') throw errors.routerRequired();
  if (target.startsWith('agent:')) throw errors.agentNotFound(target.slice('agent:'.length));
  // Lookups (misses included) are cached by id: a megabyte-long "id" must not become a cache key.
  return thenMaybe(target.length <= MAX_ROUTER_ID_LENGTH ? deps.routers.find(target) : undefined, (router) => {
    if (router === undefined) throw errors.routerNotFound(target);
    const key = call.key;
    if (key === undefined) throw errors.invalidApiKey();
    if (router.ownerId !== key.ownerId || (key.routerIds !== undefined && !key.routerIds.includes(router.id))) {
      throw errors.routerAccessDenied(target);
    }
    call.routerId = router.id;
    return router;
  });
}

