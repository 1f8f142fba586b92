import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AdminInputError } from '../../admin/admin-errors.js';
import { createBudgetAdmin } from '../../admin/budget-admin.js';
import { budgetInput, budgetView } from '../../dashboard/budget-input.js';
import type { ModelCatalog } from '../../catalog/catalog.js';
import { routerKind } from '../../catalog/router-kind.js';
import type { RouterSettingsChange } from '../../admin/router-settings-input.js';
import type { IsoTimes, RouterSettingsView, RouterView } from '../../dashboard/dashboard-api-types.js';
import type { DashboardServices } from '../../dashboard/dashboard-services.js';
import { fitView } from '../../dashboard/router-learning-views.js';
import type { Workspace } from '../../dashboard/workspaces.js';
import { resolveRange } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import type { RouterSettings } from '../../routing/routing-contract.js';
import type { RouterRecord } from '../../storage/routers-repository.js';
import { DASHBOARD_PREFIX, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';
import { modelKinds } from './usage-routes.js';

const HOUR = 3_600_000;
const TRAFFIC_RANGES = { '1h': HOUR, '24h': 24 * HOUR, '7d': 7 * 24 * HOUR } as const;
const trafficQuery = Type.Object({ range: Type.Optional(Type.Union([Type.Literal('1h'), Type.Literal('24h'), Type.Literal('7d')])) });

const modelsSchema = Type.Array(Type.String({ maxLength: 200 }), { maxItems: 100 });
/** Any number: the router admin refuses what is not a positive whole number, with the CLI's message; null removes. */
const limitSchema = Type.Optional(Type.Union([Type.Number({ maximum: 2_147_483_647 }), Type.Null()]));
/** `{usd, period?}` as `--budget-usd --budget-period`; null removes it. */
const budgetSchema = Type.Optional(
  Type.Union([Type.Object({ usd: Type.Number(), period: Type.Optional(Type.String({ maxLength: 20 })) }, { additionalProperties: false }), Type.Null()]),
);
const newRouterSchema = Type.Object(
  {
    name: Type.String({ maxLength: 200 }),
    models: modelsSchema,
    strategy: Type.String({ maxLength: 100 }),
    settings: Type.Optional(Type.Unknown()),
    rpmLimit: limitSchema,
    tpmLimit: limitSchema,
    budget: budgetSchema,
  },
  { additionalProperties: false },
);
const routerChangeSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    models: Type.Optional(modelsSchema),
    strategy: Type.Optional(Type.String({ maxLength: 100 })),
    settings: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    rpmLimit: limitSchema,
    tpmLimit: limitSchema,
    budget: budgetSchema,
  },
  { additionalProperties: false },
);

/** The field a CLI flag in the admin's message names ("--rpm must be …"). */
const FLAG_FIELDS: Readonly<Record<string, string>> = { rpm: 'rpmLimit', tpm: 'tpmLimit', 'budget-period': 'budget.period', 'budget-usd': 'budget.usd' };

/** The router admin's rule that failed, as a 400 pointing at the field, so the form can show it there. */
function adminError(error: unknown): unknown {
  if (!(error instanceof AdminInputError)) return error;
  const message = error.message;
  const settingPath = /^Invalid router setting ([\w.]+)/.exec(message)?.[1];
  const flagField = FLAG_FIELDS[/^--([\w-]+)/.exec(message)?.[1] ?? ''] ?? (/^A budget /.test(message) ? 'budget.usd' : undefined);
  const guessed = flagField ?? (settingPath !== undefined
    ? settingPath === 'settings' ? 'settings' : `settings.${settingPath}`
    : /model/i.test(message) ? 'models' : /strategy/i.test(message) ? 'strategy' : /name/i.test(message) ? 'name' : null);
  const param = error.field ?? guessed;
  return errors.invalidRequest(message, param);
}

/** The settings as the router page reads them: an `auto` fit summarised, its weights left on the server. */
function settingsView(settings: RouterSettings): RouterSettingsView {
  const { autoFit, ...rest } = settings;
  return autoFit === undefined ? rest : { ...rest, autoFit: fitView(autoFit) };
}

/** A router of the workspace, or 404 (a router of another workspace is not revealed). */
export async function findWorkspaceRouter(services: DashboardServices, workspace: Workspace, id: string): Promise<RouterRecord> {
  const router = id.length <= 128 ? await services.repositories.routers.findById(id) : undefined;
  if (router === undefined || router.ownerId !== workspace.id) throw errors.dashboardNotFound('router_not_found', 'No such router in this workspace.');
  return router;
}

