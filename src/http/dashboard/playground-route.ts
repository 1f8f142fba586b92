import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PLAYGROUND_KEY_ID } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import type { ApiKeyRecord } from '../../storage/api-keys-repository.js';
import { toChatRequest } from '../chat-completions-route.js';
import { chatRequestSchema, type ChatRequestBody } from '../chat-request-schema.js';
import { streamCompletion } from '../chat-stream.js';
import { chatCompletionBody } from '../openai-response.js';
import { noteErrorCode, recordUsageOnResponse, startRequestState } from '../usage-hooks.js';
import { completeRoutedCall, prepareRoutedCall, requireBody, runRoutedCall } from '../routed-call.js';
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
 * same answer as /api/router/v1/chat/completions (chat-completions-route.ts),
 * authorised by the session instead of a key.
 */
export function registerPlaygroundRoute(app: FastifyInstance, { deps, services }: DashboardContext): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const workspace = await workspaceOf(request, services);
    // Limited per person (MODELPORT_DEFAULT_RPM), with the same limiter as keys; the router's own limits apply too.
    const ticket = await deps.rateLimiter.admitRequest({ ...playgroundKey(workspace.id), id: `dashboard:${sessionOf(request).userId}` });
    request.gateway.rateTicket = ticket;
    reply.raw.once('close', () => deps.rateLimiter.finish(ticket, request.gateway.promptTokens + request.gateway.completionTokens));
    void reply.headers(ticket.headers);
    const body = request.body as ChatRequestBody;
    // A router of another workspace is not found, rather than forbidden: its existence is not revealed.
    if (typeof body.model === 'string' && body.model !== '' && !body.model.startsWith('agent:')) {
      const router = body.model.length <= 128 ? await deps.routers.find(body.model) : undefined;
      if (router === undefined || router.ownerId !== workspace.id) throw errors.routerNotFound(body.model);
    }
    request.gateway.key = playgroundKey(workspace.id);
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

  app.post(
    `${DASHBOARD_PREFIX}/workspaces/:ws/playground/chat`,
    {
      schema: { body: chatRequestSchema },
      preValidation: requireBody,
      onRequest: startRequestState,
      // One usage record per playground call that got as far as a router, failures included (streams record their own).
      onResponse: recordUsageOnResponse(deps.usage),
      onError: noteErrorCode,
    },
    handler,
  );
}
