import type { FastifyInstance } from 'fastify';
import { modelKind, type ModelCatalog } from '../../catalog/catalog.js';
import { resolveRange, type ModelKindOf } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import { DASHBOARD_PREFIX, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';

/** Which records were embedding calls: those an embedding model of the workspace's catalog answered. */
export function modelKinds(catalog: ModelCatalog): ModelKindOf {
  return (model) => {
    const info = model === null ? undefined : catalog.get(model);
    return info === undefined ? 'chat' : modelKind(info);
  };
}

/** Usage charts and the request log. */
export function registerUsageRoutes(app: FastifyInstance, { deps, services }: DashboardContext): void {
  app.get(`${DASHBOARD_PREFIX}/workspaces/:ws/usage`, async (request) => {
    const workspace = await workspaceOf(request, services);
    const query = request.query as { from?: string; to?: string; bucket?: string };
    return withIsoTimes(await services.usage.report(workspace.id, resolveRange(query, deps.now())));
  });

  app.get(`${DASHBOARD_PREFIX}/workspaces/:ws/usage/requests`, async (request) => {
    const workspace = await workspaceOf(request, services);
    const query = request.query as { limit?: string; before?: string; routerId?: string; keyId?: string };
    const limit = query.limit === undefined ? 50 : /^\d{1,4}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= 200)) throw errors.invalidRequest('"limit" must be a whole number from 1 to 200.', 'limit');
    const kindOf = modelKinds(await deps.ownerCatalogs.forOwner(workspace.id));
    return withIsoTimes(await services.usage.requests(workspace.id, { limit, before: query.before, routerId: query.routerId, keyId: query.keyId }, kindOf));
  });
}
