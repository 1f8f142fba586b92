import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { redactApiKeys } from '../auth/api-key-format.js';
import { errors, GatewayError } from '../lib/errors.js';
import { createTimeOrderedIdSource } from '../lib/random-id.js';
import type { RequestActivity } from '../lib/request-activity.js';
import type { AppDependencies } from './dependencies.js';
import { installErrorHandling } from './error-handler.js';
import { parseJsonBody } from './json-body.js';
import { parseQueryString } from './query-string.js';
import { MAX_REQUEST_HEADERS, requestDefect } from './request-defects.js';
import { requestLoggerFactory } from './request-logger.js';
import { routerApi } from './router-api.js';
import { dashboardApi } from './dashboard/dashboard-api.js';
import { DEFAULT_WEB_ROOT, staticSite } from './dashboard/static-site.js';
import { registerMetricsRoute } from '../observability/metrics-route.js';

export interface ServerOptions {
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  /**
   * Time a client has to send its whole request (headers and body), answered
   * with 408 after it; the response may take as long as the model needs.
   * @default 60000
   */
  readonly requestTimeoutMs?: number | undefined;
  /**
   * Time a client has to send its request line and headers (408 after it, or the connection closed): a client that
   * stops mid-header, or sends a request line the parser reads as HTTP/0.9, is let go this soon. At most
   * `requestTimeoutMs`.
   * @default 10000
   */
  readonly headersTimeoutMs?: number | undefined;
  /** When set, every answer names this worker (its pid) in `x-modelport-worker` (multi-process mode, MODELPORT_WORKER_HEADER). */
  readonly workerId?: number | undefined;
  /** Told of every request's start and end (the idle collector, src/lib/idle-collector.ts). */
  readonly activity?: RequestActivity | undefined;
}

