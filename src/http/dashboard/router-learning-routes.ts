import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { AdminInputError } from '../../admin/admin-errors.js';
import { resolveRange } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import { parseRoutingDataset, RoutingDataError } from '../../routing/auto/dataset.js';
import { DASHBOARD_PREFIX, sessionOf, withIsoTimes, workspaceOf, type DashboardContext } from './dashboard-context.js';
import { findWorkspaceRouter } from './router-routes.js';

/** The largest calibration upload: tens of thousands of labelled prompts, more than a fit needs. */
export const MAX_CALIBRATION_BYTES = 8 * 1024 * 1024;
/** Content types a JSON-lines upload may carry (what `curl --data-binary @file` and browsers send for such files). */
const JSON_LINES_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines', 'text/plain'];
const MAX_REQUEST_ID_LENGTH = 128;

const savingsQuery = Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()), bucket: Type.Optional(Type.String()) });
const calibrationQuery = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) });
const feedbackSchema = Type.Object(
  { score: Type.Number({ minimum: 0, maximum: 1 }), comment: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

/**
 * An `auto` router's learning (docs/dashboard-api.md): calibration uploads, savings against always using its
 * strongest model, and people's thumbs on its answers, with the CLI's rules (src/admin/router-learning.ts).
 */
export function registerRouterLearningRoutes(app: FastifyInstance, { deps, services }: DashboardContext): void {
  const base = `${DASHBOARD_PREFIX}/workspaces/:ws/routers/:id`;

  app.get<{ Querystring: Static<typeof savingsQuery> }>(`${base}/savings`, { schema: { querystring: savingsQuery } }, async (request) => {
    const workspace = await workspaceOf(request, services);
    const router = await findWorkspaceRouter(services, workspace, (request.params as { id: string }).id);
    const range = resolveRange(request.query, deps.now());
    try {
      return withIsoTimes(await services.routerLearning.savings(workspace.id, router.id, range));
    } catch (error) {
      if (error instanceof AdminInputError) throw errors.invalidRequest(error.message, 'bucket');
      throw error;
    }
  });

  // Its own scope: only this route reads JSON lines; everything else in the dashboard stays JSON.
  void app.register(async (scope) => {
    scope.addContentTypeParser(JSON_LINES_TYPES, { parseAs: 'string', bodyLimit: MAX_CALIBRATION_BYTES }, (_request, body, done) => done(null, body));
    scope.post<{ Querystring: Static<typeof calibrationQuery> }>(
      `${base}/calibration`,
      { bodyLimit: MAX_CALIBRATION_BYTES, schema: { querystring: calibrationQuery } },
      async (request) => {
        const workspace = await workspaceOf(request, services, 'admin');
        const router = await findWorkspaceRouter(services, workspace, (request.params as { id: string }).id);
        if (typeof request.body !== 'string') {
          throw errors.invalidRequest('Send the examples as JSON lines, one {"prompt", "scores"} object a line, with "Content-Type: application/x-ndjson".', null, 'invalid_type');
        }
        let examples;
        try {
          examples = parseRoutingDataset(request.body, request.query.name ?? 'Upload');
        } catch (error) {
          if (error instanceof RoutingDataError) throw errors.invalidRequest(error.message, 'body');
          throw error;
        }
        try {
          return await services.routerLearning.calibrate(workspace.id, router.id, examples);
        } catch (error) {
          if (error instanceof AdminInputError) throw errors.invalidRequest(error.message, error.field ?? 'body');
          throw error;
        }
      },
    );
  });

  app.post(`${DASHBOARD_PREFIX}/workspaces/:ws/usage/requests/:id/feedback`, { schema: { body: feedbackSchema } }, async (request) => {
    const workspace = await workspaceOf(request, services, 'admin');
    const { id } = request.params as { id: string };
    const body = request.body as Static<typeof feedbackSchema>;
    if (id.length > MAX_REQUEST_ID_LENGTH) throw errors.dashboardNotFound('request_not_found', 'No request with this id in this workspace.');
    const outcome = await services.routerLearning.feedback({ ownerId: workspace.id, requestId: id, raterId: `session:${sessionOf(request).userId}`, score: body.score, comment: body.comment });
    if (outcome.label === undefined) throw errors.dashboardNotFound('request_not_found', outcome.notFound);
    return withIsoTimes(outcome.label);
  });
}
