import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { embeddingListObject, embeddingsRefusal, type EmbeddingListScript } from './fake-openai-embeddings.js';

/**
 * A real HTTP server on 127.0.0.1 that speaks OpenAI's chat-completions wire
 * format as api.openai.com does (https://platform.openai.com/docs/api-reference/chat),
 * and its embeddings (fake-openai-embeddings.ts), scriptable per test: each request takes the next queued behaviour, else the
 * handler's, else a plain text answer. Every request is recorded, with whether
 * the client went away before the response was finished.
 */

/** `function_call` is the deprecated functions API's reason, still in OpenAI's enum. */
export type FakeFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface FakeToolCall {
  /** @default a fresh `call_…` id */
  readonly id?: string;
  readonly name: string;
  readonly arguments: string;
}

export interface FakeUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly cached_tokens?: number;
  readonly reasoning_tokens?: number;
}

/** How the bytes of a response travel. */
export interface FakeTransport {
  /** Wait this long before sending the status line and headers. */
  readonly delayBeforeHeadersMs?: number;
  /**
   * Cut the body into pieces of these byte sizes, cycling through the list, each
   * piece its own write after a turn of the event loop. Sizes cut anywhere: inside
   * an event, between `\n\n`, inside a multi-byte UTF-8 character. Default: one write per event.
   */
  readonly writeSizes?: readonly number[];
  /** After this many SSE events were written, reset the TCP connection (RST). Streams only. */
  readonly resetAfterEvents?: number;
  /** After this many SSE events were written, send nothing more and never finish. Streams only. */
  readonly hangAfterEvents?: number;
  /** Extra response headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Hold the response until this settles (e.g. until another request has arrived). */
  readonly waitFor?: Promise<unknown>;
}

/** A successful completion, streamed or not as the request asks. */
export interface FakeAnswer {
  readonly type: 'answer';
  /** @default "Hello! How can I help you today?" unless tool calls or a refusal are given */
  readonly content?: string | null;
  readonly refusal?: string;
  readonly toolCalls?: readonly FakeToolCall[];
  /** @default "tool_calls" with tool calls, else "stop" */
  readonly finishReason?: FakeFinishReason;
  /** @default a count from the request and the answer */
  readonly usage?: FakeUsage;
  /** The model name the upstream reports. @default the dated snapshot of the requested model */
  readonly model?: string;
  /** How the content is cut into deltas. @default word by word, the space leading */
  readonly textPieces?: readonly string[];
  /** Characters of tool-call arguments per delta. @default 4 */
  readonly argumentsPieceLength?: number;
  /**
   * Streams with tool calls: `merged` puts the first call in the role chunk (as
   * gpt-4o does), `separate` sends the role chunk alone first (as gpt-4.1 does). @default "merged"
   */
  readonly roleChunk?: 'merged' | 'separate';
  readonly transport?: FakeTransport;
}

/** A successful embeddings answer (fake-openai-embeddings.ts); a plain `answer` to an embeddings request is this one with its defaults. */
export interface FakeEmbeddingAnswer extends EmbeddingListScript {
  readonly type: 'embeddings';
  readonly transport?: FakeTransport;
}

export interface FakeHttpError {
  readonly type: 'error';
  readonly status: number;
  /** An object is sent as JSON; a string as is. */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly delayBeforeHeadersMs?: number;
}

/** Bytes given verbatim (a captured stream, a malformed body…). */
export interface FakeRaw {
  readonly type: 'raw';
  /** @default 200 */
  readonly status?: number;
  /** @default text/event-stream headers */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  readonly transport?: FakeTransport;
}

export type FakeBehaviour =
  | FakeAnswer
  /** Embedding requests only; a plain `answer` gives them the default vectors. */
  | FakeEmbeddingAnswer
  | FakeHttpError
  | FakeRaw
  /** Read the request, then never answer. */
  | { readonly type: 'hang' }
  /** Read the request, then close the connection without a status line (`reset`: with a TCP RST). */
  | { readonly type: 'close-before-headers'; readonly reset?: boolean };