/** Builds the HTTP server from its dependencies; no globals, nothing read from the environment. */
export async function createServer(deps: AppDependencies, options: ServerOptions = {}): Promise<FastifyInstance> {
  const trustProxy = deps.settings.trustedProxies.length > 0 ? [...deps.settings.trustedProxies] : false;
  const requestTimeout = options.requestTimeoutMs ?? 60_000;
  const headersTimeout = Math.min(options.headersTimeoutMs ?? 10_000, requestTimeout > 0 ? requestTimeout : Number.POSITIVE_INFINITY);
  // Node only honours the timeouts given when the server is built (Fastify assigns requestTimeout afterwards), and
  // checks them every connectionsCheckingInterval (30 s by default). requireHostHeader off: Node would answer a missing
  // Host with an empty 400 of its own; requestDefect (request-defects.ts) answers it in the error shape instead.
  const nodeServerOptions = {
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(Math.min(requestTimeout, headersTimeout) / 4))),
    requireHostHeader: false,
  };
  // Time-ordered (the usage records' primary key); one CSPRNG call per few hundred ids, not one per request.
  const requestId = createTimeOrderedIdSource('req_');
  const app = Fastify({
    loggerInstance: deps.logger,
    // One line per request is written by our onResponse hook instead (no headers, so no keys).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    // request.log becomes a pino child only when the request writes a line (request-logger.ts).
    childLoggerFactory: requestLoggerFactory,
    bodyLimit: deps.settings.bodyLimitBytes,
    trustProxy,
    genReqId: requestId,
    requestIdHeader: false,
    // Requests that arrive while closing get our own 503 body (see the onRequest hook below).
    return503OnClosing: false,
    forceCloseConnections: false,
    // Fastify's default (0) lets a client hold a socket forever by sending its body slowly.
    requestTimeout,
    // Malformed HTTP, oversized headers and bad URLs never reach a route: answer them in our error shape too.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Duplex) => {
      // Only the code: the error carries the raw request bytes, Authorization header included.
      deps.logger.debug({ code: error.code }, 'malformed HTTP request refused');
      answerClientError(error, socket);
    },
    frameworkErrors: (error: FastifyError, _request: FastifyRequest, reply: FastifyReply) => {
      const detail = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'the router id in the path is longer than 100 characters.' : 'it contains an invalid percent-encoding.';
      const gatewayError = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? errors.invalidUrl(detail) : errors.internal();
      void reply.status(gatewayError.status).send(gatewayError.toBody());
    },
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    // Repeated, oversized, control-character and malformed query parameters are refused by one rule (query-string.ts).
    routerOptions: { querystringParser: parseQueryString },
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key, ...nodeServerOptions } } : { http: nodeServerOptions }),
  }) as unknown as FastifyInstance;

  // Bodies are JSON whatever Content-Type says (curl -d sends form encoding by default).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  installErrorHandling(app, deps.settings.bodyLimitBytes);
  // Node stops reading headers at this count and drops the rest; requestDefect refuses a request that reaches it.
  app.server.maxHeadersCount = MAX_REQUEST_HEADERS;
  // Node answers an Expect header other than 100-continue itself, with an empty 417: use our body.
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const error = errors.expectationFailed();
    const body = JSON.stringify(error.toBody());
    response.writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    response.end(body);
  });
  // Node closes a CONNECT without a word when nothing listens for it: answer it as any method no route takes.
  app.server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    writeErrorAndClose(socket, errors.methodNotAllowed('CONNECT', (request.url ?? '').slice(0, 200)));
  });
  let closing = false;
  let idleCloser: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    // A keep-alive connection whose request was in flight goes idle once answered; left open it would hold the
    // drain until the shutdown timeout. Closed as soon as it is idle, its client reconnects to another instance.
    idleCloser = setInterval(() => app.server.closeIdleConnections(), 100).unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(idleCloser);
  });
  // Hooks on every request are synchronous (done) where they need not wait: an async hook costs a promise and a
  // microtask turn per request.
  const activity = options.activity;
  app.addHook('onRequest', (request, _reply, done) => {
    activity?.note(request.url);
    done(closing ? errors.shuttingDown() : requestDefect(request.raw, request.query));
  });
  const workerId = options.workerId;
  if (workerId !== undefined) {
    app.addHook('onRequest', async (_request, reply) => {
      void reply.header('x-modelport-worker', String(workerId));
    });
  }
  app.get('/healthz', async () => ({ status: 'ok' }));
  if (deps.metrics !== undefined) registerMetricsRoute(app, { metrics: deps.metrics, token: deps.settings.metricsToken, public: deps.settings.metricsPublic ?? false });
  await app.register(routerApi, deps);
  registerBaseUrlHints(app);
  if (deps.dashboard !== undefined) {
    await app.register(dashboardApi, { deps, services: deps.dashboard.services });
    await app.register(staticSite, { root: deps.dashboard.webRoot ?? DEFAULT_WEB_ROOT });
  }
  app.addHook('onResponse', (request, reply, done) => {
    activity?.note(request.url);
    // The level is checked first: below info the line costs nothing on the hot path.
    if (deps.logger.isLevelEnabled('info')) {
      const url = redactApiKeys(request.url.split('?')[0] ?? '');
      request.log.info({ method: request.method, url, status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request');
    }
    done();
  });
  return app;
}

/** Client API paths as clients call them when their base URL lacks /api/router (OpenAI's and Anthropic's own layouts). */
const MISPLACED_CLIENT_PATHS = ['/v1/chat/completions', '/v1/messages', '/v1/responses', '/v1/embeddings', '/v1/models', '/chat/completions', '/responses', '/embeddings', '/models'];

/**
 * A client whose base URL is the server's root gets a 404 that names the right one, in the error shape its SDK
 * shows, rather than a bare "unknown endpoint".
 */
function registerBaseUrlHints(app: FastifyInstance): void {
  for (const path of MISPLACED_CLIENT_PATHS) {
    app.all(path, async (request, reply) => {
      const origin = `${request.protocol}://${request.host}`;
      const where =
        path === '/v1/messages'
          ? `Anthropic's Messages API is at ${origin}/api/router/v1/messages: set the client's base URL to ${origin}/api/router.`
          : `The OpenAI-compatible API is under ${origin}/api/router/v1 (or ${origin}/api/router): set the client's base URL to it, e.g. ${request.method} ${origin}/api/router${path.startsWith('/v1/') ? path : `/v1${path}`}.`;
      const error = new GatewayError(404, 'not_found_error', 'endpoint_not_found', `Unknown endpoint: ${request.method} ${path}. ${where}`);
      return reply.status(404).send(error.toBody());
    });
  }
}

/** Node's HTTP parser refused the request; answer in our error shape (never echoing the raw bytes, which hold the key). */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const gatewayError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? errors.headersTooLarge()
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errors.requestTimeout()
        : errors.malformedHttp();
  writeErrorAndClose(socket, gatewayError);
}

/** An error answer written straight on the socket, for requests that never become a Fastify request. */
function writeErrorAndClose(socket: Duplex, gatewayError: GatewayError): void {
  const body = JSON.stringify(gatewayError.toBody());
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${gatewayError.status} ${STATUS_CODES[gatewayError.status] ?? ''}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
