import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { MAX_GRACE_MINUTES } from '../../dashboard/keys.js';
import { parseTime } from '../../dashboard/usage-report.js';
import { DASHBOARD_PREFIX, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';

/**
 * Limits are any number here: the admin's rules (src/admin/admin-service.ts) refuse what is not a positive whole
 * number, with the CLI's messages. The ceiling only keeps them within a database integer.
 */
const limit = Type.Optional(Type.Union([Type.Number({ maximum: 2_147_483_647 }), Type.Null()]));
const budgetSchema = Type.Union([Type.Object({ usd: Type.Number(), period: Type.Optional(Type.String({ maxLength: 20 })) }, { additionalProperties: false }), Type.Null()]);

const newKeySchema = Type.Object(
  {
    name: Type.String({ maxLength: 200 }),
    routerIds: Type.Optional(Type.Union([Type.Array(Type.String({ maxLength: 128 }), { minItems: 1, maxItems: 100 }), Type.Null()])),
    rpmLimit: limit,
    tpmLimit: limit,
    maxConcurrency: limit,
    budget: Type.Optional(budgetSchema),
    expiresAt: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
  },
  { additionalProperties: false },
);
const rotateSchema = Type.Object({ graceMinutes: Type.Integer({ minimum: 0, maximum: MAX_GRACE_MINUTES }) }, { additionalProperties: false });

/** Settings → API Keys: list, generate (shown once, with the CLI's limits and budget), revoke, rotate. */
export function registerKeyRoutes(app: FastifyInstance, { services }: DashboardContext): void {
  const base = `${DASHBOARD_PREFIX}/workspaces/:ws/keys`;

  app.get(base, async (request) => {
    const workspace = await workspaceOf(request, services);
    return withIsoTimes({ keys: await services.keys.list(workspace) });
  });

  app.post(base, { schema: { body: newKeySchema } }, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const body = request.body as Static<typeof newKeySchema>;
    const created = await services.keys.create(workspace, {
      name: body.name,
      routerIds: body.routerIds,
      rpmLimit: body.rpmLimit,
      tpmLimit: body.tpmLimit,
      maxConcurrency: body.maxConcurrency,
      budget: body.budget,
      expiresAt: body.expiresAt === undefined || body.expiresAt === null ? body.expiresAt : parseTime(body.expiresAt, 'expiresAt'),
    });
    return reply.status(201).send(withIsoTimes(created));
  });

  app.post(`${base}/:id/revoke`, async (request) => {
    const workspace = await workspaceOf(request, services, 'admin');
    return withIsoTimes(await services.keys.revoke(workspace, (request.params as { id: string }).id));
  });

  app.post(`${base}/:id/rotate`, { schema: { body: rotateSchema } }, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const { graceMinutes } = request.body as Static<typeof rotateSchema>;
    return reply.status(201).send(withIsoTimes(await services.keys.rotate(workspace, (request.params as { id: string }).id, graceMinutes)));
  });
}
