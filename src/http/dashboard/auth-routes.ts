import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../auth/sessions.js';
import type { AccountUser } from '../../dashboard/accounts.js';
import type { AuthView } from '../../dashboard/dashboard-api-types.js';
import { DASHBOARD_PREFIX, sessionOf, type DashboardContext } from './dashboard-context.js';

const credentialsSchema = Type.Object({ email: Type.String({ maxLength: 320 }), password: Type.String() }, { additionalProperties: false });
type Credentials = Static<typeof credentialsSchema>;

/** Sign-up, sign-in, sign-out. */
export function registerAuthRoutes(app: FastifyInstance, { services }: DashboardContext): void {
  const startSession = async (request: FastifyRequest, reply: FastifyReply, user: AccountUser): Promise<AuthView> => {
    const { token, session } = await services.sessions.create(user.id);
    void reply.setCookie(SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'lax',
      path: '/',
      secure: request.protocol === 'https',
      maxAge: services.sessions.cookieMaxAgeSeconds,
    });
    return { user: { id: user.id, email: user.email }, csrfToken: session.csrfToken };
  };

  app.post(`${DASHBOARD_PREFIX}/auth/signup`, { schema: { body: credentialsSchema }, config: { dashboardPublic: true } }, async (request, reply) => {
    const body = request.body as Credentials;
    const user = await services.accounts.signUp(body.email, body.password, request.ip);
    const answer = await startSession(request, reply, user);
    return reply.status(201).send(answer);
  });

  app.post(`${DASHBOARD_PREFIX}/auth/signin`, { schema: { body: credentialsSchema }, config: { dashboardPublic: true } }, async (request, reply) => {
    const body = request.body as Credentials;
    const user = await services.accounts.signIn(body.email, body.password, request.ip);
    return startSession(request, reply, user);
  });

  app.post(`${DASHBOARD_PREFIX}/auth/signout`, async (request, reply) => {
    await services.sessions.destroy(sessionOf(request));
    void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https' });
    return reply.status(204).send();
  });
}
