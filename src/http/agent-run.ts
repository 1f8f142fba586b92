import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AgentMeta, AgentRunResult } from '../agents/agent-executor.js';
import { GatewayError, errors } from '../lib/errors.js';
import type { Usage } from '../providers/contract.js';
import { dismissCall } from '../pipeline/call-settlement.js';
import { checkMessages } from '../pipeline/check-messages.js';
import { completionId } from '../pipeline/completion-id.js';
import type { AppDependencies } from './dependencies.js';
import { openEventStream, relayParts } from './event-stream.js';
import type { AnswerIds, DecodedRequest, StreamEncoder, SurfaceAdapter } from './surface-adapter.js';

/**
 * `model: "agent:<name>"` (spec 1.4, 2.3): runs the key owner's agent and
 * answers in the surface's shape with the agent `_meta`. Every step goes
 * through the pipeline and writes its own usage record, so the request's own
 * call is dismissed once a run has started.
 */
export async function runAgentCall<Body, Decoded extends DecodedRequest>(
  request: FastifyRequest,
  reply: FastifyReply,
  adapter: SurfaceAdapter<Body, Decoded>,
  decoded: Decoded,
  deps: AppDependencies,
): Promise<unknown> {
  checkMessages(decoded.chatRequest);
  const call = request.gateway;
  const key = call.key;
  const name = (decoded.model ?? '').slice('agent:'.length);
  if (key === undefined) throw errors.invalidApiKey();
  if (deps.agents === undefined) throw errors.agentNotFound(name);
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  let result: AgentRunResult;
  try {
    result = await deps.agents.run({
      ownerId: key.ownerId,
      key: { id: key.id, routerIds: key.routerIds },
      name,
      messages: decoded.chatRequest.messages,
      stream: decoded.stream,
      signal: abort.signal,
      startedAt: call.startedAt,
    });
  } catch (error) {
    // A run that started recorded its steps' usage; the error says which execution it was.
    if (error instanceof GatewayError && typeof error.details.execution_id === 'string') dismissCall(call);
    throw error;
  }
  dismissCall(call);
  void reply.header('x-modelport-execution-id', result.executionId);
  const ids: AnswerIds = { id: completionId(adapter.idPrefix, request.id), created: Math.floor(deps.now() / 1000), requestId: request.id, estimatedPromptTokens: 0 };
  if (result.kind === 'answer') {
    const { answer, meta } = result;
    void reply.header('x-modelport-model', answer.model.id);
    return adapter.encode({
      ids,
      model: answer.model.id,
      message: answer.result.message,
      finishReason: answer.result.finishReason,
      usage: totalUsage(meta, answer.usage.estimated),
      systemFingerprint: answer.result.systemFingerprint,
      meta,
    }, decoded);
  }
  return streamAgent(request, reply, result, adapter.streamEncoder<AgentMeta>(ids, result.stream.model, decoded));
}

/** Streams the final step in the surface's format; the agent `_meta` rides on the last events. */
async function streamAgent(request: FastifyRequest, reply: FastifyReply, run: Extract<AgentRunResult, { kind: 'stream' }>, encoder: StreamEncoder<AgentMeta>): Promise<void> {
  const { stream } = run;
  const events = openEventStream(request, reply, stream.model.id);
  await events.write(encoder.start());
  const { generated, finishReason, usage, failure } = await relayParts(stream.parts, (part) => encoder.part(part), events, "The final step's stream", true);
  const meta = await run.finish({ generatedText: generated, usage, failure });
  if (failure !== undefined) {
    const withExecution = new GatewayError(failure.status, failure.type, failure.code, failure.message, { details: { execution_id: meta.execution_id } });
    events.end(await encoder.fail(withExecution, meta));
  } else {
    events.end(await encoder.end({ finishReason, usage: totalUsage(meta, usage?.estimated ?? true), meta }));
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
