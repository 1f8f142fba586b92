import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readBearerToken } from '../auth/api-key-format.js';
import { errors } from '../lib/errors.js';
import { thenMaybe } from '../lib/maybe-promise.js';
import { createCallState } from '../pipeline/call-state.js';
import { agentsApi } from './agents-api.js';
import { anthropicMessagesApi } from './anthropic-messages/anthropic-messages-routes.js';
import { admitCall, noteErrorCode, settleOnResponse } from './call-hooks.js';
import type { AppDependencies } from './dependencies.js';
import { registerModels } from './models-route.js';
import { registerOpenAIChat } from './openai-chat/openai-chat-routes.js';
import { registerOpenAIEmbeddings } from './openai-embeddings/openai-embeddings-routes.js';
import { registerOpenAIResponses } from './openai-responses/openai-responses-routes.js';
import { storedResponsesApi } from './openai-responses/stored-responses-routes.js';
import { routerFeedbackApi } from './router-feedback-routes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route also takes the key from `x-api-key` (Anthropic's header), which
     * wins over `Authorization` when both are sent.
     * @default false
     */
    acceptsXApiKey?: boolean;
  }
}

/**
 * The client API under /api/router: every route here needs an API key.
 * Order per request: HTTPS check → key (401) → rate limit (429) → body
 * validation (400) → router (404/403) → routing and the upstream call.
 */
export async function routerApi(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  app.decorateRequest('gateway', null as never);

  // Synchronous (done) when the key is cached and the rate limits are in process, the usual case: no promise layer.
  app.addHook('onRequest', (request, reply, done) => {
    request.gateway = createCallState(request.id, performance.now());
    void reply.header('x-request-id', request.id);
    try {
      if (deps.settings.requireHttps && request.protocol !== 'https') throw errors.httpsRequired();
      // Rate limits (docs/limits.md): requests per minute and requests in flight now; tokens and the router's limits once the body is read.
      const admitted = thenMaybe(deps.authenticator.authenticate(readApiKey(request)), (key) => {
        request.gateway.key = key;
        return admitCall(request, reply, key, deps);
      });
      if (admitted instanceof Promise) admitted.then(() => done(), (error: Error) => done(error));
      else done();
    } catch (error) {
      done(error as Error);
    }
  });

  // One usage record per authenticated request, failures included (streams and clients that left settle earlier).
  app.addHook('onResponse', settleOnResponse(deps));
  app.addHook('onError', noteErrorCode);

  registerOpenAIChat(app, deps);
  registerOpenAIEmbeddings(app, deps);
  registerOpenAIResponses(app, deps);
  registerModels(app, deps);
  await app.register(anthropicMessagesApi, deps);
  await app.register(agentsApi, deps);
  await app.register(storedResponsesApi, deps);
  await app.register(routerFeedbackApi, deps);
}

/** The key from `Authorization: Bearer …`, or, on routes that accept it, from `x-api-key`. */
function readApiKey(request: FastifyRequest): string | undefined {
  const apiKeyHeader = request.headers['x-api-key'];
  if (request.routeOptions.config.acceptsXApiKey === true) {
    if (typeof apiKeyHeader === 'string' && apiKeyHeader.trim() !== '') return apiKeyHeader.trim();
    if (request.headers.authorization === undefined) {
      throw errors.invalidApiKey('Missing API key. Pass it as "x-api-key: mp_..." or "Authorization: Bearer mp_...".');
    }
  }
  const header = request.headers.authorization;
  const token = readBearerToken(header);
  if (token === undefined && header !== undefined && header.trim() !== '') {
    throw errors.invalidApiKey('Invalid Authorization header: send the API key as "Authorization: Bearer mp_...".');
  }
  return token;
}
