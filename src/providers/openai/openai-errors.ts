import { UpstreamError } from '../contract.js';
import type { OpenAIStreamError } from './openai-api.js';

/**
 * An error object a stream carries in place of a chunk, after its 200: the request was accepted and the upstream
 * failed, so another model may serve it. An error status before the body is mapped by the transport
 * (transport/http-client.ts reads OpenAI's `{"error": {"message", "code"}}` body).
 */
export function streamErrorToUpstreamError(provider: string, body: OpenAIStreamError, raw: string): UpstreamError {
  return new UpstreamError({
    provider,
    kind: 'http',
    isRetryable: true,
    message: body.error.message ?? `${provider} sent an error event`,
    responseBody: raw.slice(0, 4_096),
  });
}
