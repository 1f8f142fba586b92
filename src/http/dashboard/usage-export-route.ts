import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { USAGE_EXPORT_CONTENT, USAGE_EXPORT_FORMATS, usageExportFileName, usageExportFormat, usageExportStream } from '../../dashboard/usage-export.js';
import { resolveRange } from '../../dashboard/usage-report.js';
import { errors } from '../../lib/errors.js';
import { DASHBOARD_PREFIX, workspaceOf, type DashboardContext } from './dashboard-context.js';

const exportQuery = Type.Object({
  format: Type.Optional(Type.String()),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  routerId: Type.Optional(Type.String({ maxLength: 128 })),
  keyId: Type.Optional(Type.String({ maxLength: 128 })),
});

/**
 * A workspace's usage records over a range as one CSV or JSON-lines download, for billing and chargeback. The body is
 * streamed page by page as the client reads it; a client that goes away destroys the stream, which ends the reads.
 */
export function registerUsageExportRoute(app: FastifyInstance, { deps, services }: DashboardContext): void {
  app.get<{ Querystring: Static<typeof exportQuery> }>(`${DASHBOARD_PREFIX}/workspaces/:ws/usage/export`, { schema: { querystring: exportQuery } }, async (request, reply) => {
    const workspace = await workspaceOf(request, services);
    const query = request.query;
    const format = query.format === undefined ? 'csv' : usageExportFormat(query.format);
    if (format === undefined) throw errors.invalidRequest(`"format" must be ${USAGE_EXPORT_FORMATS.join(' or ')}.`, 'format');
    // The usage report's range rules: ISO 8601 or epoch ms, the last 24 hours by default, at most 366 days.
    const { from, to } = resolveRange({ from: query.from, to: query.to }, deps.now());
    const pages = services.usageExport.pages({ ownerId: workspace.id, from, to, routerId: query.routerId, keyId: query.keyId });
    void reply
      .header('content-type', USAGE_EXPORT_CONTENT[format].contentType)
      .header('content-disposition', `attachment; filename="${usageExportFileName(from, to, format)}"`);
    return reply.send(usageExportStream(pages, format));
  });
}
