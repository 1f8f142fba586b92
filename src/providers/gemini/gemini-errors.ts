import { UpstreamError, isRetryableStatus } from '../contract.js';
import { invalidRequest, invalidResponse, unsupportedRequest } from '../provider-errors.js';
import { geminiErrorSchema, type GeminiCandidate, type GeminiError } from './gemini-api.js';

/**
 * Completes an UpstreamError from an upstream call with what only Google's error body
 * says (https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes):
 * - a wrong API key is HTTP 400 INVALID_ARGUMENT with reason API_KEY_INVALID, not 401:
 *   it is the operator's key, not the request, so another model may serve;
 * - 400 FAILED_PRECONDITION ("User location is not supported", free tier not
 *   available) is about the deployment, not the request: another model may serve;
 * - 429 carries its wait in a google.rpc.RetryInfo detail, not in a Retry-After header.
 */
export function refineGeminiError(error: UpstreamError): UpstreamError {
  if (error.kind !== 'http' || error.responseBody === undefined) return error;
  const parsed = parseGeminiError(error.responseBody);
  if (parsed === undefined) return error;
  const { status, details } = parsed.error;
  const reason = details?.find((detail) => detail.reason !== undefined)?.reason;
  const credentialsRefused = reason === 'API_KEY_INVALID' || error.statusCode === 401 || error.statusCode === 403;
  const retryAfterMs = error.retryAfterMs ?? parseDuration(details?.find((detail) => detail.retryDelay !== undefined)?.retryDelay);
  return new UpstreamError({
    provider: error.provider,
    kind: 'http',
    ...(error.statusCode === undefined ? {} : { statusCode: error.statusCode }),
    isRetryable: error.isRetryable || credentialsRefused || status === 'FAILED_PRECONDITION',
    responseBody: error.responseBody,
    message: accountMessage(error, credentialsRefused, describe(status, reason)),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    cause: error.cause,
  });
}

/**
 * As http-client.ts does, messages about the operator's account (a refused key,
 * a quota) keep only the status and Google's codes: they travel to clients, and
 * Google's can quote the key ("Consumer 'api_key:…' has been suspended").
 * http-client.ts cannot see these codes: Google's `error.code` is the HTTP number.
 */
function accountMessage(error: UpstreamError, credentialsRefused: boolean, codes: string): string {
  const detail = `HTTP ${error.statusCode ?? '?'}${codes}`;
  if (credentialsRefused) return `${error.provider} refused the gateway's credentials (${detail})`;
  if (error.statusCode === 429) return `${error.provider} rate-limited the gateway's account (${detail})`;
  return error.message;
}

/** An `{"error": …}` event inside a stream (Google sends one when a stream fails after its 200). */
export function geminiStreamError(provider: string, data: string, error: GeminiError): UpstreamError {
  const code = error.error.code;
  return refineGeminiError(
    new UpstreamError({
      provider,
      kind: 'http',
      ...(code === undefined ? {} : { statusCode: code }),
      isRetryable: code === undefined || isRetryableStatus(code),
      responseBody: data.slice(0, 4_096),
      message: error.error.message ?? `${provider} sent an error event`,
    }),
  );
}

export function parseGeminiError(text: string): GeminiError | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = geminiErrorSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

function describe(status: string | undefined, reason: string | undefined): string {
  const words = [status, reason].filter((word): word is string => word !== undefined && /^[A-Z_]{1,64}$/.test(word));
  return words.length === 0 ? '' : `, ${words.join(', ')}`;
}

/** A protobuf Duration in JSON ("34s", "1.500s") in milliseconds. */
function parseDuration(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /^(\d+(?:\.\d+)?)s$/.exec(value);
  return match === null ? undefined : Math.round(Number(match[1]) * 1000);
}

/** A candidate whose finishReason says the model failed to answer (isFailedGeneration): retryable, so routing may retry or fall back. */
export function failedGeneration(provider: string, candidate: GeminiCandidate): UpstreamError {
  const detail = candidate.finishMessage ? `: ${candidate.finishMessage}` : '';
  return invalidResponse(provider, `the model failed to generate (${candidate.finishReason ?? 'unknown'})${detail}`);
}

/** The client's request is malformed: no model can serve it. Gemini's request errors name the provider first. */
export function invalidGeminiRequest(provider: string, message: string): UpstreamError {
  return invalidRequest(provider, `${provider}: ${message}`);
}

/** Gemini cannot take this, but another provider may: routing may fall back. */
export function unsupportedByGemini(provider: string, message: string): UpstreamError {
  return unsupportedRequest(provider, `${provider}: ${message}`);
}