function routerView(router: RouterRecord, catalog: ModelCatalog, budget: RouterView['budget']): IsoTimes<RouterView> {
  return withIsoTimes({
    id: router.id,
    name: router.name,
    kind: routerKind(router.models, catalog),
    models: router.models,
    strategy: router.strategy,
    settings: settingsView(router.settings),
    rpmLimit: router.rpmLimit ?? null,
    tpmLimit: router.tpmLimit ?? null,
    budget,
    createdAt: router.createdAt,
    updatedAt: router.updatedAt,
  });
}

/** Routers of a workspace, with the CLI's validation (src/admin/router-admin.ts). */
export function registerRouterRoutes(app: FastifyInstance, { deps, services }: DashboardContext): void {
  const { routers } = services.repositories;
  const findRouter = (workspace: Workspace, id: string): Promise<RouterRecord> => findWorkspaceRouter(services, workspace, id);
  const base = `${DASHBOARD_PREFIX}/workspaces/:ws/routers`;
  const catalogOf = async (workspace: Workspace): Promise<ModelCatalog> => deps.ownerCatalogs.forOwner(workspace.id);
  // The CLI's budget rules; owners are found by workspace id, as the dashboard's router admin does.
  const budgets = createBudgetAdmin(services.repositories, async (ownerId) => {
    const owner = await services.repositories.users.findById(ownerId);
    if (owner === undefined) throw new Error(`owner ${ownerId} not found`);
    return owner;
  });
  const viewOf = async (router: RouterRecord, catalog: ModelCatalog): Promise<IsoTimes<RouterView>> =>
    routerView(router, catalog, budgetView(await budgets.findBudget('router', router.id)));

  app.get(base, async (request) => {
    const workspace = await workspaceOf(request, services);
    const [list, catalog] = await Promise.all([routers.listByOwner(workspace.id), catalogOf(workspace)]);
    return { routers: await Promise.all(list.map((router) => viewOf(router, catalog))) };
  });

  app.post(base, { schema: { body: newRouterSchema } }, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const body = request.body as Static<typeof newRouterSchema>;
    try {
      // Checked before the router exists, so a refused budget leaves nothing half made.
      const budget = budgetInput(body.budget);
      const router = await services.routerAdmin.createRouter({
        ownerEmail: workspace.id,
        name: body.name,
        models: body.models,
        strategy: body.strategy,
        settings: (body.settings ?? {}) as RouterSettings,
        rpmLimit: body.rpmLimit ?? undefined,
        tpmLimit: body.tpmLimit ?? undefined,
      });
      if (budget?.amountUsd != null) await budgets.setBudget(workspace.id, 'router', router.id, budget);
      return await reply.status(201).send(await viewOf(router, await catalogOf(workspace)));
    } catch (error) {
      throw adminError(error);
    }
  });

  app.get(`${base}/:id`, async (request) => {
    const workspace = await workspaceOf(request, services);
    return viewOf(await findRouter(workspace, (request.params as { id: string }).id), await catalogOf(workspace));
  });

  app.patch(`${base}/:id`, { schema: { body: routerChangeSchema } }, async (request) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const router = await findRouter(workspace, (request.params as { id: string }).id);
    const body = request.body as Static<typeof routerChangeSchema>;
    try {
      const budget = budgetInput(body.budget);
      const { budget: _budget, ...changes } = body;
      // A budget alone changes nothing else, as `router update --budget-usd` alone does.
      const updated =
        budget !== undefined && Object.values(changes).every((value) => value === undefined)
          ? router
          : await services.routerAdmin.updateRouter({
              ownerEmail: workspace.id,
              id: router.id,
              name: body.name,
              models: body.models,
              strategy: body.strategy,
              settings: body.settings as RouterSettingsChange | undefined,
              rpmLimit: body.rpmLimit,
              tpmLimit: body.tpmLimit,
            });
      if (budget !== undefined) await budgets.setBudget(workspace.id, 'router', router.id, budget);
      return await viewOf(updated, await catalogOf(workspace));
    } catch (error) {
      throw adminError(error);
    }
  });

  app.delete(`${base}/:id`, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const router = await findRouter(workspace, (request.params as { id: string }).id);
    await routers.remove(workspace.id, router.id);
    return reply.status(204).send();
  });

  app.get<{ Querystring: Static<typeof trafficQuery> }>(`${base}/:id/traffic`, { schema: { querystring: trafficQuery } }, async (request) => {
    const workspace = await workspaceOf(request, services);
    const router = await findRouter(workspace, (request.params as { id: string }).id);
    const span = TRAFFIC_RANGES[request.query.range ?? '24h'];
    const to = deps.now();
    const hours = resolveRange({ from: String(to - span), to: String(to), bucket: 'hour' }, to);
    const report = await services.usage.traffic(workspace.id, router.id, hours, modelKinds(await catalogOf(workspace)));
    return withIsoTimes(report);
  });
}
