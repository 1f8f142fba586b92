import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accountCall } from '../accounting/call-accounting.js';
import { GatewayError, errors } from '../lib/errors.js';
import type { ChatRequest, ToolCall } from '../providers/contract.js';
import type { ModelInfo } from '../routing/catalog.js';
import { RoutingFailure, callWithFallback, type Attempt } from '../routing/fallback.js';
import { filterEligible, isStrategyName, rankCandidates, type RoutingContext, type StrategyName } from '../routing/strategies.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import { streamCompletion } from './chat-stream.js';
import { chatRequestSchema, type ChatRequestBody } from './chat-request-schema.js';
import type { AppDependencies } from './dependencies.js';
import { chatCompletionBody, type RouterMeta } from './openai-response.js';
import { usageRecordFrom } from './request-state.js';

export const CHAT_COMPLETION_PATHS = [
  '/api/router/chat/completions',
  '/api/router/v1/chat/completions',
  '/api/router/:routerId/chat/completions',
  '/api/router/v1/:routerId/chat/completions',
] as const;

/** Router ids are `rt_` + 22 characters; anything much longer cannot be one. */
const MAX_ROUTER_ID_LENGTH = 128;

/** A routed request, resolved and ranked, ready to call. */
export interface RoutedRequest {
  readonly router: RouterRecord;
  readonly strategy: StrategyName;
  readonly chatRequest: ChatRequest;
  readonly candidates: readonly ModelInfo[];
  readonly completionId: string;
  readonly created: number;
  readonly signal: AbortSignal;
}

export function registerChatCompletions(app: FastifyInstance, deps: AppDependencies): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body as ChatRequestBody;
    // Everything that makes the request itself invalid (400) is found before the router is looked up (404/403).
    const chatRequest = toChatRequest(body);
    checkMessages(chatRequest);
    const router = await resolveRouter(request, body, deps);
    const strategy: StrategyName = isStrategyName(router.strategy) ? router.strategy : 'balanced';
    const candidates = selectCandidates(router, strategy, chatRequest, deps);

    const abort = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const routed: RoutedRequest = {
      router,
      strategy,
      chatRequest,
      candidates,
      completionId: `chatcmpl-${randomBytes(12).toString('base64url')}`,
      created: Math.floor(deps.now() / 1000),
      signal: abort.signal,
    };
    try {
      if (body.stream === true) return await streamCompletion(request, reply, routed, deps, body.stream_options?.include_usage === true);
      return await completeOnce(request, reply, routed, deps);
    } catch (error) {
      if (error instanceof RoutingFailure) request.gateway.attempts = error.attempts.length;
      // A client that left gets no response, so no 'finish' and no onResponse hook: its record is queued here.
      if (abort.signal.aborted && !request.gateway.recorded && error instanceof GatewayError) {
        request.gateway.recorded = true;
        deps.usage.record(usageRecordFrom(request, error.status, error.code));
      }
      throw error;
    }
  };
  for (const path of CHAT_COMPLETION_PATHS) app.post(path, { schema: { body: chatRequestSchema }, preValidation: requireBody }, handler);
}

/** A POST with no body at all (no Content-Type, no length) never reaches the JSON parser: same answer as an empty one. */
async function requireBody(request: FastifyRequest): Promise<void> {
  if (request.body === undefined) throw errors.invalidJson('The request body is empty; send a JSON object.');
}

async function resolveRouter(request: FastifyRequest, body: ChatRequestBody, deps: AppDependencies): Promise<RouterRecord> {
  const pathRouter = (request.params as { routerId?: string }).routerId;
  // The path wins over the body (spec 4.1 rule 2).
  const target = pathRouter ?? body.model ?? undefined;
  if (target === undefined || target === '') throw errors.routerRequired();
  if (target.startsWith('agent:')) throw errors.agentNotFound(target.slice('agent:'.length));
  // Lookups (misses included) are cached by id: a megabyte-long "id" must not become a cache key.
  const router = target.length <= MAX_ROUTER_ID_LENGTH ? await deps.routers.find(target) : undefined;
  if (router === undefined) throw errors.routerNotFound(target);
  const key = request.gateway.key;
  if (key === undefined) throw errors.invalidApiKey();
  if (router.ownerId !== key.ownerId || (key.routerIds !== undefined && !key.routerIds.includes(router.id))) {
    throw errors.routerAccessDenied(target);
  }
  request.gateway.routerId = router.id;
  return router;
}

