import type { FastifyReply, FastifyRequest } from 'fastify';
import { chargeQuietly } from '../limits/budget-guard.js';
import { ClientAbort, type ClientSignal } from '../lib/client-abort.js';
import { GatewayError, errors } from '../lib/errors.js';
import { thenMaybe, type MaybePromise } from '../lib/maybe-promise.js';
import type { ChatRequest, ChatResult, Usage } from '../providers/contract.js';
import type { ModelResolver } from '../providers/registry.js';
import type { ModelInfo } from '../routing/catalog.js';
import { RoutingFailure, type Attempt } from '../routing/fallback.js';
import type { RoutingMeta } from '../routing/plan-route.js';
import { callRoute, prepareRoute, routeFallbackOptions, type PreparedRoute } from '../routing/route-and-call.js';
import type { StrategyName } from '../routing/strategies/routing-strategy.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import type { AppDependencies } from './dependencies.js';
import type { RouterMeta } from './openai-response.js';
import { usageRecordFrom } from './request-state.js';

/**
 * What every client API format shares between "the body is valid" and "here is
 * the answer": router resolution and access (404/403), message checks,
 * candidate selection, the call with fallback, accounting and the request's
 * usage state. The OpenAI and Anthropic routes differ only in how they read the
 * body and write the answer, so routing and usage records behave identically.
 */

/** Router ids are `rt_` + 22 characters; anything much longer cannot be one. */
const MAX_ROUTER_ID_LENGTH = 128;

/** A routed request, resolved and ranked, ready to call. */
export interface RoutedRequest extends PreparedRoute {
  readonly router: RouterRecord;
  readonly strategy: StrategyName;
  readonly chatRequest: ChatRequest;
  /** The eligible models, best-first for the router's strategy. */
  readonly candidates: readonly ModelInfo[];
  /** `_meta.routing`: every model considered, with its rank and reason, and those dropped. */
  readonly routing: RoutingMeta;
  /** The router owner's models: their own credentials first, then the server's. */
  readonly resolveModel: ModelResolver;
  readonly completionId: string;
  readonly created: number;
  /** The client went away (its connection closed before the answer was written). */
  readonly signal: ClientSignal;
  /** The prompt size routing used (o200k count for short prompts, ≈ 4 characters a token for long ones), before any provider counted. */
  readonly estimatedPromptTokens: number;
}

export interface RoutedCallInput {
  /** The request in the gateway's (OpenAI) shape, `model` and `stream` removed. */
  readonly chatRequest: ChatRequest;
  /** The body's `model`; the router id in the path wins over it (spec 4.1 rule 2). */
  readonly bodyModel: string | null | undefined;
  /** Prefix of the answer's id: `chatcmpl-` for OpenAI, `msg_` for Anthropic. */
  readonly idPrefix: string;
}

/**
 * A POST with no body at all (no Content-Type, no length) never reaches the JSON parser: same answer as an empty one.
 * A synchronous hook (done): an async one costs a promise and a microtask turn on every request.
 */
export function requireBody(request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void {
  done(request.body === undefined ? errors.invalidJson('The request body is empty; send a JSON object.') : undefined);
}

/**
 * Checks the messages (400), then finds the router and checks the key may use
 * it (404/403), then ranks the models that can take the request (400/503)
 * with the router's strategy (routing/plan-route.ts).
 * Aborts the upstream call when the client goes away.
 */
export async function prepareRoutedCall(request: FastifyRequest, reply: FastifyReply, input: RoutedCallInput, deps: AppDependencies): Promise<RoutedRequest> {
  // Everything that makes the request itself invalid (400) is found before the router is looked up (404/403).
  // Each step below answers synchronously when its data is cached (the usual request) and is awaited only when it
  // returns a promise: an await of a plain value still costs a microtask turn.
  checkMessages(input.chatRequest);
  const found = resolveRouter(request, input.bodyModel, deps);
  const router = found instanceof Promise ? await found : found;
  // Budgets (429 insufficient_quota) before any model is called; a request admitted here always completes.
  if (request.gateway.key !== undefined) {
    const checked = deps.budgets?.check({ keyId: request.gateway.key.id, routerId: router.id });
    if (checked instanceof Promise) await checked;
  }
  const prepared = prepareRoute(router, input.chatRequest, deps);
  const plan = prepared instanceof Promise ? await prepared : prepared;
  void reply.header('x-modelport-router-decision', plan.strategy);
  // Tokens per minute (the prompt plus max_tokens, corrected when the call ends) and the router's own limits.
  const ticket = request.gateway.rateTicket;
  const key = request.gateway.key;
  if (ticket !== undefined && key !== undefined) {
    const maxTokens = input.chatRequest.max_completion_tokens ?? input.chatRequest.max_tokens ?? 0;
    const admitted = deps.rateLimiter.admitRouted(ticket, key, router, plan.estimatedPromptTokens + maxTokens);
    void reply.headers(admitted instanceof Promise ? await admitted : admitted);
  }

  const abort = new ClientAbort();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  // Every field named (no spread of the plan): one object shape for every request.
  return {
    ownerId: plan.ownerId,
    strategy: plan.strategy,
    candidates: plan.candidates,
    routing: plan.routing,
    resolveModel: plan.resolveModel,
    estimatedPromptTokens: plan.estimatedPromptTokens,
    router,
    chatRequest: input.chatRequest,
    // The request id's random part: unguessable, and a client's completion id finds the request in the logs.
    completionId: `${input.idPrefix}${request.id.slice(request.id.indexOf('_') + 1)}`,
    created: Math.floor(deps.now() / 1000),
    signal: abort,
  };
}

/**
 * Runs the call of a prepared request. A routing failure keeps its attempt
 * count for the usage record; a client that left gets no response, so no
 * 'finish' and no onResponse hook: its record is queued here.
 */
export async function runRoutedCall<T>(request: FastifyRequest, routed: RoutedRequest, deps: AppDependencies, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof RoutingFailure) request.gateway.attempts = error.attempts.length;
    if (routed.signal.aborted && !request.gateway.recorded && error instanceof GatewayError) {
      request.gateway.recorded = true;
      deps.usage.record(usageRecordFrom(request, error.status, error.code));
    }
    throw error;
  }
}

