import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDependencies } from '../dependencies.js';
import { completeRoutedCall, prepareRoutedCall, requireBody, runRoutedCall } from '../routed-call.js';
import { streamRoutedCall } from '../routed-stream.js';
import { installAnthropicErrorHandling } from './anthropic-errors.js';
import { anthropicRequestSchema, type AnthropicRequestBody } from './anthropic-request-schema.js';
import { anthropicMessageBody } from './anthropic-response.js';
import { createAnthropicStreamEncoder } from './anthropic-stream.js';
import { convertFromAnthropicRequest } from './convert-from-anthropic-request.js';

/**
 * Anthropic's SDKs post to `${baseURL}/v1/messages`. With the base URL set to
 * `{base_url}`, `{base_url}/v1` (spec 9), or either followed by a router id,
 * that gives the paths below; the bare `…/messages` forms are there for symmetry
 * with chat completions. A router id in the path wins over `model`.
 */
export const ANTHROPIC_MESSAGES_PATHS = [
  '/api/router/v1/messages',
  '/api/router/messages',
  '/api/router/v1/v1/messages',
  '/api/router/:routerId/v1/messages',
  '/api/router/:routerId/messages',
  '/api/router/v1/:routerId/v1/messages',
  '/api/router/v1/:routerId/messages',
] as const;

/**
 * POST …/v1/messages: Anthropic's Messages format in and out, through the same
 * routing, fallback, accounting and usage records as chat completions. An
 * encapsulated plugin, so its errors are rendered in Anthropic's shape while
 * the parent's hooks (HTTPS, key, rate limit, usage record) still apply.
 */
export async function anthropicMessagesApi(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  installAnthropicErrorHandling(app, deps.settings.bodyLimitBytes);
  // Anthropic's SDK reads the request id from `request-id` (x-request-id is set too, as on every route).
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('request-id', request.id);
  });

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body as AnthropicRequestBody;
    const chatRequest = convertFromAnthropicRequest(body);
    const routed = await prepareRoutedCall(request, reply, { chatRequest, bodyModel: body.model, idPrefix: 'msg_' }, deps);
    return runRoutedCall(request, routed, deps, async () => {
      if (body.stream === true) {
        return streamRoutedCall(request, reply, routed, deps, (model) => createAnthropicStreamEncoder(routed, model, request.id));
      }
      const { result, model, usage, meta } = await completeRoutedCall(request, reply, routed, deps);
      return anthropicMessageBody({ id: routed.completionId, model: model.id, message: result.message, finishReason: result.finishReason, usage, meta });
    });
  };
  for (const path of ANTHROPIC_MESSAGES_PATHS) {
    app.post(path, { schema: { body: anthropicRequestSchema }, preValidation: requireBody, config: { acceptsXApiKey: true } }, handler);
  }
}
