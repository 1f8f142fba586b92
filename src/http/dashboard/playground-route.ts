import type { FastifyInstance } from 'fastify';
import { PLAYGROUND_KEY_ID } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import type { ApiKeyRecord } from '../../storage/api-keys-repository.js';
import { admitCall, noteErrorCode, settleOnResponse, startCall } from '../call-hooks.js';
import { openAIChatRequestSchema } from '../openai-chat/openai-chat-request-schema.js';
import { openAIChatSurface } from '../openai-chat/openai-chat-surface.js';
import { requireBody, routedHandler } from '../routed-endpoint.js';
import { DASHBOARD_PREFIX, sessionOf, workspaceOf, type DashboardContext } from './dashboard-context.js';

/** The playground calls as the workspace itself, with no API key: usage records carry the key id `dashboard`. */
export function playgroundKey(ownerId: string): ApiKeyRecord {
  return {
    id: PLAYGROUND_KEY_ID,
    ownerId,
    name: 'Dashboard playground',
    displayPrefix: '',
    routerIds: undefined,
    rpmLimit: undefined,
    createdAt: 0,
    lastUsedAt: undefined,
    expiresAt: undefined,
    revokedAt: undefined,
  };
}

/**
 * POST /api/dashboard/workspaces/:ws/playground/chat: the same pipeline and the
 * same answer as /api/router/v1/chat/completions (openai-chat/),
 * authorised by the session instead of a key.
 */
export function registerPlaygroundRoute(app: FastifyInstance, { deps, services }: DashboardContext): void {
  const handler = routedHandler(openAIChatSurface, deps, {
    async authorize(request, reply, decoded) {
      const workspace = await workspaceOf(request, services);
      // Limited per person (MODELPORT_DEFAULT_RPM), with the same limiter as keys; the router's own limits apply too.
      const key = playgroundKey(workspace.id);
      await admitCall(request, reply, { ...key, id: `dashboard:${sessionOf(request).userId}` }, deps);
      // A router of another workspace is not found, rather than forbidden: its existence is not revealed.
      const model = decoded.model;
      if (typeof model === 'string' && model !== '' && !model.startsWith('agent:')) {
        const router = model.length <= 128 ? await deps.routers.find(model) : undefined;
        if (router === undefined || router.ownerId !== workspace.id) throw errors.routerNotFound(model);
      }
      // From here on the call is the workspace's, and recorded under the playground key.
      request.gateway.key = key;
    },
  });

  app.post(
    `${DASHBOARD_PREFIX}/workspaces/:ws/playground/chat`,
    {
      schema: { body: openAIChatRequestSchema },
      preValidation: requireBody,
      onRequest: startCall,
      // One usage record per playground call that got as far as a router, failures included (streams settle their own).
      onResponse: settleOnResponse(deps),
      onError: noteErrorCode,
    },
    handler,
  );
}
