import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import { PLAYGROUND_KEY_ID } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import type { ApiKeyRecord } from '../../storage/api-keys-repository.js';
import { admitCall, noteErrorCode, settleOnResponse, startCall } from '../call-hooks.js';
import type { AppDependencies } from '../dependencies.js';
import { openAIChatRequestSchema } from '../openai-chat/openai-chat-request-schema.js';
import { openAIChatSurface } from '../openai-chat/openai-chat-surface.js';
import { requireBody, routedHandler } from '../routed-endpoint.js';
import { DASHBOARD_PREFIX, sessionOf, workspaceOf, type DashboardContext } from './dashboard-context.js';

/** Longest router id looked up: a megabyte-long "id" must not reach the routers' cache. */
const MAX_ROUTER_ID_LENGTH = 128;

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
 * Authorises a playground call by the session instead of a key, for every kind of call the playground makes: the
 * `:ws` workspace's membership (any role), the per-person rate limit, and `target` a router of that workspace.
 * Afterwards the call is the workspace's, recorded under the playground key.
 */
export async function authorizePlaygroundCall(request: FastifyRequest, reply: FastifyReply, { deps, services }: DashboardContext, target: string | null | undefined): Promise<void> {
  const workspace = await workspaceOf(request, services);
  // Limited per person (MODELPORT_DEFAULT_RPM), with the same limiter as keys; the router's own limits apply too.
  const key = playgroundKey(workspace.id);
  await admitCall(request, reply, { ...key, id: `dashboard:${sessionOf(request).userId}` }, deps);
  // A router of another workspace is not found, rather than forbidden: its existence is not revealed. Until the key
  // is set below the call has no owner, so that refusal leaves no usage record.
  if (typeof target === 'string' && target !== '' && !target.startsWith('agent:')) {
    const router = target.length <= MAX_ROUTER_ID_LENGTH ? await deps.routers.find(target) : undefined;
    if (router === undefined || router.ownerId !== workspace.id) throw errors.routerNotFound(target);
  }
  request.gateway.key = key;
}

/**
 * The hooks of a playground route: the call starts with the request, and one usage record is written per call that
 * got as far as a router, failures included (streams settle their own).
 */
export function playgroundCallHooks(deps: AppDependencies): Pick<RouteShorthandOptions, 'onRequest' | 'onResponse' | 'onError'> {
  return { onRequest: startCall, onResponse: settleOnResponse(deps), onError: noteErrorCode };
}

/**
 * POST /api/dashboard/workspaces/:ws/playground/chat: the same pipeline and the
 * same answer as /api/router/v1/chat/completions (openai-chat/),
 * authorised by the session instead of a key.
 */
export function registerPlaygroundRoute(app: FastifyInstance, context: DashboardContext): void {
  const handler = routedHandler(openAIChatSurface, context.deps, {
    authorize: (request, reply, decoded) => authorizePlaygroundCall(request, reply, context, decoded.model),
  });

  app.post(
    `${DASHBOARD_PREFIX}/workspaces/:ws/playground/chat`,
    { schema: { body: openAIChatRequestSchema }, preValidation: requireBody, ...playgroundCallHooks(context.deps) },
    handler,
  );
}
