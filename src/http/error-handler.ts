import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError, errors } from '../lib/errors.js';
import { isDatabaseUnavailable } from '../storage/database-errors.js';

interface AjvError {
  readonly keyword: string;
  readonly instancePath: string;
  readonly message?: string;
  readonly params: Record<string, unknown>;
}

/** "/messages/0/role" → "messages[0].role", as OpenAI names params. */
function paramName(instancePath: string, missing?: unknown): string {
  const parts = instancePath.split('/').filter((part) => part !== '');
  if (typeof missing === 'string') parts.push(missing);
  return parts.reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name === '' ? part : `${name}.${part}`), '');
}

/** The values a literal or a union of literals (e.g. `role`) accepts, so the message can name them. */
function allowedValues(validation: readonly AjvError[], instancePath: string): unknown[] {
  const values: unknown[] = [];
  for (const error of validation) {
    if (error.instancePath !== instancePath) continue;
    if (error.keyword === 'const') values.push(error.params.allowedValue);
    else if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) values.push(...(error.params.allowedValues as unknown[]));
  }
  return values;
}

export function validationToGatewayError(validation: readonly AjvError[]): GatewayError {
  // Prefer the error that points deepest: for unions that is the branch that came closest.
  const first = [...validation].sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
  if (first === undefined) return errors.invalidRequest('The request is invalid.');
  if (first.keyword === 'required') {
    const param = paramName(first.instancePath, first.params.missingProperty);
    return errors.invalidRequest(`Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
  }
  const param = paramName(first.instancePath);
  if (param === '') return errors.invalidRequest('The request body must be a JSON object.', null, 'invalid_type');
  if (param === 'n') return errors.invalidRequest("Routers return one choice: 'n' must be 1.", 'n', 'unsupported_value');
  const code = first.keyword === 'type' ? 'invalid_type' : 'invalid_value';
  const allowed = allowedValues(validation, first.instancePath);
  const detail =
    allowed.length > 0
      ? `must be ${allowed.length === 1 ? '' : 'one of '}${allowed.map((value) => JSON.stringify(value)).join(', ')}`
      : first.keyword === 'anyOf' || first.keyword === 'oneOf'
        ? 'has an invalid type or shape'
        : (first.message ?? 'is invalid');
  return errors.invalidRequest(`Invalid value for '${param}': ${detail}.`, param, code);
}

/**
 * Maps every error — ours, Fastify's, anything thrown — onto a GatewayError, and
 * logs what the client must not see. Each client format renders the result in
 * its own shape (this module: OpenAI's; src/http/anthropic: Anthropic's).
 */
export function resolveGatewayError(error: FastifyError | GatewayError, request: FastifyRequest, bodyLimitBytes: number): GatewayError {
  let gatewayError: GatewayError;
  if (error instanceof GatewayError) gatewayError = error;
  else if (error.validation) gatewayError = validationToGatewayError(error.validation as AjvError[]);
  // A route may set a smaller limit than the server's (the account endpoints do): name the one that applied.
  else if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') gatewayError = errors.bodyTooLarge(request.routeOptions.bodyLimit ?? bodyLimitBytes);
  else if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') gatewayError = errors.invalidJson('The request body is empty; send a JSON object.');
  else if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') gatewayError = errors.invalidJson();
  else if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    gatewayError = errors.invalidRequest('The Content-Type header is malformed; send "Content-Type: application/json".', null, 'invalid_request');
  } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    gatewayError = errors.invalidRequest(error.message, null, 'invalid_request');
  } else if (isDatabaseUnavailable(error)) {
    gatewayError = errors.databaseUnavailable();
  } else {
    request.log.error({ err: error }, 'unhandled error');
    gatewayError = errors.internal();
  }
  if (gatewayError.status >= 500) request.log.warn({ code: gatewayError.code, message: gatewayError.message }, 'request failed');
  return gatewayError;
}

/** Renders every error in OpenAI's `{ "error": { message, type, code, param } }` shape. */
export function installErrorHandling(app: FastifyInstance, bodyLimitBytes: number): void {
  app.setErrorHandler((error: FastifyError | GatewayError, request, reply) => {
    const gatewayError = resolveGatewayError(error, request, bodyLimitBytes);
    void reply.status(gatewayError.status).headers(gatewayError.headers).send(gatewayError.toBody());
  });

  app.setNotFoundHandler((request, reply) => {
    const error = errors.endpointNotFound(request.method, request.url.split('?')[0] ?? '');
    void reply.status(404).send(error.toBody());
  });
}