function toChatRequest(body: ChatRequestBody): ChatRequest {
  const { model: _model, stream: _stream, ...rest } = body;
  const request: Record<string, unknown> = {};
  // JSON null means "not set" for OpenAI's optional parameters.
  for (const [name, value] of Object.entries(rest)) if (value !== null) request[name] = value;
  return request as unknown as ChatRequest;
}

/** What the schema cannot say: which roles need content, and tool messages' ids. */
function checkMessages(request: ChatRequest): void {
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

/** A cheap prompt size for routing (≈ 4 characters a token); the bill uses the provider's real count. */
function routingContext(request: ChatRequest): RoutingContext {
  let characters = 0;
  let needsVision = false;
  for (const message of request.messages) {
    if (typeof message.content === 'string') characters += message.content.length;
    else if (Array.isArray(message.content)) {
      for (const part of message.content) {
        if (typeof part.text === 'string') characters += part.text.length;
        if (part.type === 'image_url' || part.type === 'input_image') needsVision = true;
      }
    }
  }
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  return {
    promptTokens: Math.ceil(characters / 4) + 3 * request.messages.length,
    maxTokens,
    needsTools: (request.tools?.length ?? 0) > 0,
    needsVision,
  };
}

function selectCandidates(router: RouterRecord, strategy: StrategyName, request: ChatRequest, deps: AppDependencies): ModelInfo[] {
  const known = router.models.map((id) => deps.catalog.get(id)).filter((model): model is ModelInfo => model !== undefined);
  const context = routingContext(request);
  const { eligible, dropped } = filterEligible(known, context);
  if (eligible.length === 0) {
    const contextDrop = dropped.some((drop) => drop.reason.startsWith('context window'));
    const reasons = dropped.map((drop) => `${drop.id}: ${drop.reason}`).join('; ');
    if (contextDrop) {
      throw errors.invalidRequest(`No model of this router can take this request: ${reasons}.`, 'messages', 'context_length_exceeded');
    }
    if (dropped.length > 0) throw errors.invalidRequest(`No model of this router can take this request: ${reasons}.`, null, 'unsupported_request');
    throw errors.allModelsUnavailable('The router lists no model this server knows.');
  }
  return rankCandidates(strategy, eligible, context).map((candidate) => candidate.model);
}

export function attemptsForMeta(attempts: readonly Attempt[]): RouterMeta['attempts'] {
  return attempts.map((attempt) => ({ ...attempt }));
}

async function completeOnce(request: FastifyRequest, reply: FastifyReply, routed: RoutedRequest, deps: AppDependencies) {
  const state = request.gateway;
  let upstreamStarted = 0;
  const outcome = await callWithFallback(routed.candidates, deps.providers, { maxAttempts: deps.settings.maxAttempts, now: () => performance.now() }, (model) => {
    upstreamStarted = performance.now();
    return model.generate(routed.chatRequest, { signal: routed.signal });
  });
  const generationMs = performance.now() - upstreamStarted;
  const result = outcome.value;
  const account = accountCall({
    model: outcome.model,
    request: routed.chatRequest,
    usage: result.usage,
    generatedText: (result.message.content ?? '') + toolCallText(result.message.toolCalls),
    generationMs,
  });
  const latencyMs = round(performance.now() - state.startedAt);
  Object.assign(state, {
    model: outcome.model.id,
    promptTokens: account.usage.promptTokens,
    completionTokens: account.usage.completionTokens,
    costUsd: account.costUsd,
    carbonGrams: account.carbonGrams,
    attempts: outcome.attempts.length,
  });
  const meta: RouterMeta = {
    modelUsed: outcome.model.id,
    cost: account.costUsd,
    latencyMs,
    carbonGrams: account.carbonGrams,
    routerDecision: routed.strategy,
    routerId: routed.router.id,
    requestId: request.id,
    provider: outcome.model.provider,
    usageEstimated: account.usage.estimated,
    attempts: attemptsForMeta(outcome.attempts),
  };
  void reply.header('x-modelport-model', outcome.model.id);
  return chatCompletionBody({
    id: routed.completionId,
    created: routed.created,
    model: outcome.model.id,
    message: result.message,
    finishReason: result.finishReason,
    usage: account.usage,
    systemFingerprint: result.systemFingerprint,
    meta,
  });
}

export function toolCallText(toolCalls: readonly ToolCall[] | undefined): string {
  return toolCalls?.map((call) => call.function.name + call.function.arguments).join('') ?? '';
}

export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
