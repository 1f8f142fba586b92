import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { errors } from '../lib/errors.js';
import type { GatewayMetrics } from './metrics.js';

export interface MetricsRouteOptions {
  readonly metrics: GatewayMetrics;
  /** When set, scrapes must send `Authorization: Bearer <token>` (MODELPORT_METRICS_TOKEN). */
  readonly token: string | undefined;
}

/** `GET /metrics`: Prometheus text format, optionally behind a bearer token. */
export function registerMetricsRoute(app: FastifyInstance, options: MetricsRouteOptions): void {
  const expected = options.token === undefined ? undefined : Buffer.from(`Bearer ${options.token}`);
  app.get('/metrics', async (request, reply) => {
    if (expected !== undefined) {
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw errors.invalidApiKey('This endpoint needs "Authorization: Bearer <MODELPORT_METRICS_TOKEN>".');
      }
    }
    void reply.header('content-type', options.metrics.contentType);
    return options.metrics.render();
  });
}
