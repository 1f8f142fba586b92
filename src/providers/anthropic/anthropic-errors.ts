import { UpstreamError, isRetryableStatus } from '../contract.js';
import type { AnthropicErrorBody } from './anthropic-api.js';

/**
 * The HTTP status Anthropic pairs with each error type
 * (https://docs.claude.com/en/api/errors). A stream that fails after its 200
 * carries only the type, so the status is recovered from it.
 */
const STATUS_BY_ERROR_TYPE: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/** An `event: error` inside a stream, as an UpstreamError (overloaded and API errors may succeed elsewhere). */
export function streamErrorToUpstreamError(provider: string, body: AnthropicErrorBody, raw: string): UpstreamError {
  // An unknown type is an upstream fault until shown otherwise.
  const status = STATUS_BY_ERROR_TYPE[body.error.type] ?? 500;
  return new UpstreamError({
    provider,
    kind: 'http',
    statusCode: status,
    isRetryable: isRetryableStatus(status),
    message: body.error.message ?? `${provider} sent a stream error (${body.error.type})`,
    responseBody: raw.slice(0, 4_096),
  });
}
