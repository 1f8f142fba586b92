import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDependencies } from '../dependencies.js';
import { requireBody, routedHandler } from '../routed-endpoint.js';
import { openAIResponsesRequestSchema } from './openai-responses-request-schema.js';
import { createOpenAIResponsesSurface } from './openai-responses-surface.js';

/** The base address is `{host}/api/router` or `…/v1`; a router id in the path wins over `model`, as for chat. */
export const RESPONSES_PATHS = [
  '/api/router/responses',
  '/api/router/v1/responses',
  '/api/router/:routerId/responses',
  '/api/router/v1/:routerId/responses',
] as const;

/**
 * POST …/responses: routers, and agents by `model: "agent:<name>"`. On whole answers `x-modelport-response-stored`
 * says whether the response was stored (`stored`, `not_requested`, `too_large`, `disabled`, `failed`); a stream says
 * it in its last event's `response.store`.
 */
export function registerOpenAIResponses(app: FastifyInstance, deps: AppDependencies): void {
  const surface = createOpenAIResponsesSurface({ store: deps.responses, now: deps.now });
  const handler = routedHandler(surface, deps, { agents: true });
  const respond = async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const body = await handler(request, reply);
    const outcome = surface.storedOutcome(body);
    if (outcome !== undefined) void reply.header('x-modelport-response-stored', outcome);
    return body;
  };
  for (const path of RESPONSES_PATHS) app.post(path, { schema: { body: openAIResponsesRequestSchema }, preValidation: requireBody }, respond);
}
