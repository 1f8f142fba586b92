import assert from 'node:assert/strict';
import { connect } from 'node:net';

/** What came back, with the body parsed as JSON when it is JSON. */
export interface RawResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
  readonly json: unknown;
}

export interface RawRequest {
  readonly method?: string;
  /** Sent exactly as given (as UTF-8): no normalisation, no percent-encoding, no validation. */
  readonly path: string;
  /** Sent exactly as given, in order; a Content-Length is added for a body unless one is present. */
  readonly headers?: ReadonlyArray<readonly [string, string]>;
  readonly body?: string | Buffer;
  /** @default 5000 */
  readonly timeoutMs?: number;
}

/**
 * An HTTP/1.1 request written byte for byte on a TCP socket, so tests can send
 * what no well-behaved client would (invalid UTF-8, dot segments, odd headers).
 * `Connection: close` is always sent, so the response ends with the socket.
 */
export function rawRequest(origin: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(origin);
  const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
  const headers = [...(request.headers ?? [])];
  const has = (name: string) => headers.some(([header]) => header.toLowerCase() === name);
  if (!has('host')) headers.unshift(['Host', url.host]);
  if (body !== undefined && !has('content-length') && !has('transfer-encoding')) headers.push(['Content-Length', String(body.length)]);
  headers.push(['Connection', 'close']);
  const head = `${request.method ?? 'GET'} ${request.path} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;

  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no complete response within ${request.timeoutMs ?? 5000} ms for ${request.method ?? 'GET'} ${request.path.slice(0, 200)}`));
    }, request.timeoutMs ?? 5000);
    socket.on('connect', () => {
      socket.write(Buffer.from(head, 'utf8'));
      if (body !== undefined) socket.write(body);
    });
    // Done at the end of the framed body (a server may keep the socket open), or when the socket closes.
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const received = Buffer.concat(chunks);
      if (isComplete(received, request.method === 'HEAD')) {
        clearTimeout(timer);
        socket.destroy();
        try {
          resolve(parseResponse(received, request.method === 'HEAD'));
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
    // The server may answer (and close) before it has read the whole body: keep what arrived.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (chunks.length === 0) {
        clearTimeout(timer);
        reject(error);
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      try {
        resolve(parseResponse(Buffer.concat(chunks), request.method === 'HEAD'));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** What the server sent back to `rawExchange` before it closed the connection, and how long that took. */
export interface RawExchange {
  /** `undefined` when the server closed the connection without answering. */
  readonly response: RawResponse | undefined;
  readonly closedAfterMs: number;
}

/**
 * Bytes written exactly as given, without the request framing `rawRequest` adds (no Host, no
 * `Connection: close`, no version), for requests Node's parser itself must judge. Resolves when the
 * server closes the connection; rejects if it has not within `timeoutMs`.
 */
export function rawExchange(origin: string, bytes: string | Buffer, timeoutMs = 5000): Promise<RawExchange> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after ${timeoutMs} ms; received ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const received = Buffer.concat(chunks);
      try {
        resolve({ response: received.length === 0 ? undefined : parseResponse(received), closedAfterMs: performance.now() - started });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/** Drops interim 1xx responses (e.g. "100 Continue"): the final response follows them. */
function skipInterim(bytes: Buffer): Buffer {
  let rest = bytes;
  while (/^HTTP\/1\.[01] 1\d\d /.test(rest.subarray(0, 16).toString('latin1'))) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return Buffer.alloc(0);
    rest = rest.subarray(end + 4);
  }
  return rest;
}

function isComplete(received: Buffer, head: boolean): boolean {
  const bytes = skipInterim(received);
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return false;
  if (head) return true;
  const headers = bytes.subarray(0, end).toString('latin1').toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(headers);
  if (length !== null) return bytes.length - end - 4 >= Number(length[1]);
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(headers)) return bytes.subarray(end + 4).includes('0\r\n\r\n') && bytes.subarray(bytes.length - 5).toString('latin1') === '0\r\n\r\n';
  return false;
}

function parseResponse(received: Buffer, head = false): RawResponse {
  const bytes = skipInterim(received);
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`incomplete HTTP response: ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (status === null) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  let body = head ? Buffer.alloc(0) : bytes.subarray(end + 4);
  if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) body = decodeChunked(body);
  else if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: Number(status[1]), headers, text, json };
}

function decodeChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(body.subarray(offset, lineEnd).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

export interface ExpectedError {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  /** @default null */
  readonly param?: string | null;
  /** Each must occur in error.message (case-insensitive). */
  readonly messageIncludes?: readonly string[];
}

interface ErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly code: string; readonly param: string | null };
}

/** The whole error contract: status, JSON content type, exact type/code/param, a helpful message. */
export function assertError(response: { status: number; headers: Readonly<Record<string, string>>; json: unknown; text?: string }, expected: ExpectedError): ErrorBody['error'] {
  const context = `status ${response.status}, body ${JSON.stringify(response.json ?? response.text)}`;
  assert.equal(response.status, expected.status, context);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/, context);
  const body = response.json as ErrorBody;
  assert.equal(typeof body, 'object', context);
  assert.deepEqual(Object.keys(body), ['error'], context);
  const { message, type, code, param } = body.error;
  assert.deepEqual({ type, code, param }, { type: expected.type, code: expected.code, param: expected.param ?? null }, context);
  assert.equal(typeof message, 'string', context);
  assert.ok(message.length > 0, context);
  for (const words of expected.messageIncludes ?? []) assert.ok(message.toLowerCase().includes(words.toLowerCase()), `message ${JSON.stringify(message)} lacks ${JSON.stringify(words)}`);
  return body.error;
}

/** A fetch Response reduced to what assertError reads. */
export async function readFetchResponse(response: Response): Promise<RawResponse> {
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), text, json };
}
