import { accountEmbeddingCall } from '../accounting/call-accounting.js';
import type { ModelInfo } from '../catalog/catalog.js';
import { GatewayError, errors } from '../lib/errors.js';
import type { ClientSignal } from '../lib/client-abort.js';
import type { ChatRequest, EmbeddingModel, EmbeddingRequest, EmbeddingResult, Usage } from '../providers/contract.js';
import { callWithFallback } from '../routing/fallback.js';
import { chargeCall } from './call-settlement.js';
import type { CallState } from './call-state.js';
import { prepareEmbeddingRoute, routeFallbackOptions, type PreparedRoute } from './route-and-call.js';
import { noteAccount, resolveRouter, type CallInput, type PipelineDependencies } from './routed-call.js';
import { routerMeta, type RouterMeta } from './router-meta.js';

/**
 * The pipeline for an embeddings request, the same steps as a chat call's:
 * admit (router, access, budgets, tokens per minute and the router's limits),
 * plan (the router's embedding models, ranked by its strategy), call with
 * fallback, account (input tokens), charge, `_meta`; the settle-up is the
 * surface's hooks, as for chat. A router's embedding models share one vector
 * space (checked when it is saved), so fallback never mixes vectors.
 */

/** OpenAI's limits on one request: inputs per request, and each input not empty. */
const MAX_INPUTS = 2048;

/** Providers that take token arrays as they are (their embedding models use OpenAI's tokenizer). */
const TOKEN_ARRAY_PROVIDERS = new Set(['openai', 'azure']);

export interface EmbeddingCallInput extends Omit<CallInput, 'chatRequest' | 'idPrefix'> {
  readonly request: EmbeddingRequest;
}

/** An embeddings request, admitted and ranked, ready to call. */
export interface PreparedEmbedding extends PreparedRoute<EmbeddingModel> {
  readonly router: { readonly id: string };
  readonly request: EmbeddingRequest;
  readonly signal: CallInput['signal'];
  readonly sink: CallInput['sink'];
  readonly log: CallInput['log'];
}

export interface CompletedEmbedding {
  /** One vector per input, in input order. */
  readonly embeddings: readonly (readonly number[])[];
  readonly model: ModelInfo;
  readonly usage: Usage;
  readonly meta: RouterMeta;
}

/** Checks the inputs (400), the router and the key's access (404/403), the budgets, ranks the models and admits the tokens. */
export async function prepareEmbeddingCall(call: CallState, input: EmbeddingCallInput, deps: PipelineDependencies): Promise<PreparedEmbedding> {
  checkInputs(input.request);
  const found = resolveRouter(call, input.target, deps);
  const router = found instanceof Promise ? await found : found;
  if (call.key !== undefined) await deps.budgets?.check({ keyId: call.key.id, routerId: router.id });
  const planned = await prepareEmbeddingRoute(router, asText(input.request), deps);
  const route = withDimensions(planned, input.request.dimensions);
  void input.sink.header('x-modelport-router-decision', route.strategy);
  const ticket = call.rateTicket;
  if (ticket !== undefined && call.key !== undefined) {
    void input.sink.headers(await deps.rateLimiter.admitRouted(ticket, call.key, router, route.estimatedPromptTokens));
  }
  return { ...route, router, request: input.request, signal: input.signal, sink: input.sink, log: input.log };
}

/** Calls the ranked models best-first until one embeds, accounts the call, charges it, and gives its `_meta`. */
export async function completeEmbeddingCall(call: CallState, prepared: PreparedEmbedding, deps: PipelineDependencies): Promise<CompletedEmbedding> {
  let upstreamStarted = 0;
  const outcome = await callWithFallback(
    prepared.candidates,
    prepared.resolveModel,
    routeFallbackOptions(prepared, deps, { startedAt: call.startedAt, signal: prepared.signal }, undefined),
    async (model, info, { signal }) => {
      upstreamStarted = performance.now();
      return embedInBatches(model, info, await requestFor(info, prepared.request), signal);
    },
  );
  const result = outcome.value;
  if (result.embeddings.length !== prepared.request.input.length) {
    // The provider clients check this; a client that did not would otherwise answer with vectors out of place.
    throw new GatewayError(502, 'upstream_error', 'upstream_error', `${outcome.model.id} returned ${result.embeddings.length} vectors for ${prepared.request.input.length} inputs.`);
  }
  const account = accountEmbeddingCall({
    model: outcome.model,
    inputs: prepared.request.input,
    promptTokens: result.usage?.promptTokens,
    generationMs: performance.now() - upstreamStarted,
  });
  noteAccount(call, outcome.model.id, account, outcome.attempts.length);
  await chargeCall(deps, call.key?.id, prepared.router.id, account.costUsd, prepared.log);
  void prepared.sink.header('x-modelport-model', outcome.model.id);
  return {
    embeddings: result.embeddings,
    model: outcome.model,
    usage: account.usage,
    meta: routerMeta(call, prepared, outcome.model, account, outcome.attempts, undefined),
  };
}

