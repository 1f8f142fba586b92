import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { modelKind, type ModelCatalog } from '../../catalog/catalog.js';
import { resolveRange, type ModelKindOf } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import { DASHBOARD_PREFIX, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';

const usageQuery = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()), bucket: Type.Optional(Type.String()) });
const requestsQuery = Type.Object({
  limit: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
  routerId: Type.Optional(Type.String()),
  keyId: Type.Optional(Type.String()),
});

/** Which records were embedding calls: those an embedding model of the workspace's catalog answered. */
export function modelKinds(catalog: ModelCatalog): ModelKindOf {
  return (model) => {
    const info = model === null ? undefined : catalog.get(model);
    return info === undefined ? 'chat' : modelKind(info);
  };
}

/** Usage charts and the request log. */
export function registerUsageRoutes(app: FastifyInstance, { deps, services }: DashboardContext): void {
  app.get<{ Querystring: Static<typeof usageQuery> }>(`${DASHBOARD_PREFIX}/workspaces/:ws/usage`, { schema: { querystring: usageQuery } }, async (request) => {
    const workspace = await workspaceOf(request, services);
    return withIsoTimes(await services.usage.report(workspace.id, resolveRange(request.query, deps.now())));
  });

  app.get<{ Querystring: Static<typeof requestsQuery> }>(`${DASHBOARD_PREFIX}/workspaces/:ws/usage/requests`, { schema: { querystring: requestsQuery } }, async (request) => {
    const workspace = await workspaceOf(request, services);
    const query = request.query;
    const limit = query.limit === undefined ? 50 : /^\d{1,4}$/.test(query.limit) ? Number(query.limit) : Number.NaN;
    if (!(limit >= 1 && limit <= 200)) throw errors.invalidRequest('"limit" must be a whole number from 1 to 200.', 'limit');
    const kindOf = modelKinds(await deps.ownerCatalogs.forOwner(workspace.id));
    return withIsoTimes(await services.usage.requests(workspace.id, { limit, before: query.before, routerId: query.routerId, keyId: query.keyId }, kindOf));
  });
}
