import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { errors } from '../../lib/errors.js';
import { siteSecurityHeaders } from './security-headers.js';

/** web/dist of this package, from src/http/dashboard or dist/http/dashboard alike. */
export const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../../web/dist', import.meta.url));

/**
 * The web app's client-side routes (their first path segment): index.html is
 * served for these, so other unknown paths keep their JSON 404. The web app adds
 * a top-level route here when it adds one (docs/dashboard-api.md, Static files).
 */
export const SPA_ROUTES: readonly string[] = ['signin', 'signup', 'routers', 'keys', 'usage', 'playground', 'settings', 'members', 'organizations', 'agents', 'executions'];

/**
 * Serves the built single-page app: files from `root`, index.html at `/` and on
 * the app's client-side routes, never for /api/… (those keep their JSON 404).
 * Without a build, `/` says how to make one. Every answer carries the site's security headers
 * (security-headers.ts), index.html the style nonce its CSP allows.
 */
export async function staticSite(app: FastifyInstance, options: { root: string }): Promise<void> {
  const root = resolve(options.root);
  const index = resolve(root, 'index.html');
  const built = existsSync(index);
  await siteSecurityHeaders(app);
  if (built) await app.register(fastifyStatic, { root, serve: false, cacheControl: false });

  app.get('/*', async (request, reply) => {
    const path = safeDecode((request.url.split('?')[0] ?? '/').replace(/\/+$/, '') || '/');
    if (path === '/api' || path.startsWith('/api/')) throw errors.endpointNotFound(request.method, request.url.split('?')[0] ?? '');
    const isAppRoute = path === '/' || SPA_ROUTES.includes(path.split('/')[1] ?? '');
    if (!built) {
      if (path === '/') return reply.status(200).send({ dashboard: 'not built', hint: 'Build the web app (npm run build:web), then restart the server.' });
      throw errors.endpointNotFound(request.method, request.url.split('?')[0] ?? '');
    }
    const file = resolve(root, `.${path}`);
    if (file === index) return sendIndex(reply, index);
    if (path !== '/' && (file === root || file.startsWith(root + sep)) && existsSync(file) && statSync(file).isFile()) {
      // Vite's hashed assets never change under the same name.
      const immutable = path.startsWith('/assets/');
      return reply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache').sendFile(file.slice(root.length + 1));
    }
    if (!isAppRoute) throw errors.endpointNotFound(request.method, request.url.split('?')[0] ?? '');
    return sendIndex(reply, index);
  });
}

/**
 * index.html with `<meta property="csp-nonce" nonce="…">` (Vite's convention) first in its head: the app gives
 * that nonce to the <style> elements it adds, which this answer's CSP allows. Read on each request, as a rebuilt
 * app is served without a restart; never cached under a validator, since a 304 would pair an old nonce with a new policy.
 */
async function sendIndex(reply: FastifyReply, index: string): Promise<FastifyReply> {
  const html = await readFile(index, 'utf8');
  const meta = `<meta property="csp-nonce" nonce="${reply.cspNonce.style}" />`;
  const head = /<head[^>]*>/i.exec(html);
  const page = head === null ? `${meta}${html}` : `${html.slice(0, head.index + head[0].length)}\n    ${meta}${html.slice(head.index + head[0].length)}`;
  return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(page);
}

function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
