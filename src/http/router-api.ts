import type { FastifyInstance } from 'fastify';
import { readBearerToken } from '../auth/api-key-format.js';
import { errors, GatewayError } from '../lib/errors.js';
import { rateLimitHeaders } from '../limits/request-rate-limiter.js';
import { registerChatCompletions } from './chat-completions-route.js';
import type { AppDependencies } from './dependencies.js';
import { registerModels } from './models-route.js';
import { createRequestState, usageRecordFrom } from './request-state.js';

/**
 * The client API under /api/router: every route here needs an API key.
 * Order per request: HTTPS check → key (401) → rate limit (429) → body
 * validation (400) → router (404/403) → routing and the upstream call.
 */
export async function routerApi(app: FastifyInstance, deps: AppDependencies): Promise<void> {
  app.decorateRequest('gateway', null as never);

  app.addHook('onRequest', async (request, reply) => {
    request.gateway = createRequestState(performance.now());
    void reply.header('x-request-id', request.id);
    if (deps.settings.requireHttps && request.protocol !== 'https') throw errors.httpsRequired();
    const header = request.headers.authorization;
    const token = readBearerToken(header);
    if (token === undefined && header !== undefined && header.trim() !== '') {
      throw errors.invalidApiKey('Invalid Authorization header: send the API key as "Authorization: Bearer mp_...".');
    }
    const key = await deps.authenticator.authenticate(token);
    request.gateway.key = key;
    const decision = await deps.rateLimiter.consume(key.id, key.rpmLimit ?? deps.settings.defaultRpm);
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw errors.rateLimited(
        `Rate limit reached for this API key: ${decision.limit} requests per minute. Retry after ${Math.ceil(decision.resetMs / 1000)} s.`,
        { ...headers, 'retry-after': String(Math.max(1, Math.ceil(decision.resetMs / 1000))) },
      );
    }
    void reply.headers(headers);
  });

  // One usage record per authenticated request, failures included (streams record their own).
  app.addHook('onResponse', async (request, reply) => {
    const state = request.gateway;
    if (state === null || state.key === undefined || state.recorded) return;
    state.recorded = true;
    deps.usage.record(usageRecordFrom(request, reply.statusCode, state.errorCode));
  });
  app.addHook('onError', async (request, _reply, error) => {
    if (request.gateway !== null) request.gateway.errorCode = error instanceof GatewayError ? error.code : 'error';
  });

  registerChatCompletions(app, deps);
  registerModels(app, deps);
}
