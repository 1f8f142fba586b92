import { UpstreamError, type ChatModel } from '../contract.js';
import { toUpstreamError, type UpstreamHttp } from '../transport/http-client.js';
import { request } from '../transport/undici-parts.js';

/** The outcome of one tiny real call made to check a provider's credentials. */
export interface ProbeResult {
  readonly ok: boolean;
  /** What was called: `chat ping with <model>` or `GET <base>/models`. */
  readonly target: string;
  readonly latencyMs: number;
  /** On success a short note (e.g. how many models the upstream lists); on failure the upstream's error. */
  readonly message: string;
  readonly statusCode: number | undefined;
}

/** The smallest chat call there is: one "ping", at most one token back. */
export async function probeChat(model: ChatModel, timeoutMs: number, now: () => number = performance.now.bind(performance)): Promise<ProbeResult> {
  const target = `chat ping with ${model.provider}:${model.modelId}`;
  const started = now();
  try {
    const result = await model.generate({ messages: [{ role: 'user', content: 'ping' }], max_tokens: 1 }, { signal: AbortSignal.timeout(timeoutMs) });
    const tokens = result.usage === undefined ? '' : ` (${result.usage.promptTokens} prompt + ${result.usage.completionTokens} completion tokens)`;
    return { ok: true, target, latencyMs: elapsed(now, started), message: `answered${tokens}`, statusCode: 200 };
  } catch (error) {
    const upstream = toUpstreamError(model.provider, error);
    return { ok: false, target, latencyMs: elapsed(now, started), message: upstream.message, statusCode: upstream.statusCode };
  }
}

/** `GET {base}/models`, what every OpenAI-compatible server answers: reachable, and the key accepted. */
export async function probeModelList(
  provider: string,
  baseUrl: string,
  apiKey: string | undefined,
  http: UpstreamHttp,
  now: () => number = performance.now.bind(performance),
): Promise<ProbeResult> {
  const url = `${baseUrl.replace(/\/+$/, '')}/models`;
  const target = `GET ${url}`;
  const started = now();
  try {
    const { origin, pathname, search } = new URL(url);
    const response = await request(http.dispatcher, {
      origin,
      path: pathname + search,
      method: 'GET',
      headers: { accept: 'application/json', ...(apiKey !== undefined ? { authorization: `Bearer ${apiKey}` } : {}) },
      signal: AbortSignal.timeout(http.timeouts.firstByteMs),
    });
    const text = await response.body.text();
    const latencyMs = elapsed(now, started);
    if (response.statusCode < 200 || response.statusCode >= 300) {
      return { ok: false, target, latencyMs, message: `${provider} answered HTTP ${response.statusCode}${errorCode(text)}`, statusCode: response.statusCode };
    }
    const count = modelCount(text);
    return { ok: true, target, latencyMs, message: count === undefined ? 'answered' : `lists ${count} model${count === 1 ? '' : 's'}`, statusCode: response.statusCode };
  } catch (error) {
    const upstream = error instanceof UpstreamError ? error : toUpstreamError(provider, error);
    return { ok: false, target, latencyMs: elapsed(now, started), message: upstream.message, statusCode: undefined };
  }
}

function elapsed(now: () => number, started: number): number {
  return Math.round((now() - started) * 10) / 10;
}

function modelCount(text: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    const data = typeof parsed === 'object' && parsed !== null && 'data' in parsed ? (parsed as { data: unknown }).data : undefined;
    return Array.isArray(data) ? data.length : undefined;
  } catch {
    return undefined;
  }
}

/** Only the error's code, never its message: upstreams echo keys back in messages (OpenAI repeats short ones whole). */
function errorCode(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    const inner = typeof parsed === 'object' && parsed !== null && 'error' in parsed ? (parsed as { error: unknown }).error : undefined;
    const code = typeof inner === 'object' && inner !== null && 'code' in inner ? (inner as { code: unknown }).code : undefined;
    return typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? `, ${code}` : '';
  } catch {
    return '';
  }
}
