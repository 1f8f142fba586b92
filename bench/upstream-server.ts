import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A fast stand-in for OpenAI's chat-completions endpoint, run as its own process
 * so it never shares an event loop with the load generator. Answers at once:
 * a small completion with realistic usage, or a stream of BENCH_STREAM_CHUNKS
 * content chunks, a finish chunk, a usage chunk (when asked for) and [DONE].
 *
 * A stream whose request has `"user": "bench-hold-<ms>"` is held open that long instead: its first chunk at
 * once, then one content chunk a second, then the end (the concurrent-streams phase).
 *
 * Env: UPSTREAM_PORT (0 = any free port), BENCH_STREAM_CHUNKS (default 16).
 * Prints one JSON line `{"port":N}` on stdout once listening; exits when stdin
 * closes, so it never outlives the bench that started it.
 */

const port = Number(process.env.UPSTREAM_PORT ?? '0');
const streamChunks = Math.max(1, Math.min(1000, Number(process.env.BENCH_STREAM_CHUNKS ?? '16')));
const created = Math.floor(Date.now() / 1000);
const fingerprint = 'fp_bench00000';

const usage = (completionTokens: number) => ({
  prompt_tokens: 19,
  completion_tokens: completionTokens,
  total_tokens: 19 + completionTokens,
  prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
  completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
});

function completionBody(model: string): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: 'chatcmpl-bench0000000000000000000',
      object: 'chat.completion',
      created,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: usage(9),
      service_tier: 'default',
      system_fingerprint: fingerprint,
    }),
  );
}

/** The SSE events of one stream, without usage and with it (then every chunk carries `"usage":null`, as OpenAI's do). */
function streamEvents(model: string): { plain: string[]; withUsage: string[] } {
  const chunk = (choices: unknown[], extra: Record<string, unknown>) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-bench0000000000000000000', object: 'chat.completion.chunk', created, model, service_tier: 'default', system_fingerprint: fingerprint, choices, ...extra })}\n\n`;
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) => ({ index: 0, delta: value, logprobs: null, finish_reason: finishReason });
  const body = (extra: Record<string, unknown>) => {
    const events = [chunk([delta({ role: 'assistant', content: '', refusal: null })], extra)];
    for (let index = 0; index < streamChunks; index += 1) events.push(chunk([delta({ content: index === 0 ? 'Hello' : ' word' })], extra));
    events.push(chunk([delta({}, 'stop')], extra));
    return events;
  };
  const done = 'data: [DONE]\n\n';
  return { plain: [...body({}), done], withUsage: [...body({ usage: null }), chunk([], { usage: usage(streamChunks) }), done] };
}

const completions = new Map<string, Buffer>();
const streams = new Map<string, { plain: string[]; withUsage: string[] }>();

interface ChatBody {
  readonly model: string;
  readonly stream: boolean;
  readonly includeUsage: boolean;
  /** Milliseconds to hold a stream open (the concurrent-streams phase); 0: answer at once. */
  readonly holdMs: number;
}

function readChatBody(text: string): ChatBody | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const body = parsed as { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } | null; messages?: unknown; user?: unknown };
  if (typeof body.model !== 'string' || !Array.isArray(body.messages)) return undefined;
  const hold = typeof body.user === 'string' ? /^bench-hold-(\d+)$/.exec(body.user) : null;
  return { model: body.model, stream: body.stream === true, includeUsage: body.stream_options?.include_usage === true, holdMs: hold === null ? 0 : Number(hold[1]) };
}

function fail(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
}

function answer(request: IncomingMessage, response: ServerResponse, text: string): void {
  if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) return fail(response, 404, 'not found');
  const body = readChatBody(text);
  if (body === undefined) return fail(response, 400, 'body is not a chat-completions request');
  if (!body.stream) {
    let payload = completions.get(body.model);
    if (payload === undefined) {
      payload = completionBody(body.model);
      completions.set(body.model, payload);
    }
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': payload.length, 'openai-processing-ms': '1' });
    response.end(payload);
    return;
  }
  let events = streams.get(body.model);
  if (events === undefined) {
    events = streamEvents(body.model);
    streams.set(body.model, events);
  }
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'openai-processing-ms': '1' });
  const all = body.includeUsage ? events.withUsage : events.plain;
  if (body.holdMs > 0) return holdStream(response, all, body.holdMs);
  // One write per event, as a real provider sends them.
  for (const event of all) response.write(event);
  response.end();
}

/** The role chunk and a content chunk now, another a second while `holdMs` lasts, then the finish, usage and [DONE]. */
function holdStream(response: ServerResponse, events: readonly string[], holdMs: number): void {
  const [role, content] = events;
  const tail = events.slice(-3);
  if (role === undefined || content === undefined) return void response.end();
  // The gateway answers once a model has produced something: the role chunk alone carries no content.
  response.write(role);
  response.write(content);
  const started = Date.now();
  const timer = setInterval(() => {
    if (Date.now() - started < holdMs) {
      response.write(content);
      return;
    }
    clearInterval(timer);
    for (const event of tail) response.write(event);
    response.end();
  }, Math.min(1_000, holdMs));
  response.once('close', () => clearInterval(timer));
}

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => answer(request, response, Buffer.concat(parts).toString('utf8')));
});
server.keepAliveTimeout = 120_000;
server.headersTimeout = 125_000;

server.listen(port, '127.0.0.1', 4096, () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('upstream has no TCP address');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});

const stop = () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent holds our stdin; when it goes away (even by SIGKILL), so do we.
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
