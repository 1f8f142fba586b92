import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { SignatureV4 } from '@smithy/signature-v4';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { readTitanBody, titanResponseObject, type TitanBody, type TitanScript } from './fake-bedrock-embeddings.js';

/**
 * A real HTTP server on 127.0.0.1 that speaks Bedrock's Converse and
 * ConverseStream as bedrock-runtime.<region>.amazonaws.com does
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html):
 * every request's SigV4 signature is recomputed from the shared secret and a
 * mismatch is refused with 403, the body is validated as Bedrock validates it,
 * and streams are binary `application/vnd.amazon.eventstream` messages encoded
 * with Smithy's EventStreamCodec. InvokeModel (`/model/{id}/invoke`) serves Titan
 * Text Embeddings (fake-bedrock-embeddings.ts), signed and checked alike.
 * Scriptable per test, like fake-openai.ts.
 */

export interface FakeAwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export type FakeStopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'guardrail_intervened' | 'content_filtered';

export interface FakeToolUse {
  /** @default a fresh `tooluse_…` id */
  readonly id?: string;
  readonly name: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** The input exactly as streamed, when it must differ from JSON.stringify(input) (spacing, key order). */
  readonly inputJson?: string;
}

export interface FakeBedrockUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

/** How the bytes of a response travel (streams: counted in event stream messages). */
export interface FakeBedrockTransport {
  readonly delayBeforeHeadersMs?: number;
  /** Cut the body into pieces of these sizes (cycling), each its own write after a turn of the event loop. */
  readonly writeSizes?: readonly number[];
  /** After this many messages, reset the TCP connection (RST). */
  readonly resetAfterEvents?: number;
  /** After this many messages, send nothing more and never finish. */
  readonly hangAfterEvents?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An exception message inside a stream, as ConverseStream sends one when it fails after its 200. */
export interface FakeStreamException {
  /** e.g. throttlingException, modelStreamErrorException, validationException. */
  readonly exceptionType: string;
  readonly message: string;
  /** After this many event messages. @default 0 */
  readonly afterEvents?: number;
  /** modelStreamErrorException carries the model's own status. */
  readonly originalStatusCode?: number;
}

export interface FakeBedrockAnswer {
  readonly type: 'answer';
  /** @default "Hello! How can I help you today?" unless tool uses are given */
  readonly text?: string | null;
  /** How the text is cut into deltas. @default word by word, the space leading */
  readonly textPieces?: readonly string[];
  readonly toolUses?: readonly FakeToolUse[];
  /** Characters of tool input per delta. @default 5 */
  readonly inputPieceLength?: number;
  /** @default "tool_use" with tool uses, else "end_turn" */
  readonly stopReason?: FakeStopReason;
  /** @default a count from the request and the answer */
  readonly usage?: FakeBedrockUsage;
  /** Streams only: fail with this exception message instead of finishing. */
  readonly exception?: FakeStreamException;
  /** Streams only: leave out the metadata event (usage), as a cut-short stream would. */
  readonly omitMetadata?: boolean;
  readonly transport?: FakeBedrockTransport;
}

/** A successful InvokeModel answer (fake-bedrock-embeddings.ts); a plain `answer` to an InvokeModel call is this one with its defaults. */
export interface FakeBedrockEmbeddingAnswer extends TitanScript {
  readonly type: 'embeddings';
  readonly transport?: FakeBedrockTransport;
}

/** An error answer: `{"message": …}` with the type in `x-amzn-errortype`. */
export interface FakeBedrockError {
  readonly type: 'error';
  readonly status: number;
  /** e.g. ThrottlingException. */
  readonly errorType: string;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface FakeBedrockRaw {
  readonly type: 'raw';
  /** @default 200 */
  readonly status?: number;
  /** @default event stream headers */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string | Uint8Array;
  readonly transport?: FakeBedrockTransport;
}

/** A plain `answer` to an InvokeModel call gives the default vector; `embeddings` answers InvokeModel calls only. */
export type FakeBedrockBehaviour =
  | FakeBedrockAnswer
  | FakeBedrockEmbeddingAnswer
  | FakeBedrockError
  | FakeBedrockRaw
  | { readonly type: 'hang' }
  | { readonly type: 'close-before-headers'; readonly reset?: boolean };

export interface RecordedBedrockRequest {
  readonly method: string;
  /** Path as sent, still percent-encoded. */
  readonly path: string;
  /** The model id from the path, decoded. */
  readonly modelId: string | undefined;
  readonly operation: 'converse' | 'converse-stream' | 'invoke' | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: string;
  readonly body: unknown;
  readonly behaviour: FakeBedrockBehaviour;
  /** False when the signature or the body was refused before any scripted behaviour. */
  readonly accepted: boolean;
  /** The bytes of the response body as written, for capturing streams. */
  readonly sent: Uint8Array[];
  readonly aborted: boolean;
  readonly closed: Promise<void>;
}

export type FakeBedrockHandler = (request: RecordedBedrockRequest) => FakeBedrockBehaviour | undefined;

export interface FakeBedrockOptions {
  /** The one identity the fake knows. @default AKIDEXAMPLE / a fixed secret, no session token */
  readonly credentials?: FakeAwsCredentials;
  /** @default "us-east-1" */
  readonly region?: string;
  /** The server clock signatures are checked against (5 minutes' skew allowed). @default () => new Date() */
  readonly now?: () => Date;
}

export interface FakeBedrock {
  /** What BEDROCK_BASE_URL takes, e.g. http://127.0.0.1:PORT. */
  readonly baseUrl: string;
  readonly credentials: FakeAwsCredentials;
  readonly region: string;
  readonly requests: readonly RecordedBedrockRequest[];
  /** Converse requests that passed the signature check and Bedrock's validation, in arrival order. */
  converseRequests(): readonly RecordedBedrockRequest[];
  /** InvokeModel requests that passed the signature check and the model's validation, in arrival order. */
  invokeRequests(): readonly RecordedBedrockRequest[];
  enqueue(...behaviours: FakeBedrockBehaviour[]): void;
  setHandler(handler: FakeBedrockHandler | undefined): void;
  reset(): void;
  close(): Promise<void>;
}

export const FAKE_AWS_CREDENTIALS: FakeAwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

/** Bedrock's error answers, with the messages bedrock-runtime sends. */
export const bedrockErrors = {
  throttling: (): FakeBedrockError => ({ type: 'error', status: 429, errorType: 'ThrottlingException', message: 'Too many requests, please wait before trying again.' }),
  modelNotReady: (): FakeBedrockError => ({
    type: 'error',
    status: 429,
    errorType: 'ModelNotReadyException',
    message: 'Model is not ready for inference. Wait and try your request again.',
  }),
  validation: (message = 'The provided model identifier is invalid.'): FakeBedrockError => ({ type: 'error', status: 400, errorType: 'ValidationException', message }),
  serviceQuotaExceeded: (message = 'Your request exceeds the service quota for your account.'): FakeBedrockError => ({ type: 'error', status: 400, errorType: 'ServiceQuotaExceededException', message }),
  accessDenied: (): FakeBedrockError => ({ type: 'error', status: 403, errorType: 'AccessDeniedException', message: "You don't have access to the model with the specified model ID." }),
  resourceNotFound: (): FakeBedrockError => ({
    type: 'error',
    status: 404,
    errorType: 'ResourceNotFoundException',
    message: 'Model use case details have not been submitted for this account. Fill out the Anthropic use case details form before using the model.',
  }),
  modelTimeout: (): FakeBedrockError => ({ type: 'error', status: 408, errorType: 'ModelTimeoutException', message: 'Model has timed out in processing the request. Try your request again.' }),
  modelError: (): FakeBedrockError => ({ type: 'error', status: 424, errorType: 'ModelErrorException', message: 'The model returned an error. Try your request again.' }),
  serviceUnavailable: (): FakeBedrockError => ({ type: 'error', status: 503, errorType: 'ServiceUnavailableException', message: 'Bedrock is unable to process your request.' }),
  internal: (): FakeBedrockError => ({ type: 'error', status: 500, errorType: 'InternalServerException', message: 'The system encountered an unexpected error during processing. Try your request again.' }),
} as const;

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Bedrock pads each event with `p`, random letters that hide the payload's length. */
function padding(): string {
  const length = 1 + ((randomBytes(1)[0] ?? 0) % 40);
  return ALPHANUMERIC.slice(0, length);
}

const stringHeader = (value: string) => ({ type: 'string' as const, value });

/** One ConverseStream event as its binary message. */
export function encodeEvent(eventType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: { ':event-type': stringHeader(eventType), ':content-type': stringHeader('application/json'), ':message-type': stringHeader('event') },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

/** An exception message: `:message-type` exception, the type in `:exception-type`. */
export function encodeException(exceptionType: string, payload: unknown): Uint8Array {
  return codec.encode({
    headers: { ':exception-type': stringHeader(exceptionType), ':content-type': stringHeader('application/json'), ':message-type': stringHeader('exception') },
    body: fromUtf8(JSON.stringify(payload)),
  });
}

interface ResolvedAnswer {
  readonly text: string | null;
  readonly toolUses: readonly { id: string; name: string; input: Readonly<Record<string, unknown>>; inputJson: string }[];
  readonly stopReason: FakeStopReason;
  readonly usage: Record<string, number>;
}

function resolveAnswer(answer: FakeBedrockAnswer, rawBody: string): ResolvedAnswer {
  const toolUses = (answer.toolUses ?? []).map((use) => ({
    id: use.id ?? `tooluse_${randomBytes(16).toString('base64url').slice(0, 22)}`,
    name: use.name,
    input: use.input,
    inputJson: use.inputJson ?? JSON.stringify(use.input),
  }));
  const text = answer.text !== undefined ? answer.text : toolUses.length > 0 ? null : 'Hello! How can I help you today?';
  const generated = (text ?? '') + toolUses.map((use) => use.name + use.inputJson).join('');
  const usage = answer.usage ?? { inputTokens: Math.max(1, Math.ceil(rawBody.length / 4)), outputTokens: Math.max(1, Math.ceil(generated.length / 4)) };
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  return {
    text,
    toolUses,
    stopReason: answer.stopReason ?? (toolUses.length > 0 ? 'tool_use' : 'end_turn'),
    usage: {
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
      totalTokens: usage.inputTokens + usage.outputTokens + cacheRead + cacheWrite,
      ...(usage.cacheReadInputTokens !== undefined ? { cacheReadInputTokens: cacheRead } : {}),
      ...(usage.cacheWriteInputTokens !== undefined ? { cacheWriteInputTokens: cacheWrite } : {}),
    },
  };
}

/** The Converse response, keys in bedrock-runtime's order. */
export function converseResponse(answer: FakeBedrockAnswer, rawBody = ''): Record<string, unknown> {
  const resolved = resolveAnswer(answer, rawBody);
  const content: unknown[] = [];
  if (resolved.text !== null) content.push({ text: resolved.text });
  for (const use of resolved.toolUses) content.push({ toolUse: { input: use.input, name: use.name, toolUseId: use.id } });
  return { metrics: { latencyMs: 812 }, output: { message: { content, role: 'assistant' } }, stopReason: resolved.stopReason, usage: resolved.usage };
}

function pieces(text: string, length: number): string[] {
  const characters = [...text];
  const out: string[] = [];
  for (let start = 0; start < characters.length; start += length) out.push(characters.slice(start, start + length).join(''));
  return out;
}

/** The binary messages of a ConverseStream answer, as bedrock-runtime orders them. */
export function converseStreamMessages(answer: FakeBedrockAnswer, rawBody = ''): Uint8Array[] {
  const resolved = resolveAnswer(answer, rawBody);
  const messages: Uint8Array[] = [encodeEvent('messageStart', { p: padding(), role: 'assistant' })];
  let blockIndex = 0;
  if (resolved.text !== null) {
    const textPieces = answer.textPieces ?? resolved.text.match(/\s*\S+|\s+$/gu) ?? [];
    for (const text of textPieces) messages.push(encodeEvent('contentBlockDelta', { contentBlockIndex: blockIndex, delta: { text }, p: padding() }));
    messages.push(encodeEvent('contentBlockStop', { contentBlockIndex: blockIndex, p: padding() }));
    blockIndex += 1;
  }
  for (const use of resolved.toolUses) {
    messages.push(encodeEvent('contentBlockStart', { contentBlockIndex: blockIndex, p: padding(), start: { toolUse: { name: use.name, toolUseId: use.id } } }));
    for (const input of pieces(use.inputJson, answer.inputPieceLength ?? 5)) {
      messages.push(encodeEvent('contentBlockDelta', { contentBlockIndex: blockIndex, delta: { toolUse: { input } }, p: padding() }));
    }
    messages.push(encodeEvent('contentBlockStop', { contentBlockIndex: blockIndex, p: padding() }));
    blockIndex += 1;
  }
  messages.push(encodeEvent('messageStop', { p: padding(), stopReason: resolved.stopReason }));
  if (answer.omitMetadata !== true) messages.push(encodeEvent('metadata', { metrics: { latencyMs: 812 }, p: padding(), usage: resolved.usage }));
  const exception = answer.exception;
  if (exception === undefined) return messages;
  const payload = { message: exception.message, ...(exception.originalStatusCode !== undefined ? { originalStatusCode: exception.originalStatusCode } : {}) };
  return [...messages.slice(0, exception.afterEvents ?? 0), encodeException(exception.exceptionType, payload)];
}

function awsHeaders(contentType: string): Record<string, string> {
  return { 'content-type': contentType, 'x-amzn-requestid': randomUUID(), date: new Date().toUTCString() };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

interface Exchange {
  readonly response: ServerResponse;
  readonly sent: Uint8Array[];
  closeByFake(reset: boolean): void;
  open(): boolean;
}

async function write(exchange: Exchange, bytes: Uint8Array): Promise<void> {
  if (!exchange.open() || bytes.length === 0) return;
  exchange.sent.push(Uint8Array.from(bytes));
  if (!exchange.response.write(bytes)) await Promise.race([once(exchange.response, 'drain'), once(exchange.response, 'close')]);
}

async function writeAll(exchange: Exchange, bytes: Uint8Array, sizes: readonly number[] | undefined): Promise<void> {
  if (sizes === undefined || sizes.length === 0) {
    await write(exchange, bytes);
    await nextTurn();
    return;
  }
  let offset = 0;
  let index = 0;
  while (offset < bytes.length && exchange.open()) {
    const size = Math.max(1, sizes[index % sizes.length] ?? 1);
    index += 1;
    await write(exchange, bytes.subarray(offset, offset + size));
    offset += size;
    await nextTurn();
  }
}

async function startBody(exchange: Exchange, status: number, headers: Record<string, string>, transport: FakeBedrockTransport): Promise<boolean> {
  if (transport.delayBeforeHeadersMs !== undefined) await Promise.race([sleep(transport.delayBeforeHeadersMs), once(exchange.response, 'close')]);
  if (!exchange.open()) return false;
  exchange.response.writeHead(status, { ...headers, ...transport.headers });
  // Headers alone first, so the first piece of body is not read together with the second.
  exchange.response.flushHeaders();
  await sleep(1);
  return true;
}

interface PerformedRequest {
  readonly operation: string | undefined;
  readonly modelId: string | undefined;
  readonly rawBody: string;
  /** An InvokeModel call's Titan body, read. */
  readonly titan: TitanBody | undefined;
}

async function perform(exchange: Exchange, behaviour: FakeBedrockBehaviour, record: PerformedRequest): Promise<void> {
  if (record.titan !== undefined && (behaviour.type === 'answer' || behaviour.type === 'embeddings')) {
    const body = titanResponseObject(behaviour.type === 'embeddings' ? behaviour : undefined, record.modelId ?? '', record.titan);
    const bytes = fromUtf8(JSON.stringify(body));
    const headers = {
      ...awsHeaders('application/json'),
      'content-length': String(bytes.length),
      'x-amzn-bedrock-invocation-latency': '93',
      'x-amzn-bedrock-input-token-count': String(body.inputTextTokenCount),
    };
    const transport = behaviour.transport ?? {};
    if (!(await startBody(exchange, 200, headers, transport))) return;
    await writeAll(exchange, bytes, transport.writeSizes);
    if (exchange.open()) exchange.response.end();
    return;
  }
  switch (behaviour.type) {
    case 'embeddings': {
      // Scripted for a Converse call: the test's mistake, told as an upstream failure would be.
      const headers = { ...awsHeaders('application/json'), 'x-amzn-errortype': 'InternalServerException:http://internal.amazon.com/coral/com.amazon.bedrock/' };
      exchange.response.writeHead(500, headers);
      exchange.response.end(JSON.stringify({ message: 'fake-bedrock: an embeddings answer was scripted for a Converse call' }));
      return;
    }
    case 'hang':
      return;
    case 'close-before-headers':
      exchange.closeByFake(behaviour.reset === true);
      return;
    case 'error': {
      const headers = { ...awsHeaders('application/json'), 'x-amzn-errortype': `${behaviour.errorType}:http://internal.amazon.com/coral/com.amazon.bedrock/` };
      exchange.response.writeHead(behaviour.status, { ...headers, ...behaviour.headers });
      exchange.response.end(JSON.stringify({ message: behaviour.message }));
      return;
    }
    case 'raw': {
      const transport = behaviour.transport ?? {};
      if (!(await startBody(exchange, behaviour.status ?? 200, behaviour.headers ?? awsHeaders('application/vnd.amazon.eventstream'), transport))) return;
      await writeAll(exchange, typeof behaviour.body === 'string' ? fromUtf8(behaviour.body) : behaviour.body, transport.writeSizes);
      if (exchange.open()) exchange.response.end();
      return;
    }
    case 'answer': {
      const transport = behaviour.transport ?? {};
      if (record.operation === 'converse') {
        const bytes = fromUtf8(JSON.stringify(converseResponse(behaviour, record.rawBody)));
        if (!(await startBody(exchange, 200, { ...awsHeaders('application/json'), 'content-length': String(bytes.length) }, transport))) return;
        await writeAll(exchange, bytes, transport.writeSizes);
        if (exchange.open()) exchange.response.end();
        return;
      }
      const messages = converseStreamMessages(behaviour, record.rawBody);
      if (!(await startBody(exchange, 200, awsHeaders('application/vnd.amazon.eventstream'), transport))) return;
      const stopAt = Math.min(transport.resetAfterEvents ?? Infinity, transport.hangAfterEvents ?? Infinity);
      const sent = messages.slice(0, stopAt);
      if (transport.writeSizes !== undefined) await writeAll(exchange, Buffer.concat(sent), transport.writeSizes);
      else for (const message of sent) await writeAll(exchange, message, undefined);
      if (transport.resetAfterEvents !== undefined && transport.resetAfterEvents < messages.length) {
        // Let the client read what was sent: a reset discards data still unread on the other side.
        await sleep(20);
        exchange.closeByFake(true);
        return;
      }
      if (transport.hangAfterEvents !== undefined && transport.hangAfterEvents < messages.length) return;
      if (exchange.open()) exchange.response.end();
      return;
    }
  }
}

const OPERATION_PATH = /^\/model\/([^/]+)\/(converse|converse-stream|invoke)$/;

export async function startFakeBedrock(options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const credentials = options.credentials ?? FAKE_AWS_CREDENTIALS;
  const region = options.region ?? 'us-east-1';
  const now = options.now ?? (() => new Date());
  const requests: RecordedBedrockRequest[] = [];
  let queue: FakeBedrockBehaviour[] = [];
  let handler: FakeBedrockHandler | undefined;
  const sockets = new Set<Socket>();

  const server = createServer((request, response) => {
    void handle(request, response);
  });
  server.on('connection', (socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    let closedByFake = false;
    let resolveClosed: () => void = () => undefined;
    const closed = new Promise<void>((resolve) => {
      resolveClosed = resolve;
    });
    const path = request.url ?? '';
    const match = OPERATION_PATH.exec(path.split('?')[0] ?? '');
    const record = {
      method: request.method ?? '',
      path,
      modelId: match?.[1] === undefined ? undefined : decodeURIComponent(match[1]),
      operation: match?.[2] as 'converse' | 'converse-stream' | 'invoke' | undefined,
      headers: request.headers,
      rawBody: '',
      body: undefined as unknown,
      behaviour: { type: 'hang' } as FakeBedrockBehaviour,
      accepted: false,
      sent: [] as Uint8Array[],
      aborted: false,
      closed,
    };
    const exchange: Exchange = {
      response,
      sent: record.sent,
      closeByFake(reset) {
        closedByFake = true;
        if (reset) request.socket.resetAndDestroy();
        else request.socket.destroy();
      },
      open: () => !response.destroyed && !response.writableEnded,
    };
    response.once('close', () => {
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
      record.body = JSON.parse(record.rawBody) as unknown;
    } catch {
      record.body = undefined;
    }
    requests.push(record);

    const titan = record.operation === 'invoke' ? readTitanBody(record.modelId, record.body) : undefined;
    const refusal =
      (await verifySigV4(request, record.rawBody, { credentials, region, service: 'bedrock', now: now() })) ??
      (request.method !== 'POST' || match === null ? { type: 'error', status: 404, errorType: 'UnknownOperationException', message: 'Unknown operation' } : undefined) ??
      (titan === undefined ? checkConverseBody(record.body) : 'type' in titan ? titan : undefined);
    record.accepted = refusal === undefined;
    record.behaviour = refusal ?? queue.shift() ?? handler?.(record) ?? { type: 'answer' };
    try {
      await perform(exchange, record.behaviour, { ...record, titan: titan === undefined || 'type' in titan ? undefined : titan });
    } catch {
      if (!response.destroyed) response.destroy();
    }
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    credentials,
    region,
    requests,
    converseRequests: () => requests.filter((request) => request.accepted && request.operation !== 'invoke'),
    invokeRequests: () => requests.filter((request) => request.accepted && request.operation === 'invoke'),
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

// ---- SigV4, checked as AWS checks it ----

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const MAX_SKEW_MS = 5 * 60_000;

const refuse = (status: number, errorType: string, message: string): FakeBedrockError => ({ type: 'error', status, errorType, message });
const amzDate = (date: Date): string => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/**
 * Recomputes the request's signature with @smithy/signature-v4 from the shared
 * secret, over exactly the headers the request says it signed, its raw path and
 * body, at its own x-amz-date, and compares; checks the key, the session token,
 * the scope and the clock skew on the way, with the answers AWS gives.
 */
async function verifySigV4(
  request: IncomingMessage,
  rawBody: string,
  expected: { credentials: FakeAwsCredentials; region: string; service: string; now: Date },
): Promise<FakeBedrockError | undefined> {
  const header = (name: string): string | undefined => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const mismatch = refuse(
    403,
    'InvalidSignatureException',
    'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.',
  );
  const authorization = header('authorization');
  if (authorization === undefined) return refuse(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const parts = AUTHORIZATION.exec(authorization);
  if (parts === null) return refuse(400, 'IncompleteSignatureException', "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters.");
  const [, keyId, day, region, service, signedHeaderList = ''] = parts;
  const { credentials } = expected;
  if (keyId !== credentials.accessKeyId || header('x-amz-security-token') !== credentials.sessionToken) {
    return refuse(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  }
  const date = AMZ_DATE.exec(header('x-amz-date') ?? '');
  if (date === null) return refuse(400, 'IncompleteSignatureException', 'Authorization header requires existence of either a \'X-Amz-Date\' or a \'Date\' header.');
  const signingDate = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]), Number(date[4]), Number(date[5]), Number(date[6])));
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host')) return refuse(403, 'InvalidSignatureException', "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.");
  if (day !== date[0].slice(0, 8)) return refuse(403, 'InvalidSignatureException', 'Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP.');
  if (service !== expected.service) return refuse(403, 'InvalidSignatureException', `Credential should be scoped to correct service: '${expected.service}'.`);
  if (region !== expected.region) return refuse(403, 'InvalidSignatureException', `Credential should be scoped to a valid region, not '${region ?? ''}'.`);
  const skew = expected.now.getTime() - signingDate.getTime();
  if (Math.abs(skew) > MAX_SKEW_MS) {
    const earliest = amzDate(new Date(expected.now.getTime() - MAX_SKEW_MS));
    return refuse(403, 'InvalidSignatureException', `Signature expired: ${date[0]} is now earlier than ${earliest} (${amzDate(expected.now)} - 5 min.)`);
  }
  // The signer trusts x-amz-content-sha256 as the payload's hash; AWS checks it against the payload.
  const payloadHash = header('x-amz-content-sha256');
  if (payloadHash !== undefined && payloadHash !== sha256Hex(rawBody)) return mismatch;
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = header(name);
    if (value === undefined) return mismatch;
    headers[name] = value;
  }
  const url = new URL(request.url ?? '/', `http://${headers.host ?? 'localhost'}`);
  const signer = new SignatureV4({ credentials, region: expected.region, service: expected.service, sha256: Sha256, applyChecksum: false });
  const recomputed = await signer.sign(
    { method: request.method ?? 'POST', protocol: 'http:', hostname: url.hostname, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: rawBody },
    { signingDate },
  );
  return recomputed.headers.authorization === authorization ? undefined : mismatch;
}

/** SHA-256 hex of a body, as x-amz-content-sha256 carries it. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

// ---- The body, validated as Converse validates it ----

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const IMAGE_FORMATS = ['png', 'jpeg', 'gif', 'webp'];
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The ValidationException Converse answers for a body it refuses, or undefined. */
function checkConverseBody(body: unknown): FakeBedrockError | undefined {
  const invalid = (message: string) => refuse(400, 'ValidationException', message);
  if (!isRecord(body)) return refuse(400, 'SerializationException', 'Start of structure or map found where not expected.');
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return invalid('The model returned the following errors: at least one message is required.');
  if (!isRecord(messages[0]) || messages[0].role !== 'user') return invalid('A conversation must start with a user message. Try again with a conversation that starts with a user message.');
  let usesTools = false;
  let previousToolUseIds = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (!isRecord(message) || (message.role !== 'user' && message.role !== 'assistant')) return invalid(`messages.${index}.role must be user or assistant.`);
    if (index > 0 && isRecord(messages[index - 1]) && (messages[index - 1] as Record<string, unknown>).role === message.role) {
      return invalid('A conversation must alternate between user and assistant roles. Make sure the conversation alternates between user and assistant roles and try again.');
    }
    if (!Array.isArray(message.content) || message.content.length === 0) return invalid(`The content field in the Message object at messages.${index} is empty. Add a ContentBlock object to the content field and try again.`);
    const toolUseIds = new Set<string>();
    for (const [position, block] of message.content.entries()) {
      const where = `messages.${index}.content.${position}`;
      if (!isRecord(block) || Object.keys(block).length !== 1) return invalid(`The ContentBlock object at ${where} must set exactly one of its members.`);
      if ('text' in block && (typeof block.text !== 'string' || block.text.trim() === '')) {
        return invalid(`The text field in the ContentBlock object at ${where} is blank. Add text to the text field, and try again.`);
      }
      if ('image' in block) {
        const image = block.image;
        if (!isRecord(image) || !IMAGE_FORMATS.includes(String(image.format)) || !isRecord(image.source) || typeof image.source.bytes !== 'string') {
          return invalid(`The image at ${where} is malformed.`);
        }
      }
      if ('toolUse' in block) {
        const toolUse = block.toolUse;
        if (message.role !== 'assistant' || !isRecord(toolUse) || typeof toolUse.toolUseId !== 'string' || !TOOL_NAME.test(String(toolUse.name)) || !isRecord(toolUse.input)) {
          return invalid(`The toolUse at ${where} is malformed.`);
        }
        usesTools = true;
        toolUseIds.add(toolUse.toolUseId);
      }
      if ('toolResult' in block) {
        const result = block.toolResult;
        if (message.role !== 'user' || !isRecord(result) || !Array.isArray(result.content) || result.content.length === 0) return invalid(`The toolResult at ${where} is malformed.`);
        if (!previousToolUseIds.has(String(result.toolUseId))) {
          return invalid(`The toolResult blocks at messages.${index}.content do not match the toolUse blocks of the previous turn.`);
        }
        usesTools = true;
      }
    }
    previousToolUseIds = toolUseIds;
  }
  if (body.system !== undefined) {
    if (!Array.isArray(body.system) || body.system.some((block) => !isRecord(block) || typeof block.text !== 'string' || block.text.trim() === '')) {
      return invalid('The text field in the SystemContentBlock object is blank. Add text to the text field, and try again.');
    }
  }
  const config = body.inferenceConfig;
  if (config !== undefined) {
    if (!isRecord(config)) return invalid('inferenceConfig must be an object.');
    for (const field of ['temperature', 'topP'] as const) {
      const value = config[field];
      if (value !== undefined && (typeof value !== 'number' || value < 0 || value > 1)) {
        return invalid(`1 validation error detected: Value '${String(value)}' at 'inferenceConfig.${field}' failed to satisfy constraint: Member must have value less than or equal to 1`);
      }
    }
    if (config.maxTokens !== undefined && (!Number.isInteger(config.maxTokens) || Number(config.maxTokens) < 1)) return invalid("1 validation error detected: Value at 'inferenceConfig.maxTokens' failed to satisfy constraint: Member must have value greater than or equal to 1");
  }
  const toolConfig = body.toolConfig;
  if (toolConfig === undefined) return usesTools ? invalid('The toolConfig field must be defined when using toolUse and toolResult content blocks.') : undefined;
  if (!isRecord(toolConfig) || !Array.isArray(toolConfig.tools) || toolConfig.tools.length === 0) return invalid('The toolConfig field must have at least one tool.');
  for (const tool of toolConfig.tools) {
    const spec = isRecord(tool) ? tool.toolSpec : undefined;
    if (!isRecord(spec) || !TOOL_NAME.test(String(spec.name)) || !isRecord(spec.inputSchema) || !isRecord(spec.inputSchema.json)) return invalid('A toolSpec in toolConfig.tools is malformed.');
    if (spec.description !== undefined && (typeof spec.description !== 'string' || spec.description === '')) return invalid('A toolSpec description must not be empty.');
  }
  const choice = toolConfig.toolChoice;
  if (choice !== undefined && !(isRecord(choice) && Object.keys(choice).length === 1 && ('auto' in choice || 'any' in choice || (isRecord(choice.tool) && typeof choice.tool.name === 'string')))) {
    return invalid('toolConfig.toolChoice must be one of auto, any or tool.');
  }
  return undefined;
}
