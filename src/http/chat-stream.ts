import { once } from 'node:events';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { accountCall } from '../accounting/call-accounting.js';
import { GatewayError } from '../lib/errors.js';
import { UpstreamError, type FinishReason, type StreamPart, type Usage } from '../providers/contract.js';
import { callWithFallback } from '../routing/fallback.js';
import type { AppDependencies } from './dependencies.js';
import { attemptsForMeta, round, type RoutedRequest } from './chat-completions-route.js';
import { chunkBody, openAIUsage, type RouterMeta } from './openai-response.js';
import { usageRecordFrom } from './request-state.js';

/**
 * Streams OpenAI `chat.completion.chunk` events (docs/streaming.md).
 * The upstream's first part is awaited inside the fallback loop, so a model that
 * fails before its first byte is replaced invisibly. After that, chunks are
 * written as they arrive (with backpressure); the finish chunk is held until the
 * end so it can carry `_meta`, or the usage chunk carries it when asked for.
 */
export async function streamCompletion(
  request: FastifyRequest,
  reply: FastifyReply,
  routed: RoutedRequest,
  deps: AppDependencies,
  includeUsage: boolean,
): Promise<void> {
  const state = request.gateway;
  state.streamed = true;
  const outcome = await callWithFallback(routed.candidates, deps.providers, { maxAttempts: deps.settings.maxAttempts, now: () => performance.now() }, async (model) => {
    const iterator = (await model.stream(routed.chatRequest, { signal: routed.signal }))[Symbol.asyncIterator]();
    const first = await iterator.next();
    return { iterator, first, firstAt: performance.now() };
  });
  const { iterator, firstAt } = outcome.value;
  const base = { id: routed.completionId, created: routed.created, model: outcome.model.id };
  const raw = reply.raw;

  reply.hijack();
  raw.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
    'x-modelport-model': outcome.model.id,
  });

  const write = async (data: string): Promise<void> => {
    if (raw.destroyed) return;
    if (!raw.write(`data: ${data}\n\n`)) await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
  };

  let generated = '';
  let finishReason: FinishReason = 'stop';
  let usage: Usage | undefined;
  let failure: GatewayError | undefined;
  const apply = async (part: StreamPart): Promise<void> => {
    switch (part.type) {
      case 'text-delta':
        generated += part.text;
        return write(chunkBody(base, { content: part.text }, null));
      case 'refusal-delta':
        generated += part.text;
        return write(chunkBody(base, { refusal: part.text }, null));
      case 'tool-call-delta': {
        generated += (part.name ?? '') + part.argumentsDelta;
        const call: Record<string, unknown> = { index: part.index };
        if (part.id !== undefined) Object.assign(call, { id: part.id, type: 'function' });
        call.function = { ...(part.name !== undefined ? { name: part.name } : {}), arguments: part.argumentsDelta };
        return write(chunkBody(base, { tool_calls: [call] }, null));
      }
      case 'finish':
        finishReason = part.finishReason;
        return;
      case 'usage':
        usage = part.usage;
        return;
    }
  };

  await write(chunkBody(base, { role: 'assistant', content: '', refusal: null }, null));
  try {
    if (!outcome.value.first.done) await apply(outcome.value.first.value);
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      await apply(next.value);
    }
  } catch (error) {
    failure = streamFailure(error);
  }

  const account = accountCall({
    model: outcome.model,
    request: routed.chatRequest,
    usage,
    generatedText: generated,
    generationMs: performance.now() - firstAt,
  });
  const meta: RouterMeta = {
    modelUsed: outcome.model.id,
    cost: account.costUsd,
    latencyMs: round(performance.now() - state.startedAt),
    carbonGrams: account.carbonGrams,
    routerDecision: routed.strategy,
    routerId: routed.router.id,
    requestId: request.id,
    provider: outcome.model.provider,
    usageEstimated: account.usage.estimated,
    timeToFirstTokenMs: round(firstAt - state.startedAt),
    attempts: attemptsForMeta(outcome.attempts),
  };
  Object.assign(state, {
    model: outcome.model.id,
    promptTokens: account.usage.promptTokens,
    completionTokens: account.usage.completionTokens,
    costUsd: account.costUsd,
    carbonGrams: account.carbonGrams,
    attempts: outcome.attempts.length,
  });

  if (failure !== undefined) {
    // A stream that broke after bytes were sent ends with an error event, never silently.
    await write(JSON.stringify({ ...failure.toBody(), _meta: meta }));
    deps.usage.record(usageRecordFrom(request, failure.status, failure.code));
  } else {
    await write(chunkBody(base, {}, finishReason, includeUsage ? {} : { _meta: meta }));
    if (includeUsage) await write(chunkBody(base, undefined, null, { usage: openAIUsage(account.usage), _meta: meta }));
    if (!raw.destroyed) raw.write('data: [DONE]\n\n');
    deps.usage.record(usageRecordFrom(request, 200, null));
  }
  state.recorded = true;
  raw.end();
}

function streamFailure(error: unknown): GatewayError {
  if (error instanceof UpstreamError && error.kind === 'aborted') {
    return new GatewayError(499, 'invalid_request_error', 'client_closed_request', 'The client closed the connection.');
  }
  const message = error instanceof Error ? error.message : 'unknown error';
  return new GatewayError(502, 'upstream_error', 'upstream_stream_error', `The model's stream broke after it had started: ${message}`);
}
