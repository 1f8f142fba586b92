import { UpstreamError, isRetryableStatus } from '../contract.js';
import { bedrockErrorBodySchema, type BedrockErrorBody } from './bedrock-api.js';

/**
 * The HTTP status of each Bedrock runtime error, by the lower-camel name a
 * ConverseStream exception message carries in `:exception-type`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors).
 */
const STATUS_BY_EXCEPTION: Readonly<Record<string, number>> = {
  validationException: 400,
  serviceQuotaExceededException: 400,
  accessDeniedException: 403,
  resourceNotFoundException: 404,
  modelTimeoutException: 408,
  modelErrorException: 424,
  modelStreamErrorException: 424,
  throttlingException: 429,
  modelNotReadyException: 429,
  internalServerException: 500,
  serviceUnavailableException: 503,
};

/**
 * Whether another model may succeed. By status, as for every provider, except:
 * 424 is the model failing (ModelErrorException, ModelStreamErrorException: "Retry
 * your request"), and a quota is the account's, not the request's.
 */
function isRetryable(status: number, type: string | undefined, message: string | undefined): boolean {
  // A model id Bedrock does not know is the operator's configuration, not the client's request.
  const unknownModel = type === 'ValidationException' && /model identifier is invalid/i.test(message ?? '');
  return isRetryableStatus(status) || status === 424 || type === 'ServiceQuotaExceededException' || unknownModel;
}

/**
 * Completes an UpstreamError from an upstream call with what Bedrock's error body says:
 * `{"message": …}` (some front-end errors say `Message`), sometimes `__type`; the
 * error type is otherwise in the `x-amzn-errortype` header. As http-client.ts does, refused credentials and
 * rate limits keep their account-neutral message.
 */
export function refineBedrockError(error: UpstreamError): UpstreamError {
  if (error.kind !== 'http' || error.statusCode === undefined) return error;
  const body = parseErrorBody(error.responseBody ?? '');
  const type = errorType(body?.__type) ?? errorType(error.responseHeaders?.['x-amzn-errortype']);
  const status = error.statusCode;
  const upstreamMessage = body?.message ?? body?.Message ?? undefined;
  const accountMessage = status === 401 || status === 403 || status === 429;
  const message =
    accountMessage || upstreamMessage === undefined || upstreamMessage === null ? error.message : `${type === undefined ? '' : `${type}: `}${upstreamMessage}`;
  return new UpstreamError({
    provider: error.provider,
    kind: 'http',
    statusCode: status,
    isRetryable: isRetryable(status, type, upstreamMessage ?? undefined),
    message,
    ...(error.responseBody === undefined ? {} : { responseBody: error.responseBody }),
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    ...(error.responseHeaders === undefined ? {} : { responseHeaders: error.responseHeaders }),
    cause: error.cause,
  });
}

/** An exception message inside a ConverseStream (`:message-type` exception). */
export function streamExceptionToUpstreamError(provider: string, exceptionType: string, payload: string): UpstreamError {
  // An unknown exception is an upstream fault until shown otherwise.
  const status = STATUS_BY_EXCEPTION[exceptionType] ?? 500;
  const body = parseErrorBody(payload);
  const upstreamMessage = body?.message ?? body?.Message ?? 'no message';
  const message =
    status === 429 || status === 403
      ? `${provider} ${status === 429 ? 'rate-limited' : 'refused'} the gateway's account mid-stream (${exceptionType})`
      : `${provider} stream failed (${exceptionType}): ${upstreamMessage}`;
  return new UpstreamError({
    provider,
    kind: 'http',
    statusCode: status,
    isRetryable: isRetryable(status, exceptionType.charAt(0).toUpperCase() + exceptionType.slice(1), upstreamMessage),
    message,
    responseBody: payload.slice(0, 4_096),
  });
}

/** An `:message-type` error message: the event-stream layer's own failure, told in headers. */
export function streamErrorMessageToUpstreamError(provider: string, code: string, message: string): UpstreamError {
  return new UpstreamError({ provider, kind: 'http', statusCode: 500, isRetryable: true, message: `${provider} stream failed (${code}): ${message}` });
}

function parseErrorBody(text: string): BedrockErrorBody | undefined {
  try {
    const parsed = bedrockErrorBodySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** `__type` may be qualified: "com.amazon.bedrock#ValidationException" or "ValidationException:http://…". */
function errorType(raw: string | null | undefined): string | undefined {
  const name = raw?.split('#').at(-1)?.split(':')[0];
  return name !== undefined && /^[A-Za-z]{1,64}$/.test(name) ? name : undefined;
}