/**
 * Only models that can give the asked length stay candidates: their own length, or a shorter one where they can
 * shorten (to one of their choices where they offer only some). A router's models share one space, so this keeps
 * all of them or none; none is a 400 that says what the router's models give.
 */
function withDimensions<R extends PreparedRoute<EmbeddingModel>>(route: R, dimensions: number | undefined): R {
  if (dimensions === undefined) return route;
  const candidates = route.candidates.filter((model) => gives(model, dimensions));
  if (candidates.length === route.candidates.length) return route;
  if (candidates.length === 0) {
    const offers = route.candidates.map((model) => `${model.id}: ${offered(model)}`).join('; ');
    throw errors.invalidRequest(`No model of this router gives vectors of ${dimensions} dimensions (${offers}).`, 'dimensions', 'invalid_value');
  }
  return { ...route, candidates };
}

function gives(model: ModelInfo, dimensions: number): boolean {
  const embedding = model.embedding;
  if (embedding === undefined) return false;
  if (dimensions === embedding.dimensions) return true;
  if (!embedding.shortenable || dimensions > embedding.dimensions) return false;
  return embedding.dimensionChoices === undefined || embedding.dimensionChoices.includes(dimensions);
}

function offered(model: ModelInfo): string {
  const embedding = model.embedding;
  if (embedding === undefined) return 'not an embedding model';
  if (!embedding.shortenable) return `${embedding.dimensions} only`;
  return embedding.dimensionChoices === undefined ? `up to ${embedding.dimensions}` : embedding.dimensionChoices.join(', ');
}

/**
 * One call per batch of at most the model's `maxBatch` inputs (Gemini takes 100, OpenAI 2,048), one after another;
 * the vectors in input order, the usage summed (unknown when any batch gave none).
 */
async function embedInBatches(model: EmbeddingModel, info: ModelInfo, request: EmbeddingRequest, signal: ClientSignal): Promise<EmbeddingResult> {
  const size = Math.max(1, info.embedding?.maxBatch ?? request.input.length);
  if (request.input.length <= size) return model.embed(request, { signal });
  const embeddings: (readonly number[])[] = [];
  let promptTokens: number | undefined = 0;
  for (let start = 0; start < request.input.length; start += size) {
    const result = await model.embed({ ...request, input: request.input.slice(start, start + size) }, { signal });
    embeddings.push(...result.embeddings);
    promptTokens = promptTokens === undefined || result.usage === undefined ? undefined : promptTokens + result.usage.promptTokens;
  }
  return { embeddings, usage: promptTokens === undefined ? undefined : { promptTokens } };
}

/** What OpenAI refuses as well: no input, an empty string, too many inputs, a dimension count below 1. */
function checkInputs(request: EmbeddingRequest): void {
  if (request.input.length === 0) throw errors.invalidRequest("'input' must not be empty.", 'input', 'invalid_value');
  if (request.input.length > MAX_INPUTS) throw errors.invalidRequest(`'input' may hold at most ${MAX_INPUTS} items; it has ${request.input.length}.`, 'input', 'invalid_value');
  request.input.forEach((item, index) => {
    if (item.length === 0) throw errors.invalidRequest(`'input[${index}]' is empty: every input must have text or tokens.`, `input[${index}]`, 'invalid_value');
  });
  if (request.dimensions !== undefined && !(Number.isInteger(request.dimensions) && request.dimensions >= 1)) {
    throw errors.invalidRequest("'dimensions' must be a whole number of at least 1.", 'dimensions', 'invalid_value');
  }
}

/** The inputs as routing sizes a request: one user message per input, each checked against a model's input limit (token arrays by their length). */
function asText(request: EmbeddingRequest): ChatRequest {
  return { messages: request.input.map((item) => ({ role: 'user', content: typeof item === 'string' ? item : ' x'.repeat(item.length) })), max_tokens: 0 } as ChatRequest;
}

/**
 * The request as the chosen model takes it. Token arrays are OpenAI's tokenizer's (cl100k, as its embedding models
 * use): an OpenAI or Azure model takes them as they are; any other model gets the text they stand for, since its own
 * tokenizer would read the same ids as other words. The tokenizer is loaded only when that happens.
 */
async function requestFor(info: ModelInfo, request: EmbeddingRequest): Promise<EmbeddingRequest> {
  // A model that cannot shorten is asked for its own length by leaving `dimensions` out: strict servers refuse it.
  const sized = request.dimensions !== undefined && info.embedding?.shortenable !== true ? withoutDimensions(request) : request;
  if (TOKEN_ARRAY_PROVIDERS.has(info.provider) || sized.input.every((item) => typeof item === 'string')) return sized;
  const { decode } = await import('gpt-tokenizer/encoding/cl100k_base');
  return { ...sized, input: sized.input.map((item) => (typeof item === 'string' ? item : decode([...item]))) };
}

function withoutDimensions(request: EmbeddingRequest): EmbeddingRequest {
  const { dimensions: _dimensions, ...rest } = request;
  return rest;
}
