import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { embedResponseObject, readEmbedRequests, type EmbedRequest, type EmbedScript } from './fake-gemini-embeddings.js';

/**
 * A real HTTP server on 127.0.0.1 that speaks the Gemini API as
 * generativelanguage.googleapis.com does (https://ai.google.dev/api/generate-content):
 * `POST /{version}/models/{model}:generateContent` answers pretty-printed JSON,
 * `:streamGenerateContent?alt=sse` answers `data: {json}\r\n\r\n` events in
 * Google's compact JSON (`"key": value`, no space after commas), each chunk a
 * whole GenerateContentResponse with cumulative usageMetadata. Scriptable per
 * test (each request takes the next queued behaviour, else the handler's, else
 * a plain text answer); every request is recorded. `:embedContent` and
 * `:batchEmbedContents` answer embeddings (fake-gemini-embeddings.ts).
 */

export type FakeGeminiPart =
  | { readonly text: string; readonly thought?: boolean; readonly thoughtSignature?: string }
  | { readonly functionCall: { readonly name: string; readonly args?: Record<string, unknown>; readonly id?: string }; readonly thoughtSignature?: string };

export interface FakeGeminiUsage {
  readonly promptTokenCount: number;
  readonly candidatesTokenCount: number;
  readonly cachedContentTokenCount?: number;
  readonly thoughtsTokenCount?: number;
  readonly toolUsePromptTokenCount?: number;
}

