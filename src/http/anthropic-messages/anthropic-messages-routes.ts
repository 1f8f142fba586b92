import type { FastifyInstance } from 'fastify';
import type { AppDependencies } from '../dependencies.js';
import { requireBody, routedHandler } from '../routed-endpoint.js';
import { installAnthropicErrorHandling } from './anthropic-messages-errors.js';
import { anthropicRequestSchema } from './anthropic-messages-request-schema.js';
import { anthropicMessagesSurface } from './anthropic-messages-surface.js';

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

  const handler = routedHandler(anthropicMessagesSurface, deps);
  for (const path of ANTHROPIC_MESSAGES_PATHS) {
    app.post(path, { schema: { body: anthropicRequestSchema }, preValidation: requireBody, config: { acceptsXApiKey: true } }, handler);
  }
}
