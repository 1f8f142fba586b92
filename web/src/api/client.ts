/** The error body every dashboard endpoint answers with. */
export interface ApiErrorBody {
  readonly message: string;
  readonly type: string;
  readonly code: string;
  readonly param?: string;
}

/** A refused request: the server's message, code and (for validation errors) the field at fault. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: string;
  readonly param: string | undefined;

  constructor(status: number, body: ApiErrorBody) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.code;
    this.type = body.type;
    this.param = body.param;
  }
}

export interface ApiClientOptions {
  /** @default '/api/dashboard' */
  readonly basePath?: string;
  /** Called on 401 `session_required`, so the app can go to sign-in. */
  readonly onSessionExpired?: () => void;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

export interface ApiClient {
  get<T>(path: string, signal?: AbortSignal): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<T>;
  /** A POST of text that is not JSON (an uploaded JSON-lines file), with its content type. */
  upload<T>(path: string, text: string, contentType: string): Promise<T>;
  /** A raw POST with the CSRF header, for streamed answers. */
  stream(path: string, body: unknown, signal?: AbortSignal): Promise<Response>;
  setCsrfToken(token: string | null): void;
}

const isErrorBody = (value: unknown): value is { error: ApiErrorBody } =>
  typeof value === 'object' && value !== null && 'error' in value && typeof (value as { error: unknown }).error === 'object';

/** Reads a failed response into an ApiError, whatever its body. */
export async function toApiError(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const parsed: unknown = JSON.parse(text);
    if (isErrorBody(parsed)) return new ApiError(response.status, parsed.error);
  } catch {
    // not JSON: fall through
  }
  return new ApiError(response.status, {
    message: response.status >= 500 ? 'The server failed to answer. Try again in a moment.' : `Request failed (${response.status}).`,
    type: 'http_error',
    code: `http_${response.status}`,
  });
}

/**
 * The dashboard's only way to the server: JSON in and out, the session cookie, and the
 * `x-csrf-token` header on every write.
 */
export function createApiClient(options: ApiClientOptions = {}): ApiClient {
  const basePath = options.basePath ?? '/api/dashboard';
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  let csrfToken: string | null = null;

  const request = async (method: string, path: string, body: unknown, signal?: AbortSignal, contentType = 'application/json'): Promise<Response> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = contentType;
    if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
    let response: Response;
    try {
      response = await fetchImpl(`${basePath}${path}`, {
        method,
        headers,
        credentials: 'same-origin',
        ...(body === undefined ? {} : { body: contentType === 'application/json' ? JSON.stringify(body) : String(body) }),
        ...(signal === undefined ? {} : { signal }),
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') throw error;
      throw new ApiError(0, { message: 'Cannot reach the server. Check your connection.', type: 'network_error', code: 'network_error' });
    }
    if (!response.ok) {
      const error = await toApiError(response);
      if (error.status === 401 && error.code === 'session_required') options.onSessionExpired?.();
      throw error;
    }
    return response;
  };

  const json = async <T>(response: Response): Promise<T> => {
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text === '' ? undefined : JSON.parse(text)) as T;
  };

  return {
    async get<T>(path: string, signal?: AbortSignal) {
      return json<T>(await request('GET', path, undefined, signal));
    },
    async send<T>(method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', path: string, body?: unknown) {
      return json<T>(await request(method, path, body));
    },
    async upload<T>(path: string, text: string, contentType: string) {
      return json<T>(await request('POST', path, text, undefined, contentType));
    },
    stream(path: string, body: unknown, signal?: AbortSignal) {
      return request('POST', path, body, signal);
    },
    setCsrfToken(token: string | null) {
      csrfToken = token;
    },
  };
}

/** A workspace-scoped path: `/workspaces/<ws>/<rest>`. */
export const workspacePath = (workspaceId: string, rest: string): string =>
  `/workspaces/${encodeURIComponent(workspaceId)}${rest.startsWith('/') ? rest : `/${rest}`}`;
