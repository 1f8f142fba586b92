import type { GatewayError } from '../../lib/errors.js';

/**
 * OpenAI's error shape, `{"error":{"message","type","param","code"}}`: the gateway's own, so the server-wide error
 * handler (error-handler.ts) renders every non-stream error of this surface. A stream that broke after it started
 * can only say so inside the stream: one `data:` event with the error and the `_meta` of what ran.
 */
export function openAIChatErrorEvent<M>(error: GatewayError, meta: M): string {
  return `data: ${JSON.stringify({ ...error.toBody(), _meta: meta })}\n\n`;
}
