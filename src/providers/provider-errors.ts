import { UpstreamError } from './contract.js';

/**
 * The errors every wire format raises alike; what is particular to one upstream (its error bodies, its stream's
 * error events) stays in that format's `<p>-errors.ts`. Transport failures (statuses, timeouts, lost connections)
 * are mapped in transport/http-client.ts.
 */

/**
 * A request the gateway cannot put into the upstream's format because it is malformed (tool arguments that are
 * not JSON, a broken data: URL): the client gets a 400, and no other model is tried since the request is at fault.
 */
export function invalidRequest(provider: string, message: string): UpstreamError {
  return new UpstreamError({ provider, kind: 'http', statusCode: 400, isRetryable: false, message });
}

/**
 * A well-formed request using something this upstream cannot take (audio input, a file by id, an image by URL):
 * a 400 for this model, but another provider may serve it.
 */
export function unsupportedRequest(provider: string, message: string): UpstreamError {
  return new UpstreamError({ provider, kind: 'http', statusCode: 400, isRetryable: true, message });
}

/** An answer that does not match the upstream's own format (not JSON, a missing field, a stream cut short). */
export function invalidResponse(provider: string, detail: string): UpstreamError {
  return new UpstreamError({ provider, kind: 'invalid_response', isRetryable: true, message: `${provider}: ${detail}` });
}
