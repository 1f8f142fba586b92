/**
 * The gateway's single catalogue of errors. Every error a client can see is a
 * `GatewayError`: a stable `code`, an HTTP status and OpenAI's `type` vocabulary,
 * rendered by the error handler as `{ "error": { message, type, code, param? } }`.
 * docs/errors.md is the operator-facing copy of this table.
 */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'authorization_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'insufficient_quota'
  | 'api_error'
  | 'upstream_error'
  | 'service_unavailable';

export interface GatewayErrorOptions {
  readonly param?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
  /** Extra fields merged into the error object (e.g. `execution_id`). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(status: number, type: ErrorType, code: string, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
    this.details = options.details ?? {};
  }

  toBody(): { error: Record<string, unknown> } {
    return {
      error: { message: this.message, type: this.type, code: this.code, param: this.param, ...this.details },
    };
  }
}

/** Client input echoed in a message is cut short: a body may be megabytes long. */
function clip(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

export const errors = {
  invalidRequest: (message: string, param: string | null = null, code = 'invalid_value') =>
    new GatewayError(400, 'invalid_request_error', code, message, { param }),
  invalidJson: (message = 'The request body is not valid JSON.') =>
    new GatewayError(400, 'invalid_request_error', 'invalid_json', message),
  routerRequired: () =>
    new GatewayError(
      400,
      'invalid_request_error',
      'router_required',
      'No router given: set the "model" field to a router id, or put the router id in the path (/api/router/<router_id>/chat/completions).',
      { param: 'model' },
    ),
  invalidApiKey: (message = 'Invalid or missing API key. Pass it as "Authorization: Bearer mp_...".') =>
    new GatewayError(401, 'authentication_error', 'invalid_api_key', message),
  routerAccessDenied: (routerId: string) =>
    new GatewayError(
      403,
      'authorization_error',
      'router_access_denied',
      `This API key does not have access to router "${routerId}".`,
    ),
  httpsRequired: () =>
    new GatewayError(
      403,
      'invalid_request_error',
      'https_required',
      'API keys must be sent over HTTPS. This server refuses keys sent over plain HTTP.',
    ),
  routerNotFound: (routerId: string) =>
    new GatewayError(
      404,
      'not_found_error',
      'router_not_found',
      `Router "${clip(routerId)}" not found. The "model" field takes a router id (copy it from the router's page in the dashboard, e.g. "rt_..."), not a model name; the router chooses the model.`,
      { param: 'model' },
    ),
  agentNotFound: (name: string) =>
    new GatewayError(404, 'not_found_error', 'agent_not_found', `Agent "${clip(name)}" not found.`, { param: 'model' }),
  endpointNotFound: (method: string, url: string) =>
    new GatewayError(404, 'not_found_error', 'endpoint_not_found', `Unknown endpoint: ${clip(method)} ${clip(url, 200)}`),
  invalidUrl: (detail: string) =>
    new GatewayError(400, 'invalid_request_error', 'invalid_url', `The request path is malformed: ${detail}`),
  /** The HTTP itself could not be read (bad framing, forbidden bytes in the request line or headers, no or two Host headers). */
  malformedHttp: (detail?: string) =>
    new GatewayError(
      400,
      'invalid_request_error',
      'malformed_http_request',
      detail === undefined ? 'The request is not valid HTTP/1.1 (bad request line, header or framing).' : `The request is not valid HTTP/1.1: ${detail}`,
      { headers: { connection: 'close' } },
    ),
  /** Too many bytes of request line and headers, or (`maxHeaders`) more headers than the server reads. */
  headersTooLarge: (maxHeaders?: number) =>
    new GatewayError(
      431,
      'invalid_request_error',
      'request_headers_too_large',
      maxHeaders === undefined ? 'The request line and headers are larger than this server accepts.' : `The request has more than ${maxHeaders} headers; this server reads no more.`,
      { headers: { connection: 'close' } },
    ),
  requestTimeout: () =>
    new GatewayError(408, 'invalid_request_error', 'request_timeout', 'The request was not received completely in time.'),
  expectationFailed: () =>
    new GatewayError(417, 'invalid_request_error', 'expectation_failed', 'The only Expect header this server supports is "Expect: 100-continue".'),
  methodNotAllowed: (method: string, url: string) =>
    new GatewayError(405, 'invalid_request_error', 'method_not_allowed', `Method ${method} is not allowed on ${url}.`),
  bodyTooLarge: (limitBytes: number) =>
    new GatewayError(
      413,
      'invalid_request_error',
      'request_too_large',
      `The request body is larger than the limit of ${limitBytes} bytes.`,
    ),
  rateLimited: (message: string, headers: Record<string, string>) =>
    new GatewayError(429, 'rate_limit_error', 'rate_limit_exceeded', message, { headers }),
  /** The database is unreachable or restarting (docs/deployment.md); nothing was charged. */
  databaseUnavailable: () =>
    new GatewayError(503, 'service_unavailable', 'database_unavailable', 'The database is unavailable for a moment. Please retry.', {
      headers: { 'retry-after': '1' },
    }),
  /** A key's or router's spend cap for the period is reached (OpenAI's `insufficient_quota`). */
  budgetExceeded: (message: string, headers: Record<string, string>) =>
    new GatewayError(429, 'insufficient_quota', 'insufficient_quota', message, { headers }),
  /** Rate limits cannot be checked safely for a moment (Redis just went down: docs/limits.md, safe mode). */
  rateLimitsUnavailable: (retryAfterSeconds: number) =>
    new GatewayError(
      503,
      'service_unavailable',
      'rate_limits_unavailable',
      'Rate limits cannot be checked for a moment (shared state unreachable). Please retry.',
      { headers: { 'retry-after': String(Math.max(1, retryAfterSeconds)) } },
    ),
  internal: (cause?: unknown) =>
    new GatewayError(500, 'api_error', 'internal_error', 'The server had an error while processing your request. Please retry.', {
      cause,
    }),
  shuttingDown: () =>
    new GatewayError(503, 'service_unavailable', 'server_shutting_down', 'This server is shutting down. Please retry; another instance will answer.', {
      headers: { 'retry-after': '1', connection: 'close' },
    }),
  allModelsUnavailable: (detail: string) =>
    new GatewayError(
      503,
      'service_unavailable',
      'all_models_unavailable',
      `All models of this router are temporarily unavailable. ${detail}`.trim(),
      { headers: { 'retry-after': '1' } },
    ),
  // Dashboard (docs/dashboard-api.md).
  sessionRequired: () =>
    new GatewayError(401, 'authentication_error', 'session_required', 'Sign in to use the dashboard: no valid session (it may have expired or been signed out).'),
  invalidCredentials: () => new GatewayError(401, 'authentication_error', 'invalid_credentials', 'Incorrect email or password.'),
  csrfTokenInvalid: () =>
    new GatewayError(403, 'authorization_error', 'csrf_token_invalid', 'Missing or invalid CSRF token: send the session\'s token in the x-csrf-token header, from this site.'),
  tooManyAttempts: (retryAfterSeconds: number) =>
    new GatewayError(429, 'rate_limit_error', 'too_many_attempts', `Too many sign-in attempts. Try again in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  /** Every password-hashing slot of this process is taken and its queue is full (src/auth/passwords.ts). */
  authBusy: () =>
    new GatewayError(503, 'service_unavailable', 'auth_busy', 'The server is checking too many passwords at once. Please retry in a moment.', {
      headers: { 'retry-after': '1' },
    }),
  emailTaken: () => new GatewayError(409, 'invalid_request_error', 'email_taken', 'An account with this email already exists.', { param: 'email' }),
  signUpClosed: () =>
    new GatewayError(403, 'authorization_error', 'signup_closed', 'Sign-up is closed on this server: ask its operator to create your account.'),
  verificationInvalid: () =>
    new GatewayError(400, 'invalid_request_error', 'verification_invalid', 'This confirmation link is unknown, used or expired: sign up again to get a new one.', { param: 'token' }),
  /** A workspace or account holds the most routers, keys or organisations the operator allows. */
  quotaExceeded: (message: string, limit: number) =>
    new GatewayError(409, 'invalid_request_error', 'quota_exceeded', message, { details: { limit } }),
  workspaceNotFound: () => new GatewayError(404, 'not_found_error', 'workspace_not_found', 'Workspace not found.'),
  workspaceRoleRequired: (role: string) =>
    new GatewayError(403, 'authorization_error', 'workspace_role_required', `This needs the ${role} role in this workspace.`),
  dashboardNotFound: (code: 'router_not_found' | 'key_not_found' | 'member_not_found' | 'user_not_found' | 'request_not_found', message: string, param: string | null = null) =>
    new GatewayError(404, 'not_found_error', code, message, { param }),
  dashboardConflict: (code: 'member_exists' | 'last_owner' | 'key_revoked' | 'key_expired', message: string) =>
    new GatewayError(409, 'invalid_request_error', code, message),
  personalWorkspace: () =>
    new GatewayError(400, 'invalid_request_error', 'personal_workspace', 'A personal workspace has no other members: create an organisation to share routers and keys.'),
  invalidAgent: (message: string, param: string | null) =>
    new GatewayError(400, 'invalid_request_error', 'invalid_agent', message, { param }),
  agentExists: (name: string) =>
    new GatewayError(409, 'invalid_request_error', 'agent_already_exists', `You already have an agent named "${clip(name)}"; PUT /api/v1/agents/${clip(name)} saves a new version.`),
  executionNotFound: (id: string) =>
    new GatewayError(404, 'not_found_error', 'execution_not_found', `Execution "${clip(id)}" not found.`),
  agentCostLimit: (message: string) => new GatewayError(422, 'invalid_request_error', 'agent_cost_limit_reached', message),
  agentTimeout: (message: string) => new GatewayError(504, 'api_error', 'agent_timeout', message),
  agentStepOutputInvalid: (message: string) => new GatewayError(502, 'upstream_error', 'agent_step_output_invalid', message),
  keyRestricted: () =>
    new GatewayError(403, 'authorization_error', 'key_restricted', 'This API key is restricted to some routers; managing agents needs a key with access to all of its owner\'s routers.'),
} as const;
