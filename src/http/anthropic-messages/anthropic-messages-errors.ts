import type { FastifyError, FastifyInstance } from 'fastify';
import type { GatewayError } from '../../lib/errors.js';
import { resolveGatewayError } from '../error-handler.js';

/** Anthropic's error types (https://docs.claude.com/en/api/errors). */
export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

/**
 * The gateway's error, in Anthropic's vocabulary. The status never changes (it is
 * the gateway's table, docs/errors.md), so both formats agree on what happened;
 * only the `type` word is Anthropic's. 503 (every model of the router failed, or
 * the server is draining) is `overloaded_error`, Anthropic's word for "no
 * capacity now, retry": the Anthropic SDK retries 503 as it does 529.
 */
export function anthropicErrorType(error: GatewayError): AnthropicErrorType {
  switch (error.status) {
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return error.status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/**
 * `{"type":"error","error":{"type","message","details":{"error_code"}},"request_id"}`.
 * The gateway's stable code rides in `details.error_code`, where Anthropic puts its
 * own codes (the SDK exposes it as `error.errorCode`).
 */
export function anthropicErrorBody(error: GatewayError, requestId: string): Record<string, unknown> {
  return {
    type: 'error',
    error: { type: anthropicErrorType(error), message: error.message, details: { error_code: error.code } },
    request_id: requestId,
  };
}

/**
 * Errors of the routes this context holds (their hooks, body parsing and
 * validation included) in Anthropic's shape; the rest of the server keeps
 * OpenAI's. Same mapping from cause to status as the global handler.
 */
export function installAnthropicErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    const gatewayError = resolveGatewayError(error, request, bodyLimitBytes);
    void reply
      .status(gatewayError.status)
      .headers({ ...gatewayError.headers, 'request-id': request.id })
      .send(anthropicErrorBody(gatewayError, request.id));
  });
}
