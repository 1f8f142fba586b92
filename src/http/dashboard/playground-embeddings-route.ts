import type { FastifyInstance } from 'fastify';
import { embeddingsHandler } from '../openai-embeddings/openai-embeddings-routes.js';
import { openAIEmbeddingsRequestSchema } from '../openai-embeddings/openai-embeddings-request-schema.js';
import { requireBody } from '../routed-endpoint.js';
import { DASHBOARD_PREFIX, type DashboardContext } from './dashboard-context.js';
import { authorizePlaygroundCall, playgroundCallHooks } from './playground-route.js';

/**
 * POST /api/dashboard/workspaces/:ws/playground/embeddings: the same handler and the same answer as
 * /api/router/v1/embeddings (openai-embeddings/), authorised by the session as the chat playground is.
 */
export function registerPlaygroundEmbeddingsRoute(app: FastifyInstance, context: DashboardContext): void {
  const handler = embeddingsHandler(context.deps, { authorize: (request, reply, model) => authorizePlaygroundCall(request, reply, context, model) });
  app.post(
    `${DASHBOARD_PREFIX}/workspaces/:ws/playground/embeddings`,
    { schema: { body: openAIEmbeddingsRequestSchema }, preValidation: requireBody, ...playgroundCallHooks(context.deps) },
    handler,
  );
}