/** How the bytes of a response travel. */
export interface FakeTransport {
  readonly delayBeforeHeadersMs?: number;
  /** Cut the body into pieces of these byte sizes (cycling), each its own write after a turn of the event loop. */
  readonly writeSizes?: readonly number[];
  /** After this many SSE events, reset the TCP connection (RST). Streams only. */
  readonly resetAfterEvents?: number;
  /** After this many SSE events, send nothing more and never finish. Streams only. */
  readonly hangAfterEvents?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FakeGeminiAnswer {
  readonly type: 'answer';
  /** In a stream each part is a chunk of its own. @default one text part */
  readonly parts?: readonly FakeGeminiPart[];
  /** @default "STOP" */
  readonly finishReason?: string;
  readonly finishMessage?: string;
  /** @default a count from the request and the answer */
  readonly usage?: FakeGeminiUsage;
  /** The prompt is refused: no candidates, promptFeedback.blockReason instead. */
  readonly blockReason?: string;
  /** The finishReason comes in a chunk of its own with an empty text part, as Gemini 3 sends it. */
  readonly separateFinishChunk?: boolean;
  /** @default the requested model */
  readonly modelVersion?: string;
  readonly transport?: FakeTransport;
}

/** A successful embed answer (fake-gemini-embeddings.ts); a plain `answer` to an embed request is this one with its defaults. */
export interface FakeGeminiEmbeddingAnswer extends EmbedScript {
  readonly type: 'embeddings';
  readonly transport?: FakeTransport;
}

export interface FakeHttpError {
  readonly type: 'error';
  readonly status: number;
  /** An object is sent as Google formats JSON; a string as is. */
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Bytes given verbatim (a captured stream, a malformed body…). */
export interface FakeRaw {
  readonly type: 'raw';
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  readonly transport?: FakeTransport;
}

/** A plain `answer` to an embed request gives the default vectors; `embeddings` answers embed requests only. */
export type FakeBehaviour = FakeGeminiAnswer | FakeGeminiEmbeddingAnswer | FakeHttpError | FakeRaw | { readonly type: 'hang' };

export interface RecordedRequest {
  readonly method: string;
  /** Without the query, e.g. `/v1beta/models/gemini-2.5-flash:streamGenerateContent`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
  /** The client's port: requests that share it shared a keep-alive connection. */
  readonly connection: number;
  readonly behaviour: FakeBehaviour;
  /** True once the client closed the connection before the response was finished. */
  readonly aborted: boolean;
  readonly closed: Promise<void>;
}

export type FakeHandler = (request: RecordedRequest) => FakeBehaviour | undefined;

export interface FakeGemini {
  /** e.g. http://127.0.0.1:PORT, the bare host GEMINI_BASE_URL takes. */
  readonly baseUrl: string;
  readonly requests: readonly RecordedRequest[];
  enqueue(...behaviours: FakeBehaviour[]): void;
  setHandler(handler: FakeHandler | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

function googleError(status: number, grpcStatus: string, message: string, details?: readonly unknown[]): FakeHttpError {
  return { type: 'error', status, body: { error: { code: status, message, status: grpcStatus, ...(details ? { details } : {}) } } };
}

const errorInfo = (reason: string) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'googleapis.com',
  metadata: { service: 'generativelanguage.googleapis.com' },
});

/** Google's error answers, with the bodies generativelanguage.googleapis.com sends. */
export const geminiErrors = {
  badRequest: (message = '* GenerateContentRequest.contents: contents is not specified\n') => googleError(400, 'INVALID_ARGUMENT', message),
  invalidApiKey: () =>
    googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      errorInfo('API_KEY_INVALID'),
      { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
    ]),
  locationNotSupported: () => googleError(400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.'),
  unregisteredCaller: () =>
    googleError(
      403,
      'PERMISSION_DENIED',
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    ),
  consumerSuspended: (key: string) =>
    googleError(403, 'PERMISSION_DENIED', `Permission denied: Consumer 'api_key:${key}' has been suspended.`, [errorInfo('CONSUMER_SUSPENDED')]),
  modelNotFound: (model = 'gemini-2.5-flash', version = 'v1beta') =>
    googleError(
      404,
      'NOT_FOUND',
      `models/${model} is not found for API version ${version}, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
    ),
  rateLimited: (retryDelay = '34s', model = 'gemini-2.5-flash') =>
    googleError(
      429,
      'RESOURCE_EXHAUSTED',
      'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.',
      [
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [
            {
              quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
              quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
              quotaDimensions: { location: 'global', model },
              quotaValue: '10',
            },
          ],
        },
        { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
      ],
    ),
  internal: () =>
    googleError(500, 'INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting'),
  unavailable: () => googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'),
  deadlineExceeded: () => googleError(504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.'),
} as const;

/** Google's compact JSON, as its streams carry it: `{"a": 1,"b": [2,3]}`. */
export function googleCompactJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(googleCompactJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined);
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${googleCompactJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The SSE bytes of a list of chunks, as streamGenerateContent?alt=sse frames them. */
export function sseBytes(chunks: readonly unknown[]): Buffer {
  return Buffer.from(chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : googleCompactJson(chunk)}\r\n\r\n`).join(''), 'utf8');
}

function googleHeaders(contentType: string): Record<string, string> {
  return {
    'content-type': contentType,
    vary: 'Origin, X-Origin, Referer',
    server: 'scaffolding on HTTPServer2',
    'x-xss-protection': '0',
    'x-frame-options': 'SAMEORIGIN',
    'x-content-type-options': 'nosniff',
    'server-timing': `gfet4t7; dur=${200 + (randomBytes(1)[0] ?? 0)}`,
    'alt-svc': 'h3=":443"; ma=2592000,h3-29=":443"; ma=2592000',
  };
}

const SAFETY_CATEGORIES = ['HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_DANGEROUS_CONTENT', 'HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_SEXUALLY_EXPLICIT'];

function safetyRatings(flagged: boolean): unknown[] {
  return SAFETY_CATEGORIES.map((category, index) =>
    flagged && index === 1 ? { category, probability: 'HIGH', blocked: true } : { category, probability: 'NEGLIGIBLE' },
  );
}

const FILTER_REASONS = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

function usageMetadata(usage: FakeGeminiUsage, candidatesSoFar: number): Record<string, unknown> {
  const thoughts = usage.thoughtsTokenCount ?? 0;
  const toolUse = usage.toolUsePromptTokenCount ?? 0;
  const cached = usage.cachedContentTokenCount;
  return {
    promptTokenCount: usage.promptTokenCount,
    candidatesTokenCount: candidatesSoFar > 0 ? candidatesSoFar : undefined,
    totalTokenCount: usage.promptTokenCount + candidatesSoFar + thoughts + toolUse,
    cachedContentTokenCount: cached,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: usage.promptTokenCount }],
    cacheTokensDetails: cached === undefined ? undefined : [{ modality: 'TEXT', tokenCount: cached }],
    toolUsePromptTokenCount: toolUse > 0 ? toolUse : undefined,
    thoughtsTokenCount: thoughts > 0 ? thoughts : undefined,
  };
}