/** The request's router, checked against the key (404/403); synchronous on a cache hit. */
function resolveRouter(request: FastifyRequest, bodyModel: string | null | undefined, deps: AppDependencies): MaybePromise<RouterRecord> {
  const pathRouter = (request.params as { routerId?: string }).routerId;
  // The path wins over the body (spec 4.1 rule 2).
  const target = pathRouter ?? bodyModel ?? undefined;
  if (target === undefined || target === '') throw errors.routerRequired();
  if (target.startsWith('agent:')) throw errors.agentNotFound(target.slice('agent:'.length));
  // Lookups (misses included) are cached by id: a megabyte-long "id" must not become a cache key.
  return thenMaybe(target.length <= MAX_ROUTER_ID_LENGTH ? deps.routers.find(target) : undefined, (router) => {
    if (router === undefined) throw errors.routerNotFound(target);
    const key = request.gateway.key;
    if (key === undefined) throw errors.invalidApiKey();
    if (router.ownerId !== key.ownerId || (key.routerIds !== undefined && !key.routerIds.includes(router.id))) {
      throw errors.routerAccessDenied(target);
    }
    request.gateway.routerId = router.id;
    return router;
  });
}

/** What the schema cannot say: which roles need content, and tool messages' ids. */
export function checkMessages(request: ChatRequest): void {
  request.messages.forEach((message, index) => {
    const hasContent = message.content !== undefined && message.content !== null;
    if (message.role === 'assistant') {
      if (!hasContent && (message.tool_calls === undefined || message.tool_calls.length === 0)) {
        throw errors.invalidRequest(`messages[${index}]: an assistant message needs 'content' or 'tool_calls'.`, `messages[${index}].content`, 'missing_required_parameter');
      }
    } else if (!hasContent) {
      throw errors.invalidRequest(`Missing required parameter: 'messages[${index}].content'.`, `messages[${index}].content`, 'missing_required_parameter');
    }
    if (message.role === 'tool' && (message.tool_call_id === undefined || message.tool_call_id === '')) {
      throw errors.invalidRequest(`Missing required parameter: 'messages[${index}].tool_call_id'.`, `messages[${index}].tool_call_id`, 'missing_required_parameter');
    }
  });
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

/** Calls the candidates best-first until one answers, then accounts the call and fills the usage state. */
export async function completeRoutedCall(request: FastifyRequest, reply: FastifyReply, routed: RoutedRequest, deps: AppDependencies): Promise<CompletedCall> {
  const state = request.gateway;
  const outcome = await callRoute(routed, routed.chatRequest, deps, { startedAt: state.startedAt, signal: routed.signal });
  const result = outcome.result;
  const account = outcome;
  const latencyMs = round(performance.now() - state.startedAt);
  state.model = outcome.model.id;
  state.promptTokens = account.usage.promptTokens;
  state.completionTokens = account.usage.completionTokens;
  state.costUsd = account.costUsd;
  state.carbonGrams = account.carbonGrams;
  state.attempts = outcome.attempts.length;
  // Charged before the answer leaves, so the client's next request (to any instance) sees it.
  const charged = chargeQuietly(deps.budgets, state.key?.id, routed.router.id, account.costUsd, (error) => request.log.warn({ err: error }, 'budget charge failed'));
  if (charged instanceof Promise) await charged;
  const meta: RouterMeta = {
    modelUsed: outcome.model.id,
    cost: account.costUsd,
    latencyMs,
    carbonGrams: account.carbonGrams,
    embodiedCarbonGrams: account.embodiedCarbonGrams,
    routerDecision: routed.strategy,
    routerId: routed.router.id,
    requestId: request.id,
    provider: outcome.model.provider,
    usageEstimated: account.usage.estimated,
    attempts: attemptsForMeta(outcome.attempts),
    routing: routed.routing,
  };
  void reply.header('x-modelport-model', outcome.model.id);
  return { result, model: outcome.model, usage: account.usage, meta };
}

export function attemptsForMeta(attempts: readonly Attempt[]): RouterMeta['attempts'] {
  return attempts.map((attempt) => ({ ...attempt }));
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
