import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import { CSRF_HEADER, csrfTokenMatches, isStateChanging, originAllowed } from '../../auth/csrf.js';
import { SESSION_COOKIE } from '../../auth/sessions.js';
import type { DashboardServices } from '../../dashboard/dashboard-services.js';
import { errors } from '../../lib/errors.js';
import type { AppDependencies } from '../dependencies.js';
import { registerAgentRoutes } from './agent-routes.js';
import { registerAuthRoutes } from './auth-routes.js';
import { registerCatalogRoutes } from './catalog-routes.js';
import { registerCustomModelRoutes } from './custom-model-routes.js';
import type { DashboardContext } from './dashboard-context.js';
import { registerKeyRoutes } from './key-routes.js';
import { registerPlaygroundEmbeddingsRoute } from './playground-embeddings-route.js';
import { registerPlaygroundRoute } from './playground-route.js';
import { registerProviderRoutes } from './provider-routes.js';
import { registerRouterLearningRoutes } from './router-learning-routes.js';
import { registerRouterRoutes } from './router-routes.js';
import { apiSecurityHeaders } from './security-headers.js';
import { registerUsageExportRoute } from './usage-export-route.js';
import { registerUsageRoutes } from './usage-routes.js';
import { registerWorkspaceRoutes } from './workspace-routes.js';

/**
 * The dashboard's JSON API under /api/dashboard (docs/dashboard-api.md). Order
 * per request: HTTPS check → session (401) → Origin and CSRF token on
 * state-changing calls (403) → body validation (400) → workspace and role
 * (404/403). Each area is one route file; agents will be one more.
 */
export async function dashboardApi(app: FastifyInstance, options: { deps: AppDependencies; services: DashboardServices }): Promise<void> {
  const context: DashboardContext = { deps: options.deps, services: options.services };
  const { deps, services } = context;
  // First: its headers go on every answer, the 401s and 403s of the hook below included.
  await apiSecurityHeaders(app);
  await app.register(fastifyCookie);
  app.decorateRequest('dashboardSession', null);
  app.decorateRequest('gateway', null as never);

  app.addHook('onRequest', async (request, reply) => {
    void reply.header('cache-control', 'no-store');
    if (deps.settings.requireHttps && request.protocol !== 'https') throw errors.httpsRequired();
    const changing = isStateChanging(request.method);
    if (changing && !originAllowed(request.headers.origin, request.protocol, request.host)) throw errors.csrfTokenInvalid();
    if (request.routeOptions.config.dashboardPublic === true) return;
    const session = await services.sessions.resolve(request.cookies[SESSION_COOKIE]);
    if (session === undefined) throw errors.sessionRequired();
    if (changing && !csrfTokenMatches(request.headers[CSRF_HEADER], session.csrfToken)) throw errors.csrfTokenInvalid();
    request.dashboardSession = session;
  });

  registerAuthRoutes(app, context);
  registerWorkspaceRoutes(app, context);
  registerCatalogRoutes(app, context);
  registerRouterRoutes(app, context);
  registerRouterLearningRoutes(app, context);
  registerKeyRoutes(app, context);
  registerProviderRoutes(app, context);
  registerCustomModelRoutes(app, context);
  registerUsageRoutes(app, context);
  registerUsageExportRoute(app, context);
  registerPlaygroundRoute(app, context);
  registerPlaygroundEmbeddingsRoute(app, context);
  registerAgentRoutes(app, context);
}
