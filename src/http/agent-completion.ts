import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AgentMeta, AgentRunResult } from '../agents/agent-executor.js';
import { GatewayError, errors } from '../lib/errors.js';
import type { ChatRequest, Usage } from '../providers/contract.js';
import { createOpenAIStreamEncoder } from './chat-stream.js';
import { openEventStream, relayParts } from './event-stream.js';
import type { AppDependencies } from './dependencies.js';
import { chatCompletionBody } from './openai-response.js';
import { checkMessages } from './routed-call.js';

/**
 * `model: "agent:<name>"` (spec 1.4, 2.3): runs the key owner's agent and
 * answers in OpenAI's shape with the agent `_meta`. Each step writes its own
 * usage record, so the request's own record is skipped once a run has started.
 */
export async function completeAgent(
  request: FastifyRequest,
  reply: FastifyReply,
  input: { readonly name: string; readonly chatRequest: ChatRequest; readonly stream: boolean; readonly includeUsage: boolean },
  deps: AppDependencies,
): Promise<unknown> {
  checkMessages(input.chatRequest);
  const key = request.gateway.key;
  if (key === undefined) throw errors.invalidApiKey();
  if (deps.agents === undefined) throw errors.agentNotFound(input.name);
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  let result: AgentRunResult;
  try {
    result = await deps.agents.run({
      ownerId: key.ownerId,
      key: { id: key.id, routerIds: key.routerIds },
      name: input.name,
      messages: input.chatRequest.messages,
      stream: input.stream,
      signal: abort.signal,
      startedAt: request.gateway.startedAt,
    });
  } catch (error) {
    // A run that started recorded its steps' usage; the error says which execution it was.
    if (error instanceof GatewayError && typeof error.details.execution_id === 'string') request.gateway.recorded = true;
    throw error;
  }
  request.gateway.recorded = true;
  void reply.header('x-modelport-execution-id', result.executionId);
  // As for routed requests: the request id's random part, so a completion id finds the request in the logs.
  const completionId = `chatcmpl-${request.id.slice(request.id.indexOf('_') + 1)}`;
  const created = Math.floor(deps.now() / 1000);
  if (result.kind === 'answer') {
    const { answer, meta } = result;
    void reply.header('x-modelport-model', answer.model.id);
    return chatCompletionBody({
      id: completionId,
      created,
      model: answer.model.id,
      message: answer.result.message,
      finishReason: answer.result.finishReason,
      usage: totalUsage(meta, answer.usage.estimated),
      systemFingerprint: answer.result.systemFingerprint,
      meta,
    });
  }
  return streamAgent(request, reply, result, { completionId, created, includeUsage: input.includeUsage });
}

/** Streams the final step as OpenAI chunks; the agent `_meta` rides on the final chunk. */
async function streamAgent(
  request: FastifyRequest,
  reply: FastifyReply,
  run: Extract<AgentRunResult, { kind: 'stream' }>,
  options: { completionId: string; created: number; includeUsage: boolean },
): Promise<void> {
  const { stream } = run;
  const encoder = createOpenAIStreamEncoder<AgentMeta>(options, stream.model, options.includeUsage);
  const events = openEventStream(request, reply, stream.model.id);
  await events.write(encoder.start());
  const { generated, finishReason, usage, failure } = await relayParts(stream.parts, (part) => encoder.part(part), events, "The final step's stream", true);
  const meta = await run.finish({ generatedText: generated, usage, failure });
  if (failure !== undefined) {
    const withExecution = new GatewayError(failure.status, failure.type, failure.code, failure.message, { details: { execution_id: meta.execution_id } });
    events.end(encoder.fail(withExecution, meta));
  } else {
    events.end(encoder.end({ finishReason, usage: totalUsage(meta, usage?.estimated ?? true), meta }));
  }
}

/**
 * The response's `usage`: every step's tokens, since the client pays for all of
 * them (the per-step split is in `_meta.steps` and the execution record).
 */
function totalUsage(meta: AgentMeta, estimated: boolean): Usage {
  const sum = (field: 'prompt_tokens' | 'completion_tokens') => meta.steps.reduce((total, step) => total + step[field], 0);
  return { promptTokens: sum('prompt_tokens'), completionTokens: sum('completion_tokens'), estimated };
}
