import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE } from '../../auth/sessions.js';
import type { AccountUser } from '../../dashboard/accounts.js';
import type { AuthView, SignUpStatusView, SignUpView } from '../../dashboard/dashboard-api-types.js';
import { DASHBOARD_PREFIX, sessionOf, type DashboardContext } from './dashboard-context.js';

const credentialsSchema = Type.Object({ email: Type.String({ maxLength: 320 }), password: Type.String() }, { additionalProperties: false });
type Credentials = Static<typeof credentialsSchema>;
const verificationSchema = Type.Object({ token: Type.String({ maxLength: 100 }), password: Type.String() }, { additionalProperties: false });
type Verification = Static<typeof verificationSchema>;

/** Where the first start's one-time sign-in link points (the token in `?token=`). */
export const SIGN_IN_LINK_PATH = `${DASHBOARD_PREFIX}/auth/link`;

/** Sign-up and its confirmation, sign-in with a password or a one-time link, sign-out. */
export function registerAuthRoutes(app: FastifyInstance, { deps, services }: DashboardContext): void {
  // Anyone can call these: the IP's attempt is counted before the body is read (a throttled IP's body is never
  // buffered), and no more than a few KiB of a body is kept (413 past it).
  const preAuth = {
    bodyLimit: deps.settings.accountBodyLimitBytes ?? 16 * 1024,
    onRequest: async (request: FastifyRequest) => services.loginThrottle.admitAddress(request.ip),
    // Fastify closes the connection after a 413 while the client may still be sending, and a socket closed with
    // unread data is reset, which can destroy the answer before the client reads it. Kept open, Node discards the
    // rest of the body unbuffered (within the request timeout), as it does after the 429 above, and the client reads its 413.
    onSend: async (_request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      if (reply.statusCode === 413) reply.removeHeader('connection');
      return payload;
    },
  };
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

  app.post(`${DASHBOARD_PREFIX}/auth/signup`, { ...preAuth, schema: { body: credentialsSchema }, config: { dashboardPublic: true } }, async (request, reply) => {
    const body = request.body as Credentials;
    await services.accounts.signUp(body.email, body.password, request.ip);
    return reply.status(202).send({ verification: 'sent' } satisfies SignUpView);
  });

  app.get(`${DASHBOARD_PREFIX}/auth/signup`, { config: { dashboardPublic: true } }, async (): Promise<SignUpStatusView> => ({
    open: services.accounts.signUpOpen,
    firstStart: await services.accounts.firstStart(),
  }));

  // The one-time link the first start prints: a click signs its owner in and opens the dashboard. A used or expired
  // link lands on the sign-in page, which says why. The token rides in the query string, which the request log omits.
  app.get(
    SIGN_IN_LINK_PATH,
    { onRequest: preAuth.onRequest, config: { dashboardPublic: true } },
    async (request, reply) => {
      const { token } = request.query as { token?: unknown };
      const user = typeof token === 'string' ? await services.accounts.redeemSignInLink(token) : undefined;
      if (user === undefined) return reply.redirect('/signin?link=invalid', 303);
      await startSession(request, reply, user);
      return reply.redirect('/', 303);
    },
  );

  // The link mailed at sign-up, with the password chosen then: creates the account and signs it in.
  app.post(`${DASHBOARD_PREFIX}/auth/verify`, { ...preAuth, schema: { body: verificationSchema }, config: { dashboardPublic: true } }, async (request, reply) => {
    const body = request.body as Verification;
    const user = await services.accounts.verify(body.token, body.password, request.ip);
    const answer = await startSession(request, reply, user);
    return reply.status(201).send(answer);
  });

  app.post(`${DASHBOARD_PREFIX}/auth/signin`, { ...preAuth, schema: { body: credentialsSchema }, config: { dashboardPublic: true } }, async (request, reply) => {
    const body = request.body as Credentials;
    const user = await services.accounts.signIn(body.email, body.password, request.ip);
    return startSession(request, reply, user);
  });

  app.post(`${DASHBOARD_PREFIX}/auth/signout`, { bodyLimit: preAuth.bodyLimit }, async (request, reply) => {
    await services.sessions.destroy(sessionOf(request));
    void reply.clearCookie(SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: request.protocol === 'https' });
    return reply.status(204).send();
  });
}
