import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ChatRequest } from '../providers/contract.js';
import { completeAgent } from './agent-completion.js';
import { streamCompletion } from './chat-stream.js';
import { chatRequestSchema, type ChatRequestBody } from './chat-request-schema.js';
import type { AppDependencies } from './dependencies.js';
import { chatCompletionBody } from './openai-response.js';
import { completeRoutedCall, prepareRoutedCall, requireBody, runRoutedCall } from './routed-call.js';

export const CHAT_COMPLETION_PATHS = [
  '/api/router/chat/completions',
  '/api/router/v1/chat/completions',
  '/api/router/:routerId/chat/completions',
  '/api/router/v1/:routerId/chat/completions',
] as const;

export function registerChatCompletions(app: FastifyInstance, deps: AppDependencies): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body as ChatRequestBody;
    // `agent:<name>` in the body runs an agent; a router id in the path wins over it (spec 4.1 rule 2).
    if ((request.params as { routerId?: string }).routerId === undefined && typeof body.model === 'string' && body.model.startsWith('agent:')) {
      const agent = { name: body.model.slice('agent:'.length), chatRequest: toChatRequest(body), stream: body.stream === true };
      return completeAgent(request, reply, { ...agent, includeUsage: body.stream_options?.include_usage === true }, deps);
    }
    const routed = await prepareRoutedCall(request, reply, { chatRequest: toChatRequest(body), bodyModel: body.model, idPrefix: 'chatcmpl-' }, deps);
    return runRoutedCall(request, routed, deps, async () => {
      if (body.stream === true) return streamCompletion(request, reply, routed, deps, body.stream_options?.include_usage === true);
      const { result, model, usage, meta } = await completeRoutedCall(request, reply, routed, deps);
      return chatCompletionBody({
        id: routed.completionId,
        created: routed.created,
        model: model.id,
        message: result.message,
        finishReason: result.finishReason,
        usage,
        systemFingerprint: result.systemFingerprint,
        meta,
      });
    });
  };
  for (const path of CHAT_COMPLETION_PATHS) app.post(path, { schema: { body: chatRequestSchema }, preValidation: requireBody }, handler);
}

/** The body in the gateway's shape: `model` and `stream` removed, JSON nulls dropped (also used by the dashboard's playground). */
export function toChatRequest(body: ChatRequestBody): ChatRequest {
  const { model: _model, stream: _stream, ...rest } = body;
  const request: Record<string, unknown> = {};
  // JSON null means "not set" for OpenAI's optional parameters.
  for (const [name, value] of Object.entries(rest)) if (value !== null) request[name] = value;
  return request as unknown as ChatRequest;
}
