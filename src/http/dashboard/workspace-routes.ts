import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { SessionView, WorkspaceView } from '../../dashboard/dashboard-api-types.js';
import { errors } from '../../lib/errors.js';
import { DASHBOARD_PREFIX, sessionOf, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';

const roleSchema = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('viewer')]);
const newMemberSchema = Type.Object({ email: Type.String({ maxLength: 320 }), role: roleSchema }, { additionalProperties: false });
const roleChangeSchema = Type.Object({ role: roleSchema }, { additionalProperties: false });
const newOrganizationSchema = Type.Object({ name: Type.String({ maxLength: 200 }) }, { additionalProperties: false });

/** The session, organisations and their members. */
export function registerWorkspaceRoutes(app: FastifyInstance, { services }: DashboardContext): void {
  const currentUser = async (userId: string) => {
    const user = await services.repositories.users.findById(userId);
    if (user === undefined) throw errors.sessionRequired();
    return user;
  };

  app.get(`${DASHBOARD_PREFIX}/session`, async (request): Promise<SessionView> => {
    const session = sessionOf(request);
    const user = await currentUser(session.userId);
    const workspaces = await services.workspaces.listForUser(user.id, user.email);
    return {
      user: { id: user.id, email: user.email },
      csrfToken: session.csrfToken,
      workspaces: workspaces.map(({ id, name, kind, role }) => ({ id, name, kind, role })),
    };
  });

  app.post(`${DASHBOARD_PREFIX}/organizations`, { schema: { body: newOrganizationSchema } }, async (request, reply) => {
    const { name } = request.body as Static<typeof newOrganizationSchema>;
    const workspace = await services.workspaces.createOrganization(sessionOf(request).userId, name);
    return reply.status(201).send({ id: workspace.id, name: workspace.name, kind: workspace.kind, role: workspace.role } satisfies WorkspaceView);
  });

  app.get(`${DASHBOARD_PREFIX}/workspaces/:ws/members`, async (request) => {
    const workspace = await workspaceOf(request, services);
    const user = await currentUser(sessionOf(request).userId);
    return withIsoTimes({ members: await services.workspaces.listMembers(workspace, { id: user.id, email: user.email, createdAt: user.created_at }) });
  });

  app.post(`${DASHBOARD_PREFIX}/workspaces/:ws/members`, { schema: { body: newMemberSchema } }, async (request, reply) => {
    const workspace = await workspaceOf(request, services, 'owner');
    const { email, role } = request.body as Static<typeof newMemberSchema>;
    return reply.status(201).send(withIsoTimes(await services.workspaces.addMember(workspace, email, role)));
  });

  app.patch(`${DASHBOARD_PREFIX}/workspaces/:ws/members/:userId`, { schema: { body: roleChangeSchema } }, async (request) => {
    const workspace = await workspaceOf(request, services, 'owner');
    const { userId } = request.params as { userId: string };
    return withIsoTimes(await services.workspaces.changeRole(workspace, userId, (request.body as Static<typeof roleChangeSchema>).role));
  });

  app.delete(`${DASHBOARD_PREFIX}/workspaces/:ws/members/:userId`, async (request, reply) => {
    const { userId } = request.params as { userId: string };
    // Owners remove anyone; any member may leave.
    const workspace = await workspaceOf(request, services, userId === sessionOf(request).userId ? 'viewer' : 'owner');
    await services.workspaces.removeMember(workspace, userId);
    return reply.status(204).send();
  });
}