export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/v1/chat/completions`. */
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** Which TCP connection carried it (1, 2…): equal numbers mean a kept-alive connection was reused. */
  readonly connection: number;
  readonly rawBody: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown;
  /** The behaviour this request got. */
  readonly behaviour: FakeBehaviour;
  /** True once the client closed the connection before the response was finished. */
  readonly aborted: boolean;
  /** True once the response was completely written. */
  readonly finished: boolean;
  /** Settles when the exchange is over, either way. */
  readonly closed: Promise<void>;
  /** performance.now() when the request arrived (this process's monotonic clock). */
  readonly arrivedAt: number;
  /** performance.now() when the exchange ended, either way; undefined until then. */
  readonly completedAt: number | undefined;
}

export type FakeHandler = (request: RecordedRequest) => FakeBehaviour | undefined;

export interface FakeOpenAIOptions {
  /** The key the fake accepts; others get OpenAI's 401. @default "sk-test" */
  readonly apiKey?: string | null;
  /** Speak as another OpenAI-compatible upstream (see fake-azure-openai.ts); `apiKey` is then unused. */
  readonly dialect?: FakeDialect;
}

/**
 * What an upstream that serves OpenAI's chat-completions format changes about it:
 * its chat path, its auth, its headers and what it adds to answers.
 */
export interface FakeDialect {
  /** Whether a path (without its query) is the chat-completions endpoint. */
  isChatPath(pathname: string): boolean;
  /** Whether a path (without its query) is the embeddings endpoint. */
  isEmbeddingsPath(pathname: string): boolean;
  /** The answer to a request at a path that is not the chat endpoint. */
  notFound(method: string, url: string): FakeBehaviour;
  /** The refusal of a request at the chat path (auth, query parameters…), or undefined to serve it. */
  refuse(request: IncomingMessage): FakeBehaviour | undefined;
  /** The refusal of a parsed JSON body this upstream does not take, or undefined. */
  refuseBody(url: string, body: unknown): FakeBehaviour | undefined;
  /** The body the answer is shaped from (e.g. with the model a URL names). */
  requestBody(url: string, body: unknown): unknown;
  /** Response headers for a content type. */
  headers(contentType: string): Record<string, string>;
  /** The `chat.completion` object as this upstream sends it. */
  completion(object: Record<string, unknown>): Record<string, unknown>;
  /** The `data:` payloads of a stream as this upstream sends them. */
  streamEvents(events: readonly string[]): string[];
}

export interface FakeOpenAI {
  /** e.g. http://127.0.0.1:PORT/v1, what OPENAI_BASE_URL takes. */
  readonly baseUrl: string;
  readonly origin: string;
  readonly requests: readonly RecordedRequest[];
  /** Requests to /v1/chat/completions, in arrival order. */
  chatRequests(): readonly RecordedRequest[];
  /** Requests to /v1/embeddings, in arrival order. */
  embeddingRequests(): readonly RecordedRequest[];
  /** Queued behaviours are used first, one per request, in order. */
  enqueue(...behaviours: FakeBehaviour[]): void;
  /** Decides for requests that find the queue empty (undefined: the default answer). */
  setHandler(handler: FakeHandler | undefined): void;
  /** Empties the queue, the handler and the recorded requests. */
  reset(): void;
  close(): Promise<void>;
}

/** Dated snapshots OpenAI reports for the aliases the tests use. */
const SNAPSHOTS: Readonly<Record<string, string>> = {
  'gpt-4o-mini': 'gpt-4o-mini-2024-07-18',
  'gpt-4o': 'gpt-4o-2024-08-06',
};

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomAlphanumeric(length: number): string {
  const bytes = randomBytes(length);
  let text = '';
  for (const byte of bytes) text += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  return text;
}

/** Headers every api.openai.com response carries (values shaped like the real ones). */
function openAIHeaders(contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    'access-control-expose-headers': 'X-Request-ID',
    'openai-organization': 'user-fake0rg',
    'openai-processing-ms': '187',
    'openai-project': 'proj_fakeProject0000000000',
    'openai-version': '2020-10-01',
    'x-ratelimit-limit-requests': '10000',
    'x-ratelimit-limit-tokens': '10000000',
    'x-ratelimit-remaining-requests': '9999',
    'x-ratelimit-remaining-tokens': '9999987',
    'x-ratelimit-reset-requests': '6ms',
    'x-ratelimit-reset-tokens': '0s',
    'x-request-id': `req_${randomBytes(16).toString('hex')}`,
    'strict-transport-security': 'max-age=31536000; includeSubDomains; preload',
    'x-content-type-options': 'nosniff',
    'cf-cache-status': 'DYNAMIC',
    server: 'cloudflare',
    'alt-svc': 'h3=":443"; ma=86400',
  };
}

function errorBody(message: string, type: string, param: string | null, code: string | null): unknown {
  return { error: { message, type, param, code } };
}

/** OpenAI's error answers, with the bodies and headers api.openai.com sends. */
export const openAIErrors = {
  badRequest: (
    message = "Invalid 'messages[0].content': string too long. Expected a string with maximum length 10485760, but got a string with length 10485761 instead.",
    param: string | null = 'messages[0].content',
    code: string | null = 'string_above_max_length',
  ): FakeHttpError => ({ type: 'error', status: 400, body: errorBody(message, 'invalid_request_error', param, code) }),
  contextLengthExceeded: (): FakeHttpError => ({
    type: 'error',
    status: 400,
    body: errorBody(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.",
      'invalid_request_error',
      'messages',
      'context_length_exceeded',
    ),
  }),
  unauthorized: (key = 'sk-test'): FakeHttpError => ({
    type: 'error',
    status: 401,
    body: errorBody(
      `Incorrect API key provided: ${maskKey(key)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      'invalid_request_error',
      null,
      'invalid_api_key',
    ),
  }),
  modelNotFound: (model = 'gpt-4o-mini'): FakeHttpError => ({
    type: 'error',
    status: 404,
    body: errorBody(`The model \`${model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found'),
  }),
  rateLimited: (retryAfterSeconds = 20, extraHeaders: Readonly<Record<string, string>> = {}): FakeHttpError => ({
    type: 'error',
    status: 429,
    body: errorBody(
      `Rate limit reached for gpt-4o-mini in organization org-fake0rg on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${retryAfterSeconds}s. Visit https://platform.openai.com/account/rate-limits to learn more.`,
      'requests',
      null,
      'rate_limit_exceeded',
    ),
    headers: {
      'retry-after': String(retryAfterSeconds),
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': `${retryAfterSeconds}s`,
      ...extraHeaders,
    },
  }),
  insufficientQuota: (): FakeHttpError => ({
    type: 'error',
    status: 429,
    body: errorBody(
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
      'insufficient_quota',
      null,
      'insufficient_quota',
    ),
  }),
  serverError: (): FakeHttpError => ({
    type: 'error',
    status: 500,
    body: errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null, null),
  }),
  overloaded: (): FakeHttpError => ({
    type: 'error',
    status: 503,
    body: errorBody('The engine is currently overloaded, please try again later', 'server_error', null, null),
  }),
} as const;

