import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server on 127.0.0.1 that speaks Anthropic's Messages API as
 * api.anthropic.com does (https://docs.claude.com/en/api/messages, /streaming,
 * /errors): POST /v1/messages with x-api-key and anthropic-version, complete
 * messages or `event: <type>\ndata: <json>\n\n` streams with pings, errors as
 * `{"type":"error","error":{type,message},"request_id":…}`. Each request takes the
 * next queued behaviour, else the handler's, else a plain text answer; every
 * request is recorded.
 */

export type FakeStopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

export type FakeBlock =
  /** `pieces`: how the text is cut into text_delta events. @default word by word, the space leading */
  | { readonly type: 'text'; readonly text: string; readonly pieces?: readonly string[] }
  /** `json`: the input as streamed, @default JSON.stringify(input); `pieceLength`: characters per input_json_delta, @default 5 */
  | { readonly type: 'tool_use'; readonly id?: string; readonly name: string; readonly input: Record<string, unknown>; readonly json?: string; readonly pieceLength?: number }
  | { readonly type: 'thinking'; readonly thinking: string; readonly signature?: string }
  | { readonly type: 'redacted_thinking'; readonly data: string }
  | { readonly type: 'server_tool_use'; readonly id?: string; readonly name: string; readonly input: Record<string, unknown> }
  | { readonly type: 'web_search_tool_result'; readonly tool_use_id: string; readonly content: readonly unknown[] };

export interface FakeUsage {
  readonly input_tokens: number;
  readonly output_tokens: number;
  readonly cache_creation_input_tokens?: number;
  readonly cache_read_input_tokens?: number;
}

