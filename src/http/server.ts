import { randomBytes } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { AppDependencies } from './dependencies.js';
import { installErrorHandling } from './error-handler.js';
import { routerApi } from './router-api.js';

export interface ServerOptions {
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer } | undefined;
}

/** Builds the HTTP server from its dependencies; no globals, nothing read from the environment. */
export async function createServer(deps: AppDependencies, options: ServerOptions = {}): Promise<FastifyInstance> {
  const trustProxy = deps.settings.trustedProxies.length > 0 ? [...deps.settings.trustedProxies] : false;
  const app = Fastify({
    loggerInstance: deps.logger,
    // One line per request is written by our onResponse hook instead (no headers, so no keys).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'requestId' }),
    bodyLimit: deps.settings.bodyLimitBytes,
    trustProxy,
    genReqId: () => `req_${randomBytes(12).toString('base64url')}`,
    requestIdHeader: false,
    return503OnClosing: true,
    forceCloseConnections: false,
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
    ...(options.tls ? { https: { cert: options.tls.cert, key: options.tls.key } } : {}),
  }) as unknown as FastifyInstance;

  // Bodies are JSON whatever Content-Type says (curl -d sends form encoding by default).
  app.removeContentTypeParser(['application/json']);
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(Object.assign(new Error('empty body'), { code: 'FST_ERR_CTP_EMPTY_JSON_BODY', statusCode: 400 }), undefined);
      return;
    }
    try {
      done(null, JSON.parse(text, rejectPrototypeKeys));
    } catch (error) {
      done(Object.assign(error as Error, { statusCode: 400 }), undefined);
    }
  });

  installErrorHandling(app, deps.settings.bodyLimitBytes);
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.register(routerApi, deps);
  app.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime * 100) / 100 }, 'request');
  });
  return app;
}

/** Drops `__proto__` keys so a body can never reach Object.prototype. */
function rejectPrototypeKeys(key: string, value: unknown): unknown {
  return key === '__proto__' ? undefined : value;
}
