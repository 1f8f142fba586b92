import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { readBearerToken } from '../auth/api-key-format.js';
import { errors } from '../lib/errors.js';
import { thenMaybe, type MaybePromise } from '../lib/maybe-promise.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import { agentsApi } from './agents-api.js';
import { anthropicMessagesApi } from './anthropic/messages-route.js';
import { registerChatCompletions } from './chat-completions-route.js';
import type { AppDependencies } from './dependencies.js';
import { registerModels } from './models-route.js';
import { createRequestState } from './request-state.js';
import { noteErrorCode, recordUsageOnResponse } from './usage-hooks.js';

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

  /** Rate limits (docs/limits.md): requests per minute and requests in flight now; tokens and the router's limits once the body is read. */
  const admit = (request: FastifyRequest, reply: FastifyReply, key: ApiKeyRecord): MaybePromise<void> => {
    request.gateway.key = key;
    return thenMaybe(deps.rateLimiter.admitRequest(key), (ticket) => {
      request.gateway.rateTicket = ticket;
      // 'close' comes for every answer, streamed or not, and for clients that leave: the slot is always freed.
      reply.raw.once('close', () => {
        deps.rateLimiter.finish(ticket, request.gateway.promptTokens + request.gateway.completionTokens);
      });
      void reply.headers(ticket.headers);
    });
  };

  // Synchronous (done) when the key is cached and the rate limits are in process, the usual case: no promise layer.
  app.addHook('onRequest', (request, reply, done) => {
    request.gateway = createRequestState(performance.now());
    void reply.header('x-request-id', request.id);
    try {
      if (deps.settings.requireHttps && request.protocol !== 'https') throw errors.httpsRequired();
      const admitted = thenMaybe(deps.authenticator.authenticate(readApiKey(request)), (key) => admit(request, reply, key));
      if (admitted instanceof Promise) admitted.then(() => done(), (error: Error) => done(error));
      else done();
    } catch (error) {
      done(error as Error);
    }
  });

  // One usage record per authenticated request, failures included (streams record their own).
  app.addHook('onResponse', recordUsageOnResponse(deps.usage));
  app.addHook('onError', noteErrorCode);

  registerChatCompletions(app, deps);
  registerModels(app, deps);
  await app.register(anthropicMessagesApi, deps);
  await app.register(agentsApi, deps);
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
