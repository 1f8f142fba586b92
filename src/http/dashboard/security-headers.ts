import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/** HSTS as helmet sets it by default (a year, subdomains included), sent only on answers that came over HTTPS. */
const HSTS_VALUE = 'max-age=31536000; includeSubDomains';

/**
 * What the built web app (web/dist: Vite, React, Mantine, Recharts) loads, and nothing else (default-src 'none'): its
 * own scripts, styles and fonts, `data:` images (the favicon is a data: SVG), fetches to its own API. Mantine writes its
 * theme's CSS variables and responsive styles into <style> elements, and its modals' scroll lock (react-remove-scroll)
 * adds one: those carry the style nonce helmet adds to style-src for each answer, which index.html hands the app in
 * `<meta property="csp-nonce">`, so style-src needs no 'unsafe-inline'. React sets `style` props through the CSSOM,
 * which CSP does not govern. `upgrade-insecure-requests` is left out: over plain HTTP (the quick start) it would send
 * the app's own assets to an https:// origin that does not answer; over HTTPS every source is already https.
 */
const SITE_DIRECTIVES = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
};

/** JSON answers load nothing and are never framed. */
const API_DIRECTIVES = { defaultSrc: ["'none'"], frameAncestors: ["'none'"] };

/**
 * Headers of every dashboard answer. Referrer-Policy is `same-origin` (nothing goes to other origins), not
 * `no-referrer`: under `no-referrer` the Fetch standard ("append a request Origin header") sends `Origin: null` on a
 * same-origin POST, which the dashboard's CSRF check refuses (Chromium sends the origin anyway; others may not).
 */
const COMMON: FastifyHelmetOptions = {
  referrerPolicy: { policy: 'same-origin' },
  xFrameOptions: { action: 'deny' },
  // Set per answer below: only one that came over HTTPS (directly, or through a trusted proxy) may pin HTTPS.
  strictTransportSecurity: false,
};

/**
 * Helmet's headers for the web app's pages and assets (a CSP with a fresh style nonce per answer, read from
 * `reply.cspNonce.style`), in the plugin it is registered in and its children.
 */
export async function siteSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, { ...COMMON, enableCSPNonces: true, contentSecurityPolicy: { useDefaults: false, directives: SITE_DIRECTIVES } });
  addHsts(app);
}

/** Helmet's headers for the dashboard's JSON API, in the plugin it is registered in and its children. */
export async function apiSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, { ...COMMON, contentSecurityPolicy: { useDefaults: false, directives: API_DIRECTIVES } });
  addHsts(app);
}

function addHsts(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.protocol === 'https') void reply.header('strict-transport-security', HSTS_VALUE);
    done();
  });
}
