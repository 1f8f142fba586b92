import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { modelKind, type ModelCatalog } from '../../catalog/catalog.js';
import { requestLogEntry } from '../../dashboard/request-log-view.js';
import { parseTime, resolveRange, type ModelKindOf } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import { DASHBOARD_PREFIX, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';

const usageQuery = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()), bucket: Type.Optional(Type.String()) });
const requestsQuery = Type.Object({
  limit: Type.Optional(Type.String()),
  before: Type.Optional(Type.String()),
  routerId: Type.Optional(Type.String()),
  keyId: Type.Optional(Type.String()),
  model: Type.Optional(Type.String({ maxLength: 300 })),
  status: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
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
    const filters = {
      routerId: query.routerId,
      keyId: query.keyId,
      model: query.model,
      status: statusFilter(query.status),
      from: query.from === undefined ? undefined : parseTime(query.from, 'from'),
      to: query.to === undefined ? undefined : parseTime(query.to, 'to'),
    };
    return withIsoTimes(await services.usage.requests(workspace.id, { limit, before: query.before, ...filters }, kindOf));
  });

  app.get(`${DASHBOARD_PREFIX}/workspaces/:ws/usage/requests/:id`, async (request) => {
    const workspace = await workspaceOf(request, services);
    const id = (request.params as { id: string }).id;
    const kindOf = modelKinds(await deps.ownerCatalogs.forOwner(workspace.id));
    const usage = id.length > 128 ? undefined : await services.usage.request(workspace.id, id, kindOf);
    if (usage === undefined) throw errors.dashboardNotFound('request_not_found', `No request "${id.slice(0, 128)}" in this workspace's usage.`);
    return withIsoTimes(requestLogEntry(usage, await services.repositories.requestLogs.find(workspace.id, id)));
  });
}

/** `ok`, `error` or an HTTP status. */
function statusFilter(text: string | undefined): 'ok' | 'error' | number | undefined {
  if (text === undefined || text === 'ok' || text === 'error') return text;
  if (/^[1-5]\d\d$/.test(text)) return Number(text);
  throw errors.invalidRequest('"status" must be ok, error or an HTTP status such as 429.', 'status');
}
