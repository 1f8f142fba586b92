import { GatewayError } from '../../lib/errors.js';

/**
 * Errors of the Responses API surface. Before a stream starts they are OpenAI's error shape, which the server-wide
 * handler (error-handler.ts) renders, as for chat completions. A stream that broke after it started ends with a
 * `response.failed` event whose response carries `error: { code, message }` (openai-responses-stream-encoder.ts):
 * the gateway's stable code, as in every other error body.
 */

const MAX_ECHOED_ID = 100;

/** An id that is not one of the caller's owner's stored responses (unknown, another owner's, expired or deleted). */
export function responseNotFound(id: string, param: string | null = null): GatewayError {
  const shown = id.length <= MAX_ECHOED_ID ? id : `${id.slice(0, MAX_ECHOED_ID)}…`;
  return new GatewayError(404, 'not_found_error', 'response_not_found', `Response with id '${shown}' not found.`, { param });
}

/** A parameter the surface cannot honour behind a router: refused with its name, never dropped in silence. */
export function unsupportedParameter(param: string, why: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', 'unsupported_parameter', `'${param}' is not supported: ${why}`, { param });
}

/** The `error` of a failed response object. */
export function responseError(error: GatewayError): { code: string; message: string } {
  return { code: error.code, message: error.message };
}