/** OpenAI echoes short keys whole and masks long ones to their first 8 and last 4 characters. */
function maskKey(key: string): string {
  return key.length <= 12 ? key : `${key.slice(0, 8)}${'*'.repeat(key.length - 12)}${key.slice(-4)}`;
}

interface RequestShape {
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  readonly includeObfuscation: boolean;
  readonly promptCharacters: number;
}

function requestShape(body: unknown): RequestShape {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const options = typeof record.stream_options === 'object' && record.stream_options !== null ? (record.stream_options as Record<string, unknown>) : {};
  return {
    model: typeof record.model === 'string' ? record.model : 'gpt-4o-mini',
    stream: record.stream === true,
    includeUsage: options.include_usage === true,
    includeObfuscation: options.include_obfuscation !== false,
    promptCharacters: JSON.stringify(record.messages ?? '').length,
  };
}

function wireUsage(usage: FakeUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

interface ResolvedAnswer {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly fingerprint: string;
  readonly content: string | null;
  readonly refusal: string | null;
  readonly toolCalls: readonly { id: string; name: string; arguments: string }[];
  readonly finishReason: FakeFinishReason;
  readonly usage: FakeUsage;
}

function resolveAnswer(answer: FakeAnswer, shape: RequestShape): ResolvedAnswer {
  const toolCalls = (answer.toolCalls ?? []).map((call) => ({ id: call.id ?? `call_${randomAlphanumeric(24)}`, name: call.name, arguments: call.arguments }));
  const refusal = answer.refusal ?? null;
  const content = answer.content !== undefined ? answer.content : toolCalls.length > 0 || refusal !== null ? null : 'Hello! How can I help you today?';
  const generated = (content ?? '') + (refusal ?? '') + toolCalls.map((call) => call.name + call.arguments).join('');
  return {
    id: `chatcmpl-${randomAlphanumeric(29)}`,
    created: Math.floor(Date.now() / 1000),
    model: answer.model ?? SNAPSHOTS[shape.model] ?? shape.model,
    fingerprint: `fp_${randomBytes(5).toString('hex')}`,
    content,
    refusal,
    toolCalls,
    finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: answer.usage ?? { prompt_tokens: Math.max(1, Math.ceil(shape.promptCharacters / 4)), completion_tokens: Math.max(1, Math.ceil(generated.length / 4)) },
  };
}

/** The `chat.completion` object, keys in api.openai.com's order. */
export function completionObject(answer: FakeAnswer, requestBody: unknown): Record<string, unknown> {
  const resolved = resolveAnswer(answer, requestShape(requestBody));
  const message: Record<string, unknown> = { role: 'assistant', content: resolved.content };
  if (resolved.toolCalls.length > 0) {
    message.tool_calls = resolved.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  }
  message.refusal = resolved.refusal;
  message.annotations = [];
  return {
    id: resolved.id,
    object: 'chat.completion',
    created: resolved.created,
    model: resolved.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: resolved.finishReason }],
    usage: wireUsage(resolved.usage),
    service_tier: 'default',
    system_fingerprint: resolved.fingerprint,
  };
}

