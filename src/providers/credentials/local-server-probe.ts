import type { UpstreamHttp } from '../transport/http-client.js';
import { probeModelList } from './provider-probe.js';
import { isLocalProvider } from './local-provider-access.js';
import type { ProviderCredentials } from './provider-presets.js';

/** Whether one of the operator's local model servers answered its last check. */
export type LocalServerState =
  | { readonly kind: 'unchecked'; readonly baseUrl: string }
  | { readonly kind: 'up'; readonly baseUrl: string; readonly checkedAt: number }
  | { readonly kind: 'down'; readonly baseUrl: string; readonly checkedAt: number; readonly message: string };

/**
 * The server-wide providers as the dashboard explains them: which ones the environment configured, and whether each
 * configured local server (Ollama, vLLM, LM Studio, llama.cpp) answers. A configured local server is only an address:
 * nothing says a server runs there until it answers, so each is asked `GET {base}/models` at start and every interval,
 * off the request path.
 */
export interface LocalServerProbe {
  /** Whether the server's environment configured this provider (its key, or for a local server its base URL). */
  configured(provider: string): boolean;
  /** A configured local server's last check; undefined for any other provider. */
  state(provider: string): LocalServerState | undefined;
  /** Checks every configured local server now (after a check in flight, if any) and resolves once their states are set. */
  runOnce(): Promise<void>;
  /** Stops the periodic checks and waits for one in flight. */
  stop(): Promise<void>;
}

export interface LocalServerProbeOptions {
  /** The server-wide credentials (the environment's): the local ones among them are checked. */
  readonly credentials: ReadonlyMap<string, ProviderCredentials>;
  /** The pool for the addresses the operator set: a configured local server's base URL is one. */
  readonly http: UpstreamHttp;
  /** @default 30000; 0: only `runOnce` checks. */
  readonly intervalMs?: number;
  /** How long a server may take to answer before it counts as down. @default 1000 */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/**
 * Starts checking at once (the first check runs in the background: the app does not wait for a server that is down).
 * Any HTTP answer below 500 counts as up: the server runs; a 401 or a 404 on its model list is about the key or the
 * path, which a call reports better than a badge can. A refused connection, a timeout or a 5xx counts as down.
 */
export function createLocalServerProbe(options: LocalServerProbeOptions): LocalServerProbe {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? 1000;
  const http: UpstreamHttp = { dispatcher: options.http.dispatcher, timeouts: { ...options.http.timeouts, firstByteMs: timeoutMs } };
  const servers = [...options.credentials].filter(([provider]) => isLocalProvider(provider));
  const states = new Map<string, LocalServerState>(servers.map(([provider, credentials]) => [provider, { kind: 'unchecked', baseUrl: credentials.baseUrl }]));

  const check = async (provider: string, credentials: ProviderCredentials): Promise<void> => {
    const result = await probeModelList(provider, credentials.baseUrl, credentials.apiKey, http);
    const answered = result.statusCode !== undefined && result.statusCode < 500;
    states.set(
      provider,
      answered ? { kind: 'up', baseUrl: credentials.baseUrl, checkedAt: now() } : { kind: 'down', baseUrl: credentials.baseUrl, checkedAt: now(), message: result.message },
    );
  };
  // One check at a time, in order: a slow earlier check cannot overwrite a later one's answer.
  let chain: Promise<void> = Promise.resolve();
  const runOnce = (): Promise<void> => {
    chain = chain
      .catch(() => undefined)
      .then(async () => {
        await Promise.all(servers.map(([provider, credentials]) => check(provider, credentials)));
      });
    return chain;
  };

  const intervalMs = options.intervalMs ?? 30_000;
  let timer: NodeJS.Timeout | undefined;
  if (servers.length > 0) {
    void runOnce();
    if (intervalMs > 0) {
      timer = setInterval(() => void runOnce(), intervalMs);
      timer.unref();
    }
  }

  return {
    configured: (provider) => provider === 'sim' || options.credentials.has(provider),
    state: (provider) => states.get(provider),
    runOnce,
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await chain;
    },
  };
}