function wirePart(part: FakeGeminiPart): Record<string, unknown> {
  if ('text' in part) return { text: part.text, thought: part.thought, thoughtSignature: part.thoughtSignature };
  return { functionCall: { id: part.functionCall.id, name: part.functionCall.name, args: part.functionCall.args ?? {} }, thoughtSignature: part.thoughtSignature };
}

/** The GenerateContentResponse objects of an answer: one whole, or the chunks of a stream. */
export function answerChunks(answer: FakeGeminiAnswer, requestBody: unknown, model: string, stream: boolean): Record<string, unknown>[] {
  const responseId = randomBytes(17).toString('base64url').slice(0, 23);
  const modelVersion = answer.modelVersion ?? model;
  const parts = answer.parts ?? [{ text: 'Hello! How can I help you today?' }];
  const generated = parts.map((part) => ('text' in part ? (part.thought ? '' : part.text) : JSON.stringify(part.functionCall))).join('');
  const usage = answer.usage ?? {
    promptTokenCount: Math.max(1, Math.ceil(JSON.stringify(requestBody ?? '').length / 4)),
    candidatesTokenCount: Math.max(1, Math.ceil(generated.length / 4)),
  };
  const envelope = (fields: Record<string, unknown>, candidatesSoFar: number) => ({
    ...fields,
    usageMetadata: usageMetadata(usage, candidatesSoFar),
    modelVersion,
    responseId,
  });
  if (answer.blockReason !== undefined) {
    const promptFeedback = { blockReason: answer.blockReason, safetyRatings: safetyRatings(answer.blockReason === 'SAFETY') };
    return [envelope({ promptFeedback }, 0)];
  }
  const finishReason = answer.finishReason ?? 'STOP';
  const filtered = FILTER_REASONS.has(finishReason);
  const final = { finishReason, finishMessage: answer.finishMessage, index: 0, safetyRatings: safetyRatings(filtered) };
  if (!stream) {
    // One part per run of text (thoughts apart), calls as they are; a filtered candidate has no content.
    const merged: FakeGeminiPart[] = [];
    for (const part of parts) {
      const last = merged.at(-1);
      if ('text' in part && last !== undefined && 'text' in last && Boolean(last.thought) === Boolean(part.thought)) {
        merged[merged.length - 1] = { ...last, text: last.text + part.text };
      } else merged.push(part);
    }
    const content = filtered || merged.length === 0 ? undefined : { parts: merged.map(wirePart), role: 'model' };
    return [envelope({ candidates: [{ content, ...final }] }, usage.candidatesTokenCount)];
  }
  const count = parts.length + (answer.separateFinishChunk || parts.length === 0 || filtered ? 1 : 0);
  return Array.from({ length: count }, (_, index) => {
    const part = parts[index];
    const isLast = index === count - 1;
    const content = part === undefined ? (filtered ? undefined : { parts: [{ text: '' }], role: 'model' }) : { parts: [wirePart(part)], role: 'model' };
    const candidate = isLast ? { content, ...final } : { content, index: 0 };
    return envelope({ candidates: [candidate] }, Math.max(1, Math.round((usage.candidatesTokenCount * (index + 1)) / count)));
  });
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Exchange {
  readonly response: ServerResponse;
  reset(): void;
  open(): boolean;
}

async function writePieces(exchange: Exchange, bytes: Uint8Array, sizes: readonly number[] | undefined): Promise<void> {
  let offset = 0;
  let turn = 0;
  while (offset < bytes.length && exchange.open()) {
    const size = sizes === undefined || sizes.length === 0 ? bytes.length : Math.max(1, sizes[turn++ % sizes.length] ?? 1);
    if (!exchange.response.write(bytes.subarray(offset, offset + size))) {
      await Promise.race([once(exchange.response, 'drain'), once(exchange.response, 'close')]);
    }
    offset += size;
    await nextTurn();
  }
}

/** Headers alone first, then a moment, so the first piece of body is not read together with the second. */
async function sendHead(exchange: Exchange, status: number, headers: Record<string, string>, transport: FakeTransport): Promise<boolean> {
  if (transport.delayBeforeHeadersMs !== undefined) await Promise.race([sleep(transport.delayBeforeHeadersMs), once(exchange.response, 'close')]);
  if (!exchange.open()) return false;
  exchange.response.writeHead(status, { ...headers, ...transport.headers });
  exchange.response.flushHeaders();
  await sleep(1);
  return true;
}

interface PerformedRequest {
  readonly body: unknown;
  readonly model: string;
  readonly sse: boolean;
  readonly stream: boolean;
  /** An embed call's requests, read from its body. */
  readonly embed?: { readonly requests: readonly EmbedRequest[]; readonly batch: boolean };
}

async function perform(exchange: Exchange, behaviour: FakeBehaviour, request: PerformedRequest): Promise<void> {
  if (request.embed !== undefined && (behaviour.type === 'answer' || behaviour.type === 'embeddings')) {
    const object = embedResponseObject(behaviour.type === 'embeddings' ? behaviour : undefined, request.embed.requests, request.model, request.embed.batch);
    const transport = behaviour.transport ?? {};
    if (!(await sendHead(exchange, 200, googleHeaders('application/json; charset=UTF-8'), transport))) return;
    await writePieces(exchange, Buffer.from(`${JSON.stringify(object, null, 2)}\n`, 'utf8'), transport.writeSizes);
    if (exchange.open()) exchange.response.end();
    return;
  }
  switch (behaviour.type) {
    case 'embeddings': {
      // Scripted for a generate call: the test's mistake, told as an upstream failure would be.
      const error = geminiErrors.internal();
      exchange.response.writeHead(error.status, googleHeaders('application/json; charset=UTF-8'));
      exchange.response.end(`${JSON.stringify(error.body, null, 2)}\n`);
      return;
    }
    case 'hang':
      return;
    case 'error': {
      const text = typeof behaviour.body === 'string' ? behaviour.body : `${JSON.stringify(behaviour.body, null, 2)}\n`;
      exchange.response.writeHead(behaviour.status, { ...googleHeaders('application/json; charset=UTF-8'), ...behaviour.headers });
      exchange.response.end(text);
      return;
    }
    case 'raw': {
      const transport = behaviour.transport ?? {};
      if (!(await sendHead(exchange, behaviour.status ?? 200, behaviour.headers ?? googleHeaders('text/event-stream'), transport))) return;
      await writePieces(exchange, typeof behaviour.body === 'string' ? Buffer.from(behaviour.body, 'utf8') : behaviour.body, transport.writeSizes);
      if (exchange.open()) exchange.response.end();
      return;
    }
    case 'answer': {
      const transport = behaviour.transport ?? {};
      const chunks = answerChunks(behaviour, request.body, request.model, request.stream);
      let bytes: Buffer;
      let contentType = 'application/json; charset=UTF-8';
      if (request.sse) {
        const stopAt = Math.min(transport.resetAfterEvents ?? Infinity, transport.hangAfterEvents ?? Infinity);
        bytes = sseBytes(chunks.slice(0, stopAt));
        contentType = 'text/event-stream';
      } else if (request.stream) {
        // Without alt=sse, streamGenerateContent answers one JSON array, written as it grows.
        bytes = Buffer.from(`[${chunks.map((chunk) => JSON.stringify(chunk, null, 2)).join(',\r\n')}]`, 'utf8');
      } else {
        bytes = Buffer.from(`${JSON.stringify(chunks[0], null, 2)}\n`, 'utf8');
      }
      const headers = request.sse ? { ...googleHeaders(contentType), 'content-disposition': 'attachment' } : googleHeaders(contentType);
      if (!(await sendHead(exchange, 200, headers, transport))) return;
      if (request.sse && transport.writeSizes === undefined) {
        for (const chunk of chunks.slice(0, Math.min(transport.resetAfterEvents ?? Infinity, transport.hangAfterEvents ?? Infinity))) {
          await writePieces(exchange, sseBytes([chunk]), undefined);
        }
      } else {
        await writePieces(exchange, bytes, transport.writeSizes);
      }
      if (transport.resetAfterEvents !== undefined && transport.resetAfterEvents < chunks.length) {
        await sleep(20); // a reset discards what the other side has not read yet
        exchange.reset();
        return;
      }
      if (transport.hangAfterEvents !== undefined && transport.hangAfterEvents < chunks.length) return;
      if (exchange.open()) exchange.response.end();
      return;
    }
  }
}

const ROUTE = /^\/(v1|v1beta|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent|embedContent|batchEmbedContents)$/;

export async function startFakeGemini(options: { apiKey?: string } = {}): Promise<FakeGemini> {
  const apiKey = options.apiKey ?? 'gemini-test-key';
  const requests: RecordedRequest[] = [];
  let queue: FakeBehaviour[] = [];
  let handler: FakeHandler | undefined;
  const sockets = new Set<Socket>();

  const server: Server = createServer((request, response) => void handle(request, response));
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    let resetByFake = false;
    let resolveClosed: () => void = () => undefined;
    const record = {
      method: request.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      body: undefined as unknown,
      connection: request.socket.remotePort ?? 0,
      behaviour: { type: 'hang' } as FakeBehaviour,
      aborted: false,
      closed: new Promise<void>((resolve) => (resolveClosed = resolve)),
    };
    response.once('close', () => {
      record.aborted = !response.writableFinished && !resetByFake;
      resolveClosed();
    });
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let parsed = true;
    try {
      record.body = JSON.parse(rawBody) as unknown;
    } catch {
      parsed = false;
    }
    requests.push(record);

    const route = ROUTE.exec(url.pathname);
    const batch = route?.[3] === 'batchEmbedContents';
    const embedRequests = route?.[3] === 'embedContent' || batch ? readEmbedRequests(record.body, route?.[2] ?? '', batch) : undefined;
    const key = request.headers['x-goog-api-key'] ?? url.searchParams.get('key') ?? undefined;
    let behaviour: FakeBehaviour;
    if (request.method !== 'POST' || route === null) {
      behaviour = { type: 'error', status: 404, body: '<!DOCTYPE html>\n<html lang=en>\n  <title>Error 404 (Not Found)!!1</title>\n  <p><b>404.</b> <ins>That’s an error.</ins>\n', headers: { 'content-type': 'text/html; charset=UTF-8' } };
    } else if (key === undefined) {
      behaviour = geminiErrors.unregisteredCaller();
    } else if (key !== apiKey) {
      behaviour = geminiErrors.invalidApiKey();
    } else if (!parsed) {
      behaviour = geminiErrors.badRequest(`Invalid JSON payload received. Unexpected token.\n${rawBody.slice(0, 20)}\n^`);
    } else if (embedRequests !== undefined && !Array.isArray(embedRequests)) {
      behaviour = embedRequests;
    } else {
      behaviour = queue.shift() ?? handler?.(record) ?? { type: 'answer' };
    }
    record.behaviour = behaviour;
    const exchange: Exchange = {
      response,
      reset() {
        resetByFake = true;
        request.socket.resetAndDestroy();
      },
      open: () => !response.destroyed && !response.writableEnded,
    };
    const stream = route?.[3] === 'streamGenerateContent';
    try {
      await perform(exchange, behaviour, {
        body: record.body,
        model: route?.[2] ?? '',
        stream,
        sse: stream && url.searchParams.get('alt') === 'sse',
        ...(Array.isArray(embedRequests) ? { embed: { requests: embedRequests, batch } } : {}),
      });
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
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