function splitText(text: string, pieces: readonly string[] | undefined): string[] {
  if (pieces !== undefined) return [...pieces];
  return text.match(/\s*\S+|\s+$/gu) ?? [];
}

function splitArguments(text: string, length: number): string[] {
  const characters = [...text];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += length) pieces.push(characters.slice(start, start + length).join(''));
  return pieces;
}

/**
 * The `data:` payloads of a streamed answer, `[DONE]` last: the role chunk, the
 * deltas, the finish chunk, then (with `stream_options.include_usage`) the usage
 * chunk whose `choices` is empty.
 */
export function streamEvents(answer: FakeAnswer, requestBody: unknown): string[] {
  const shape = requestShape(requestBody);
  const resolved = resolveAnswer(answer, shape);
  const chunk = (choices: unknown[], usage: Record<string, unknown> | null): string => {
    const object: Record<string, unknown> = {
      id: resolved.id,
      object: 'chat.completion.chunk',
      created: resolved.created,
      model: resolved.model,
      service_tier: 'default',
      system_fingerprint: resolved.fingerprint,
      choices,
    };
    if (shape.includeUsage) object.usage = usage;
    if (shape.includeObfuscation && usage === null) object.obfuscation = randomAlphanumeric(1 + (randomBytes(1)[0] ?? 0) % 12);
    return JSON.stringify(object);
  };
  const delta = (value: Record<string, unknown>, finishReason: FakeFinishReason | null = null): string =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }], null);
  const firstCall = (index: number) => {
    const call = resolved.toolCalls[index];
    return call === undefined ? undefined : { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } };
  };

  const events: string[] = [];
  const argumentsLength = answer.argumentsPieceLength ?? 4;
  const mergeFirstCall = resolved.content === null && resolved.refusal === null && resolved.toolCalls.length > 0 && answer.roleChunk !== 'separate';
  if (mergeFirstCall) {
    events.push(delta({ role: 'assistant', content: null, tool_calls: [firstCall(0)], refusal: null }));
  } else if (resolved.refusal !== null) {
    events.push(delta({ role: 'assistant', content: null, refusal: '' }));
  } else {
    events.push(delta({ role: 'assistant', content: resolved.content === null ? null : '', refusal: null }));
  }
  if (resolved.content !== null) for (const piece of splitText(resolved.content, answer.textPieces)) events.push(delta({ content: piece }));
  if (resolved.refusal !== null) for (const piece of splitText(resolved.refusal, undefined)) events.push(delta({ refusal: piece }));
  resolved.toolCalls.forEach((call, index) => {
    if (!(mergeFirstCall && index === 0)) events.push(delta({ tool_calls: [firstCall(index)] }));
    for (const piece of splitArguments(call.arguments, argumentsLength)) events.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  events.push(delta({}, resolved.finishReason));
  if (shape.includeUsage) events.push(chunk([], wireUsage(resolved.usage)));
  events.push('[DONE]');
  return events;
}

/** The SSE bytes of a list of payloads, as OpenAI frames them. */
export function sseBytes(events: readonly string[]): Buffer {
  return Buffer.from(events.map((data) => `data: ${data}\n\n`).join(''), 'utf8');
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Exchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  /** Marks a close as the fake's own doing, not the client's. */
  closeByFake(reset: boolean): void;
  /** True while the response can still be written to. */
  open(): boolean;
}

async function write(exchange: Exchange, bytes: Uint8Array): Promise<void> {
  if (!exchange.open() || bytes.length === 0) return;
  if (!exchange.response.write(bytes)) await Promise.race([once(exchange.response, 'drain'), once(exchange.response, 'close')]);
}

/** Writes `bytes` cut by `sizes` (cycling), a turn of the event loop between pieces. */
async function writePieces(exchange: Exchange, bytes: Uint8Array, sizes: readonly number[] | undefined, cursor: { index: number }): Promise<void> {
  if (sizes === undefined || sizes.length === 0) {
    await write(exchange, bytes);
    await nextTurn();
    return;
  }
  let offset = 0;
  while (offset < bytes.length && exchange.open()) {
    const size = Math.max(1, sizes[cursor.index % sizes.length] ?? 1);
    cursor.index += 1;
    await write(exchange, bytes.subarray(offset, offset + size));
    offset += size;
    await nextTurn();
  }
}

/**
 * Sends the status line and headers alone, then gives the client a moment to
 * start reading the body, so the first piece of body is not read together with
 * the second (a Readable hands a late reader everything buffered in one chunk).
 */
async function sendHeaders(exchange: Exchange): Promise<void> {
  exchange.response.flushHeaders();
  await sleep(1);
}

async function delayHeaders(exchange: Exchange, ms: number | undefined): Promise<void> {
  if (ms !== undefined && ms > 0) await Promise.race([sleep(ms), once(exchange.response, 'close')]);
}

async function sendStream(exchange: Exchange, events: readonly string[], status: number, headers: Record<string, string>, transport: FakeTransport): Promise<void> {
  await delayHeaders(exchange, transport.delayBeforeHeadersMs);
  if (!exchange.open()) return;
  exchange.response.writeHead(status, { ...headers, ...transport.headers });
  await sendHeaders(exchange);
  const cursor = { index: 0 };
  const stopAt = Math.min(transport.resetAfterEvents ?? Infinity, transport.hangAfterEvents ?? Infinity);
  const sent = events.slice(0, stopAt);
  if (transport.writeSizes !== undefined) {
    await writePieces(exchange, sseBytes(sent), transport.writeSizes, cursor);
  } else {
    for (const data of sent) await writePieces(exchange, sseBytes([data]), undefined, cursor);
  }
  if (transport.resetAfterEvents !== undefined && transport.resetAfterEvents < events.length) {
    // Let the client read what was sent: a reset discards data still unread on the other side.
    await sleep(20);
    exchange.closeByFake(true);
    return;
  }
  if (transport.hangAfterEvents !== undefined && transport.hangAfterEvents < events.length) return;
  if (exchange.open()) exchange.response.end();
}

/** Which endpoint a request is for. */
type Endpoint = 'chat' | 'embeddings';

async function perform(exchange: Exchange, behaviour: FakeBehaviour, body: unknown, dialect: FakeDialect | undefined, endpoint: Endpoint): Promise<void> {
  const headersFor = dialect?.headers ?? openAIHeaders;
  if (endpoint === 'embeddings' && (behaviour.type === 'answer' || behaviour.type === 'embeddings')) {
    const answer = behaviour.type === 'embeddings' ? behaviour : undefined;
    return sendJson(exchange, embeddingListObject(answer, body), headersFor('application/json'), behaviour.transport ?? {});
  }
  switch (behaviour.type) {
    case 'hang':
      return;
    case 'close-before-headers':
      exchange.closeByFake(behaviour.reset === true);
      return;
    case 'error': {
      await delayHeaders(exchange, behaviour.delayBeforeHeadersMs);
      if (!exchange.open()) return;
      const text = typeof behaviour.body === 'string' ? behaviour.body : JSON.stringify(behaviour.body, null, 4);
      exchange.response.writeHead(behaviour.status, { ...headersFor('application/json; charset=utf-8'), ...behaviour.headers });
      exchange.response.end(`${text}\n`);
      return;
    }
    case 'raw': {
      const bytes = typeof behaviour.body === 'string' ? Buffer.from(behaviour.body, 'utf8') : behaviour.body;
      const transport = behaviour.transport ?? {};
      await delayHeaders(exchange, transport.delayBeforeHeadersMs);
      if (!exchange.open()) return;
      exchange.response.writeHead(behaviour.status ?? 200, { ...(behaviour.headers ?? headersFor('text/event-stream; charset=utf-8')), ...transport.headers });
      await sendHeaders(exchange);
      await writePieces(exchange, bytes, transport.writeSizes, { index: 0 });
      if (exchange.open()) exchange.response.end();
      return;
    }
    case 'answer': {
      const transport = behaviour.transport ?? {};
      if (requestShape(body).stream) {
        const events = streamEvents(behaviour, body);
        await sendStream(exchange, dialect ? dialect.streamEvents(events) : events, 200, headersFor('text/event-stream; charset=utf-8'), transport);
        return;
      }
      const completion = completionObject(behaviour, body);
      return sendJson(exchange, dialect ? dialect.completion(completion) : completion, headersFor('application/json'), transport);
    }
    case 'embeddings':
      // Scripted for a chat request: the test's mistake, told as an upstream failure would be.
      exchange.response.writeHead(500, headersFor('application/json; charset=utf-8'));
      exchange.response.end(`${JSON.stringify(errorBody('fake-openai: an embeddings answer was scripted for a chat request', 'server_error', null, null))}\n`);
      return;
  }
}

/** A whole JSON answer, pretty-printed as api.openai.com sends it, with its content-length. */
async function sendJson(exchange: Exchange, object: unknown, headers: Record<string, string>, transport: FakeTransport): Promise<void> {
  await delayHeaders(exchange, transport.delayBeforeHeadersMs);
  if (!exchange.open()) return;
  const bytes = Buffer.from(`${JSON.stringify(object, null, 2)}\n`, 'utf8');
  exchange.response.writeHead(200, { ...headers, 'content-length': String(bytes.length), ...transport.headers });
  if (transport.writeSizes !== undefined) {
    await sendHeaders(exchange);
    await writePieces(exchange, bytes, transport.writeSizes, { index: 0 });
    if (exchange.open()) exchange.response.end();
  } else {
    exchange.response.end(bytes);
  }
}

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const apiKey = options.apiKey === undefined ? 'sk-test' : options.apiKey;
  const dialect = options.dialect;
  const isChatPath = (path: string) => (dialect ? dialect.isChatPath(path.split('?')[0] ?? '') : path.split('?')[0] === '/v1/chat/completions');
  const isEmbeddingsPath = (path: string) => (dialect ? dialect.isEmbeddingsPath(path.split('?')[0] ?? '') : path.split('?')[0] === '/v1/embeddings');
  const requests: RecordedRequest[] = [];
  let queue: FakeBehaviour[] = [];
  let handler: FakeHandler | undefined;
  const sockets = new Set<Socket>();
  const connectionNumbers = new WeakMap<Socket, number>();
  let connectionCount = 0;

  const server: Server = createServer((request, response) => {
    void handle(request, response);
  });
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    connectionCount += 1;
    connectionNumbers.set(socket, connectionCount);
    socket.once('close', () => sockets.delete(socket));
  });
  // A Node server drops idle keep-alive sockets after 5 s and says so in Keep-Alive.
  server.keepAliveTimeout = 5_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let closedByFake = false;
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    const record = {
      method: request.method ?? '',
      path: request.url ?? '',
      headers: request.headers,
      connection: connectionNumbers.get(request.socket) ?? 0,
      rawBody: '',
      body: undefined as unknown,
      behaviour: { type: 'hang' } as FakeBehaviour,
      aborted: false,
      finished: false,
      closed,
      arrivedAt: performance.now(),
      completedAt: undefined as number | undefined,
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
      record.completedAt = performance.now();
      record.finished = response.writableFinished;
      record.aborted = !response.writableFinished && !closedByFake;
      resolveClosed();
    });

    const chunks: Buffer[] = [];
    try {
      for await (const chunk of request) chunks.push(chunk as Buffer);
    } catch {
      return;
    }
    record.rawBody = Buffer.concat(chunks).toString('utf8');
    try {
      record.body = record.rawBody === '' ? undefined : (JSON.parse(record.rawBody) as unknown);
    } catch {
      record.body = undefined;
    }
    requests.push(record);

    let behaviour: FakeBehaviour;
    const endpoint: Endpoint | undefined =
      request.method !== 'POST' ? undefined : isChatPath(request.url ?? '') ? 'chat' : isEmbeddingsPath(request.url ?? '') ? 'embeddings' : undefined;
    const served = endpoint !== undefined;
    const authorization = request.headers.authorization;
    const refusal = served ? dialect?.refuse(request) : undefined;
    if (!served && dialect !== undefined) {
      behaviour = dialect.notFound(request.method ?? '', request.url ?? '');
    } else if (refusal !== undefined) {
      behaviour = refusal;
    } else if (!served) {
      behaviour = {
        type: 'error',
        status: 404,
        body: errorBody(`Invalid URL (${request.method ?? ''} ${request.url ?? ''})`, 'invalid_request_error', null, null),
      };
    } else if (dialect === undefined && apiKey !== null && authorization !== `Bearer ${apiKey}`) {
      behaviour =
        authorization === undefined
          ? {
              type: 'error',
              status: 401,
              body: errorBody(
                "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
                'invalid_request_error',
                null,
                null,
              ),
            }
          : openAIErrors.unauthorized(authorization.replace(/^Bearer\s+/i, ''));
    } else if (record.body === undefined) {
      behaviour = openAIErrors.badRequest(
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
        null,
        null,
      );
    } else {
      const refused = endpoint === 'embeddings' ? embeddingsRefusal(dialect ? dialect.requestBody(record.path, record.body) : record.body) : dialect?.refuseBody(record.path, record.body);
      behaviour = refused ?? queue.shift() ?? handler?.(record) ?? { type: 'answer' };
    }
    record.behaviour = behaviour;
    const waitFor = 'transport' in behaviour ? behaviour.transport?.waitFor : undefined;
    if (waitFor !== undefined) await Promise.race([waitFor, once(response, 'close')]);
    try {
      await perform(exchange, behaviour, dialect ? dialect.requestBody(record.path, record.body) : record.body, dialect, endpoint ?? 'chat');
    } catch {
      if (!response.destroyed) response.destroy();
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    baseUrl: `${origin}/v1`,
    requests,
    chatRequests: () => requests.filter((request) => isChatPath(request.path)),
    embeddingRequests: () => requests.filter((request) => isEmbeddingsPath(request.path)),
    enqueue(...behaviours) {
      queue.push(...behaviours);
    },
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
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The body's model name, for handlers that fail by model. */
export function requestedModel(request: RecordedRequest): string | undefined {
  const body = request.body;
  return typeof body === 'object' && body !== null && typeof (body as { model?: unknown }).model === 'string' ? (body as { model: string }).model : undefined;
}

/** A free loopback port with nothing listening on it (for connection-refused tests). */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