/** How the bytes of a response travel. */
export interface FakeTransport {
  readonly delayBeforeHeadersMs?: number;
  /** Cut the body into pieces of these byte sizes (cycling), each its own write after a turn of the event loop. Default: one write per event. */
  readonly writeSizes?: readonly number[];
  /** After this many SSE events, reset the TCP connection (RST). */
  readonly resetAfterEvents?: number;
  /** After this many SSE events, send nothing more and never finish. */
  readonly hangAfterEvents?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A successful message, streamed or not as the request asks. */
export interface FakeAnswer {
  readonly type: 'answer';
  /** @default one text block, "Hello! How can I help you today?" */
  readonly content?: readonly FakeBlock[];
  /** @default "tool_use" with tool_use blocks, else "end_turn" */
  readonly stopReason?: FakeStopReason;
  /** The sequence that matched, with stopReason "stop_sequence". */
  readonly stopSequence?: string;
  /** @default a count from the request and the answer */
  readonly usage?: FakeUsage;
  /** @default the requested model */
  readonly model?: string;
  /** message_delta usage as older API versions sent it: `{"output_tokens":n}` only. */
  readonly legacyDeltaUsage?: boolean;
  /** Streams: after this many events, an `event: error` with this error, and the end. */
  readonly streamError?: { readonly afterEvents: number; readonly type: string; readonly message: string };
  readonly transport?: FakeTransport;
}

export interface FakeHttpError {
  readonly type: 'error';
  readonly status: number;
  /** An object is sent as JSON; a string as is. */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FakeRaw {
  readonly type: 'raw';
  /** @default 200 */
  readonly status?: number;
  /** @default text/event-stream headers */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  readonly transport?: FakeTransport;
}

export type FakeBehaviour = FakeAnswer | FakeHttpError | FakeRaw | { readonly type: 'hang' } | { readonly type: 'close-before-headers'; readonly reset?: boolean };

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The client's port: the same on two requests when the connection was reused. */
  readonly remotePort: number | undefined;
  readonly rawBody: string;
  readonly body: unknown;
  readonly behaviour: FakeBehaviour;
  /** True once the client closed the connection before the response was finished. */
  readonly aborted: boolean;
  readonly closed: Promise<void>;
}

export interface FakeAnthropic {
  /** The bare origin, what ANTHROPIC_BASE_URL takes. */
  readonly baseUrl: string;
  readonly requests: readonly RecordedRequest[];
  /** Requests to /v1/messages, in arrival order. */
  messageRequests(): readonly RecordedRequest[];
  enqueue(...behaviours: FakeBehaviour[]): void;
  setHandler(handler: ((request: RecordedRequest) => FakeBehaviour | undefined) | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const anthropicId = (prefix: string) => `${prefix}${[...randomBytes(22)].map((byte) => BASE58[byte % BASE58.length]).join('')}`;

/** Headers api.anthropic.com sends (values shaped like the real ones). */
function anthropicHeaders(contentType: string): Record<string, string> {
  const reset = new Date(Date.now() + 1_000).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    'content-type': contentType,
    'anthropic-organization-id': '3f1b6c2e-8d4a-4e7b-9c1d-5a2f0e9b7c3d',
    'anthropic-ratelimit-requests-limit': '4000',
    'anthropic-ratelimit-requests-remaining': '3999',
    'anthropic-ratelimit-requests-reset': reset,
    'anthropic-ratelimit-input-tokens-limit': '2000000',
    'anthropic-ratelimit-input-tokens-remaining': '2000000',
    'anthropic-ratelimit-input-tokens-reset': reset,
    'anthropic-ratelimit-output-tokens-limit': '400000',
    'anthropic-ratelimit-output-tokens-remaining': '400000',
    'anthropic-ratelimit-output-tokens-reset': reset,
    'request-id': anthropicId('req_011C'),
    'strict-transport-security': 'max-age=31536000; includeSubDomains; preload',
    via: '1.1 google',
    'cf-cache-status': 'DYNAMIC',
    'x-robots-tag': 'none',
    server: 'cloudflare',
    'cf-ray': `${randomBytes(8).toString('hex')}-SJC`,
  };
}

const errorBody = (type: string, message: string) => ({ type: 'error', error: { type, message }, request_id: anthropicId('req_011C') });
const httpError = (status: number, type: string, message: string, headers: Record<string, string> = {}): FakeHttpError => ({
  type: 'error',
  status,
  body: errorBody(type, message),
  headers: { 'x-should-retry': String(status === 408 || status === 409 || status === 429 || status >= 500), ...headers },
});

/** Anthropic's error answers, one per documented status (https://docs.claude.com/en/api/errors). */
export const anthropicErrors = {
  invalidRequest: (message = 'max_tokens: 200000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5-20250929') =>
    httpError(400, 'invalid_request_error', message),
  authentication: (message = 'invalid x-api-key') => httpError(401, 'authentication_error', message),
  permission: () => httpError(403, 'permission_error', 'Your API key does not have permission to use the specified resource.'),
  notFound: (model = 'claude-sonnet-4-5') => httpError(404, 'not_found_error', `model: ${model}`),
  requestTooLarge: () => httpError(413, 'request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
  rateLimited: (retryAfterSeconds = 30) =>
    httpError(
      429,
      'rate_limit_error',
      'This request would exceed the rate limit for your organization (3f1b6c2e-8d4a-4e7b-9c1d-5a2f0e9b7c3d) of 50 requests per minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. Please reduce the prompt length or the maximum tokens requested, or try again later.',
      { 'retry-after': String(retryAfterSeconds), 'anthropic-ratelimit-requests-remaining': '0' },
    ),
  apiError: () => httpError(500, 'api_error', 'Internal server error'),
  overloaded: () => httpError(529, 'overloaded_error', 'Overloaded'),
} as const;

/** What api.anthropic.com refuses before generating anything; the adapter must never send it. */
function requestError(body: unknown): FakeHttpError | undefined {
  if (typeof body !== 'object' || body === null) return anthropicErrors.invalidRequest('There was an error parsing the body of your request. Please ensure it is valid JSON.');
  const record = body as Record<string, unknown>;
  if (typeof record.model !== 'string') return anthropicErrors.invalidRequest('model: Field required');
  if (!Number.isInteger(record.max_tokens) || (record.max_tokens as number) < 1) return anthropicErrors.invalidRequest('max_tokens: Field required');
  if (!Array.isArray(record.messages) || record.messages.length === 0) return anthropicErrors.invalidRequest('messages: at least one message is required');
  if (typeof record.temperature === 'number' && (record.temperature < 0 || record.temperature > 1)) return anthropicErrors.invalidRequest('temperature: range: 0..1');
  if (record.tool_choice !== undefined && record.tools === undefined) return anthropicErrors.invalidRequest('tool_choice: tool_choice may only be specified while providing tools');
  for (const [index, message] of (record.messages as unknown[]).entries()) {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if (role !== 'user' && role !== 'assistant') return anthropicErrors.invalidRequest(`messages.${index}.role: Input should be 'user' or 'assistant'`);
    const blocks = typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as { type?: unknown; text?: unknown }[]) : undefined;
    if (blocks === undefined || blocks.length === 0) return anthropicErrors.invalidRequest(`messages.${index}: all messages must have non-empty content`);
    if (blocks.some((block) => block.type === 'text' && (typeof block.text !== 'string' || block.text.trim() === ''))) {
      return anthropicErrors.invalidRequest('messages: text content blocks must contain non-whitespace text');
    }
  }
  return undefined;
}

interface Resolved {
  readonly id: string;
  readonly model: string;
  readonly blocks: readonly FakeBlock[];
  readonly ids: readonly string[];
  readonly stopReason: FakeStopReason;
  readonly stopSequence: string | null;
  readonly usage: Required<FakeUsage>;
}

function resolve(answer: FakeAnswer, requestBody: unknown): Resolved {
  const record = (requestBody ?? {}) as { model?: unknown; messages?: unknown; stop_sequences?: unknown };
  const firstStop: unknown = Array.isArray(record.stop_sequences) ? (record.stop_sequences as unknown[])[0] : undefined;
  const requestedStop = typeof firstStop === 'string' ? firstStop : 'END';
  const blocks = answer.content ?? [{ type: 'text', text: 'Hello! How can I help you today?' }];
  const ids = blocks.map((block) => ('id' in block && block.id !== undefined ? block.id : anthropicId(block.type === 'server_tool_use' ? 'srvtoolu_01' : 'toolu_01')));
  const generated = JSON.stringify(blocks).length;
  const usage = answer.usage ?? { input_tokens: Math.max(1, Math.ceil(JSON.stringify(record.messages ?? '').length / 4)), output_tokens: Math.max(1, Math.ceil(generated / 4)) };
  return {
    id: anthropicId('msg_01'),
    model: answer.model ?? (typeof record.model === 'string' ? record.model : 'claude-sonnet-4-5-20250929'),
    blocks,
    ids,
    stopReason: answer.stopReason ?? (blocks.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stopSequence: answer.stopReason === 'stop_sequence' ? (answer.stopSequence ?? requestedStop) : null,
    usage: { cache_creation_input_tokens: 0, cache_read_input_tokens: 0, ...usage },
  };
}

function wireUsage(usage: Required<FakeUsage>, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: usage.input_tokens,
    cache_creation_input_tokens: usage.cache_creation_input_tokens,
    cache_read_input_tokens: usage.cache_read_input_tokens,
    cache_creation: { ephemeral_5m_input_tokens: usage.cache_creation_input_tokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

function completeBlock(block: FakeBlock, id: string): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
    case 'server_tool_use':
      return { type: block.type, id, name: block.name, input: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature ?? 'EqQBCkYIBxgCKkA' };
    default:
      return { ...block };
  }
}

/** The `message` object of a complete answer, keys in api.anthropic.com's order. */
export function messageObject(answer: FakeAnswer, requestBody: unknown): Record<string, unknown> {
  const resolved = resolve(answer, requestBody);
  return {
    model: resolved.model,
    id: resolved.id,
    type: 'message',
    role: 'assistant',
    content: resolved.blocks.map((block, index) => completeBlock(block, resolved.ids[index] ?? '')),
    stop_reason: resolved.stopReason,
    stop_sequence: resolved.stopSequence,
    usage: wireUsage(resolved.usage, resolved.usage.output_tokens),
  };
}

function cut(text: string, length: number): string[] {
  const characters = [...text];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += length) pieces.push(characters.slice(start, start + length).join(''));
  return pieces;
}

export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/** The events of a streamed answer: message_start, each block's start/deltas/stop (a ping after the first start), message_delta, message_stop. */
export function streamEvents(answer: FakeAnswer, requestBody: unknown): SseEvent[] {
  const resolved = resolve(answer, requestBody);
  const events: SseEvent[] = [];
  const push = (data: Record<string, unknown>) => events.push({ event: String(data.type), data: JSON.stringify(data) });
  const ping = () => push({ type: 'ping' });
  const delta = (index: number, value: Record<string, unknown>) => push({ type: 'content_block_delta', index, delta: value });
  const message = { model: resolved.model, id: resolved.id, type: 'message', role: 'assistant', content: [], stop_reason: null, stop_sequence: null };
  push({ type: 'message_start', message: { ...message, usage: wireUsage(resolved.usage, 1) } });
  if (resolved.blocks.length === 0) ping();
  resolved.blocks.forEach((block, index) => {
    const id = resolved.ids[index] ?? '';
    const start = (contentBlock: Record<string, unknown>) => {
      push({ type: 'content_block_start', index, content_block: contentBlock });
      if (index === 0) ping();
    };
    switch (block.type) {
      case 'text':
        start({ type: 'text', text: '' });
        for (const text of block.pieces ?? (block.text.match(/\s*\S+|\s+$/gu) ?? [])) delta(index, { type: 'text_delta', text });
        break;
      case 'tool_use':
      case 'server_tool_use': {
        start({ type: block.type, id, name: block.name, input: {} });
        const json = block.type === 'tool_use' && block.json !== undefined ? block.json : JSON.stringify(block.input);
        const pieceLength = block.type === 'tool_use' ? (block.pieceLength ?? 5) : 5;
        for (const partial_json of ['', ...cut(json, pieceLength)]) delta(index, { type: 'input_json_delta', partial_json });
        break;
      }
      case 'thinking':
        start({ type: 'thinking', thinking: '', signature: '' });
        for (const thinking of cut(block.thinking, 12)) delta(index, { type: 'thinking_delta', thinking });
        delta(index, { type: 'signature_delta', signature: block.signature ?? 'EqQBCkYIBxgCKkA' });
        break;
      default:
        start(completeBlock(block, id));
    }
    push({ type: 'content_block_stop', index });
  });
  const { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens } = resolved.usage;
  const usage = answer.legacyDeltaUsage ? { output_tokens } : { input_tokens, cache_creation_input_tokens, cache_read_input_tokens, output_tokens };
  push({ type: 'message_delta', delta: { stop_reason: resolved.stopReason, stop_sequence: resolved.stopSequence }, usage });
  push({ type: 'message_stop' });
  if (answer.streamError !== undefined) {
    const { afterEvents, type, message } = answer.streamError;
    return [...events.slice(0, afterEvents), { event: 'error', data: JSON.stringify({ type: 'error', error: { type, message } }) }];
  }
  return events;
}

/** SSE bytes as Anthropic frames them: `event: <type>\ndata: <json>\n\n`. */
export function sseBytes(events: readonly SseEvent[]): Buffer {
  return Buffer.from(events.map(({ event, data }) => `event: ${event}\ndata: ${data}\n\n`).join(''), 'utf8');
}

const nextTurn = () => new Promise<void>((done) => setImmediate(done));
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

interface Exchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  closeByFake(reset: boolean): void;
  open(): boolean;
}

async function write(exchange: Exchange, bytes: Uint8Array): Promise<void> {
  if (!exchange.open() || bytes.length === 0) return;
  if (!exchange.response.write(bytes)) await Promise.race([once(exchange.response, 'drain'), once(exchange.response, 'close')]);
}

async function writePieces(exchange: Exchange, bytes: Uint8Array, sizes: readonly number[] | undefined, cursor: { index: number }): Promise<void> {
  if (sizes === undefined || sizes.length === 0) {
    await write(exchange, bytes);
    await nextTurn();
    return;
  }
  for (let offset = 0; offset < bytes.length && exchange.open(); ) {
    const size = Math.max(1, sizes[cursor.index % sizes.length] ?? 1);
    cursor.index += 1;
    await write(exchange, bytes.subarray(offset, offset + size));
    offset += size;
    await nextTurn();
  }
}

/** Status line and headers alone first, so the first body piece is not read together with the next. */
async function writeHead(exchange: Exchange, status: number, headers: Record<string, string>, transport: FakeTransport): Promise<boolean> {
  if (transport.delayBeforeHeadersMs !== undefined) await Promise.race([sleep(transport.delayBeforeHeadersMs), once(exchange.response, 'close')]);
  if (!exchange.open()) return false;
  exchange.response.writeHead(status, { ...headers, ...transport.headers });
  exchange.response.flushHeaders();
  await sleep(1);
  return true;
}

async function sendStream(exchange: Exchange, events: readonly SseEvent[], transport: FakeTransport): Promise<void> {
  if (!(await writeHead(exchange, 200, { ...anthropicHeaders('text/event-stream; charset=utf-8'), 'cache-control': 'no-cache' }, transport))) return;
  const stopAt = Math.min(transport.resetAfterEvents ?? Infinity, transport.hangAfterEvents ?? Infinity);
  const sent = events.slice(0, stopAt);
  const cursor = { index: 0 };
  if (transport.writeSizes !== undefined) await writePieces(exchange, sseBytes(sent), transport.writeSizes, cursor);
  else for (const event of sent) await writePieces(exchange, sseBytes([event]), undefined, cursor);
  if (transport.resetAfterEvents !== undefined && transport.resetAfterEvents < events.length) {
    await sleep(20); // let the client read what was sent: a reset discards unread data
    exchange.closeByFake(true);
    return;
  }
  if (transport.hangAfterEvents !== undefined && transport.hangAfterEvents < events.length) return;
  if (exchange.open()) exchange.response.end();
}

async function perform(exchange: Exchange, behaviour: FakeBehaviour, body: unknown): Promise<void> {
  switch (behaviour.type) {
    case 'hang':
      return;
    case 'close-before-headers':
      exchange.closeByFake(behaviour.reset === true);
      return;
    case 'error': {
      const text = typeof behaviour.body === 'string' ? behaviour.body : JSON.stringify(behaviour.body);
      if (await writeHead(exchange, behaviour.status, { ...anthropicHeaders('application/json'), ...behaviour.headers }, {})) exchange.response.end(text);
      return;
    }
    case 'raw': {
      const transport = behaviour.transport ?? {};
      const headers = behaviour.headers ?? { ...anthropicHeaders('text/event-stream; charset=utf-8'), 'cache-control': 'no-cache' };
      if (!(await writeHead(exchange, behaviour.status ?? 200, headers, transport))) return;
      await writePieces(exchange, typeof behaviour.body === 'string' ? Buffer.from(behaviour.body, 'utf8') : behaviour.body, transport.writeSizes, { index: 0 });
      if (exchange.open()) exchange.response.end();
      return;
    }
    case 'answer': {
      const transport = behaviour.transport ?? {};
      if ((body as { stream?: unknown }).stream === true) return sendStream(exchange, streamEvents(behaviour, body), transport);
      const bytes = Buffer.from(JSON.stringify(messageObject(behaviour, body)), 'utf8');
      if (!(await writeHead(exchange, 200, { ...anthropicHeaders('application/json'), 'content-length': String(bytes.length) }, transport))) return;
      await writePieces(exchange, bytes, transport.writeSizes, { index: 0 });
      if (exchange.open()) exchange.response.end();
      return;
    }
  }
}

export async function startFakeAnthropic(options: { readonly apiKey?: string | null } = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey === undefined ? 'sk-ant-test' : options.apiKey;
  const requests: RecordedRequest[] = [];
  let queue: FakeBehaviour[] = [];
  let handler: ((request: RecordedRequest) => FakeBehaviour | undefined) | undefined;
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => void handle(request, response));
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let closedByFake = false;
    let markClosed: () => void = () => undefined;
    const record = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      remotePort: request.socket.remotePort,
      rawBody: '',
      body: undefined as unknown,
      behaviour: { type: 'hang' } as FakeBehaviour,
      aborted: false,
      closed: new Promise<void>((done) => (markClosed = done)),
    };
    const exchange: Exchange = {
      request,
      response,
      closeByFake(reset) {
        closedByFake = true;
        if (reset) request.socket.resetAndDestroy();
        else request.socket.destroy();
      },
      open: () => !response.destroyed && !response.writableEnded,
    };
    response.once('close', () => {
      record.aborted = !response.writableFinished && !closedByFake;
      markClosed();
    });
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of request) chunks.push(chunk as Buffer);
    } catch {
      return;
    }
    record.rawBody = Buffer.concat(chunks).toString('utf8');
    try {
      record.body = JSON.parse(record.rawBody) as unknown;
    } catch {
      record.body = undefined;
    }
    requests.push(record);

    const key = request.headers['x-api-key'];
    if (request.method !== 'POST' || (request.url ?? '').split('?')[0] !== '/v1/messages') record.behaviour = httpError(404, 'not_found_error', 'Not Found');
    else if (apiKey !== null && key === undefined) record.behaviour = anthropicErrors.authentication('x-api-key header is required');
    else if (apiKey !== null && key !== apiKey) record.behaviour = anthropicErrors.authentication();
    else if (request.headers['anthropic-version'] === undefined) record.behaviour = anthropicErrors.invalidRequest('anthropic-version: header is required');
    else record.behaviour = requestError(record.body) ?? queue.shift() ?? handler?.(record) ?? { type: 'answer' };
    try {
      await perform(exchange, record.behaviour, record.body);
    } catch {
      if (!response.destroyed) response.destroy();
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    messageRequests: () => requests.filter((request) => request.path.split('?')[0] === '/v1/messages'),
    enqueue: (...behaviours) => void queue.push(...behaviours),
    setHandler(next) {
      handler = next;
    },
    reset() {
      queue = [];
      handler = undefined;
      requests.length = 0;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
