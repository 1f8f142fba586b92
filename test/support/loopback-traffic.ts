import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * What a command-line client sends, seen from 127.0.0.1: a recording server it is pointed at (answering itself or
 * passing each request on to the gateway), and a proxy that catches whatever it tries to send anywhere else.
 */

export interface CapturedRequest {
  readonly method: string;
  /** Path and query, e.g. `/api/router/v1/messages?beta=true`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown;
  /** The status the client got back (0 when the answer never started). */
  status: number;
}

export interface ScriptedAnswer {
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

export type RecordingMode =
  /** Pass every request on to this origin and stream its answer back unchanged. */
  | { readonly forwardTo: string }
  /** Answer every request from a script. */
  | { readonly answer: (request: CapturedRequest) => ScriptedAnswer };

export interface RecordingServer {
  /** e.g. http://127.0.0.1:PORT */
  readonly origin: string;
  /** Every request, in arrival order. */
  readonly requests: readonly CapturedRequest[];
  reset(): void;
  close(): Promise<void>;
}

interface Listening {
  readonly origin: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<Listening> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

export async function startRecordingServer(mode: RecordingMode): Promise<RecordingServer> {
  const requests: CapturedRequest[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const raw = Buffer.concat(chunks);
      const captured: CapturedRequest = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        rawBody: raw.toString('utf8'),
        body: parseJson(raw.toString('utf8')),
        status: 0,
      };
      requests.push(captured);
      if ('answer' in mode) {
        const answer = mode.answer(captured);
        captured.status = answer.status ?? 200;
        outgoing.writeHead(captured.status, { ...answer.headers });
        outgoing.end(answer.body);
        return;
      }
      const target = new URL(captured.path, mode.forwardTo);
      const upstream = httpRequest(target, { method: captured.method, headers: { ...incoming.headers, host: target.host } }, (answer) => {
        captured.status = answer.statusCode ?? 0;
        outgoing.writeHead(captured.status, answer.rawHeaders);
        // Streamed answers pass through as they come, so the client sees the gateway's event timing.
        answer.pipe(outgoing);
      });
      upstream.on('error', () => outgoing.destroy());
      outgoing.on('close', () => upstream.destroy());
      upstream.end(raw);
    });
  });
  const listening = await listen(server);
  return {
    origin: listening.origin,
    requests,
    reset: () => {
      requests.length = 0;
    },
    close: () => listening.close(),
  };
}

export interface EgressAttempt {
  /** `connect` for HTTPS (a CONNECT tunnel), `http` for a plain request sent through the proxy. */
  readonly kind: 'connect' | 'http';
  /** `host:port` of a CONNECT, the absolute URL of a plain request. */
  readonly target: string;
}

export interface EgressTrap {
  /** Every attempt to reach a host other than loopback, in order. */
  readonly attempts: readonly EgressAttempt[];
  /**
   * Proxy variables for a child process (both spellings: Rust's reqwest and git read the lower-case ones first, Bun
   * and Node the upper-case ones). Loopback is exempt, so the gateway is reached directly and all else lands here.
   */
  readonly env: Readonly<Record<string, string>>;
  reset(): void;
  close(): Promise<void>;
}

/**
 * A proxy on 127.0.0.1 that refuses every request and records where it was going. The machine may have no network
 * at all, where a stray request would fail silently; through the trap it becomes something a test can assert on.
 */
export async function startEgressTrap(): Promise<EgressTrap> {
  const attempts: EgressAttempt[] = [];
  const server = createServer((incoming, outgoing) => {
    attempts.push({ kind: 'http', target: incoming.url ?? '' });
    outgoing.writeHead(403, { 'content-type': 'text/plain' });
    outgoing.end('blocked by the test: no traffic may leave loopback\n');
  });
  server.on('connect', (incoming, socket: Socket) => {
    attempts.push({ kind: 'connect', target: incoming.url ?? '' });
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  const listening = await listen(server);
  const proxy = listening.origin;
  const exempt = '127.0.0.1,localhost,::1';
  return {
    attempts,
    env: {
      HTTP_PROXY: proxy,
      HTTPS_PROXY: proxy,
      ALL_PROXY: proxy,
      NO_PROXY: exempt,
      http_proxy: proxy,
      https_proxy: proxy,
      all_proxy: proxy,
      no_proxy: exempt,
    },
    reset: () => {
      attempts.length = 0;
    },
    close: () => listening.close(),
  };
}
