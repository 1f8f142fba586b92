import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { catalogView, listStrategies } from '../../dashboard/catalog-view.js';
import { DASHBOARD_PREFIX, sessionOf, type DashboardContext } from './dashboard-context.js';

const catalogQuery = Type.Object({ workspace: Type.Optional(Type.String()) });

/** The model catalog (prices, context windows, capabilities, availability and what would make a model available) and the strategies. */
export function registerCatalogRoutes(app: FastifyInstance, { deps, services }: DashboardContext): void {
  app.get<{ Querystring: Static<typeof catalogQuery> }>(`${DASHBOARD_PREFIX}/catalog`, { schema: { querystring: catalogQuery } }, async (request) => {
    const { workspace } = request.query;
    const ownerId = workspace === undefined ? undefined : (await services.workspaces.access(sessionOf(request).userId, workspace)).id;
    return { models: await catalogView(deps.catalog, deps.ownerCatalogs, deps.providers, ownerId, { probe: deps.localServers, isServerModel: deps.isServerModel }) };
  });
  app.get(`${DASHBOARD_PREFIX}/strategies`, async () => listStrategies());
}
