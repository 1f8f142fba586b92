import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify from 'fastify';
import { Pool } from 'undici';

/**
 * The floor Node sets for a proxy on this machine: the least an HTTP gateway in
 * front of the stand-in upstream can cost. `node:http` in, one undici Pool out,
 * the same two hops as the gateway and nothing else: no key, no limits, no
 * routing, no accounting. With BARE_PROXY_JSON=1 it also parses both bodies and
 * serialises the answer again (the least a gateway that reads them pays). With
 * BARE_PROXY_FASTIFY=1 the same JSON proxy is one Fastify route (async handler,
 * Fastify's JSON parser and serialiser, no hooks, no schema, no logger).
 * The bare proxy (neither setting) passes a streamed answer (`"stream":true` in the
 * request) through as it arrives, chunk by chunk: the floor for time to first byte.
 *
 * Env: BARE_PROXY_UPSTREAM (origin), BARE_PROXY_JSON, BARE_PROXY_FASTIFY. Prints `{"port":N}` once
 * listening; exits when stdin closes, as the upstream does.
 */

const upstream = process.env.BARE_PROXY_UPSTREAM ?? 'http://127.0.0.1:1';
const parseJson = process.env.BARE_PROXY_JSON === '1';
const pool = new Pool(upstream, { pipelining: 1, keepAliveTimeout: 60_000 });

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

async function proxy(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const incoming = await readBody(request);
  const body = parseJson ? JSON.stringify(JSON.parse(incoming.toString('utf8'))) : incoming;
  const answer = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
    body,
  });
  if (!parseJson && incoming.includes('"stream":true')) {
    response.writeHead(answer.statusCode, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    for await (const chunk of answer.body) response.write(chunk);
    response.end();
    return;
  }
  const text = await answer.body.text();
  const out = parseJson ? JSON.stringify(JSON.parse(text)) : text;
  response.writeHead(answer.statusCode, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(out) });
  response.end(out);
}

const printPort = (address: ReturnType<typeof server.address>) => {
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`);
};

const server =
  process.env.BARE_PROXY_FASTIFY === '1'
    ? fastifyProxy()
    : createServer((request, response) => {
        proxy(request, response).catch((error: unknown) => {
          response.statusCode = 502;
          response.end(String(error));
        });
      });
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.BARE_PROXY_PORT ?? '0'), '127.0.0.1', () => printPort(server.address()));

function fastifyProxy() {
  const app = Fastify({ logger: false, keepAliveTimeout: 60_000 });
  app.post('/v1/chat/completions', async (request) => {
    const answer = await pool.request({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-bench' },
      body: JSON.stringify(request.body),
    });
    return JSON.parse(await answer.body.text()) as unknown;
  });
  void app.ready();
  return app.server;
}
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
