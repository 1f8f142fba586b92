/**
 * A `fetch` for the clients that take one (the AI SDK's providers, the `openai` SDK, LangChain's `configuration`):
 * it passes every request on unchanged and keeps what was asked where, so a test can say which endpoint a client
 * used and with what body.
 */

export interface SentRequest {
  readonly method: string;
  /** The path, e.g. `/api/router/v1/responses`. */
  readonly path: string;
  /** The JSON body, or undefined when there was none or it was not JSON. */
  readonly body: Record<string, unknown> | undefined;
}

export interface RecordingFetch {
  readonly fetch: typeof fetch;
  readonly sent: readonly SentRequest[];
  /** Paths of the requests sent, in order. */
  paths(): string[];
  reset(): void;
}

function jsonBody(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export function createRecordingFetch(): RecordingFetch {
  const sent: SentRequest[] = [];
  return {
    sent,
    fetch: async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      sent.push({ method, path: new URL(url).pathname, body: jsonBody(init?.body) });
      return fetch(input, init);
    },
    paths: () => sent.map((request) => request.path),
    reset: () => {
      sent.length = 0;
    },
  };
}
