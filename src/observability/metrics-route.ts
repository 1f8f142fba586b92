import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { errors } from '../lib/errors.js';
import type { GatewayMetrics } from './metrics.js';

export interface MetricsRouteOptions {
  readonly metrics: GatewayMetrics;
  /** When set, scrapes must send `Authorization: Bearer <token>` (MODELPORT_METRICS_TOKEN), whatever `public` says. */
  readonly token: string | undefined;
  /**
   * Without a token, whether anyone may scrape (MODELPORT_METRICS_PUBLIC; by default, only when accounts cannot sign
   * up). Not public and no token: every scrape is refused with 401, and the server says so once when it starts.
   */
  readonly public: boolean;
}

/** How `GET /metrics` is guarded: a bearer token, nobody (public), or refused until the operator sets a token. */
type MetricsAccess = 'token' | 'public' | 'refused';

function metricsAccess(options: Pick<MetricsRouteOptions, 'token' | 'public'>): MetricsAccess {
  if (options.token !== undefined) return 'token';
  return options.public ? 'public' : 'refused';
}

const REFUSED_SCRAPE = 'GET /metrics needs a bearer token, and the operator has set none (MODELPORT_METRICS_TOKEN).';
const REFUSED_AT_START =
  'GET /metrics is refused: it is not public (accounts can sign up, or MODELPORT_METRICS_PUBLIC=false) and MODELPORT_METRICS_TOKEN is not set. Set the token for your scraper, ' +
  'or set MODELPORT_METRICS_PUBLIC=true if only you can reach /metrics (docs/security.md).';

/** `GET /metrics`: Prometheus text format, behind a bearer token unless the operator made it public. */
export function registerMetricsRoute(app: FastifyInstance, options: MetricsRouteOptions): void {
  const access = metricsAccess(options);
  const expected = options.token === undefined ? undefined : Buffer.from(`Bearer ${options.token}`);
  if (access === 'refused') app.log.warn(REFUSED_AT_START);
  app.get('/metrics', async (request, reply) => {
    if (access === 'refused') throw errors.invalidApiKey(REFUSED_SCRAPE);
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
