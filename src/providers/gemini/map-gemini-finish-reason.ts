import type { FinishReason } from '../contract.js';

/**
 * Maps a candidate's finishReason. STOP means "tool_calls" when the candidate
 * called functions: Gemini has no finish reason of its own for that.
 * https://ai.google.dev/api/generate-content#FinishReason
 */
export function mapGeminiFinishReason(reason: string | null | undefined, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'STOP':
      return hasToolCalls ? 'tool_calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
      return 'content_filter';
    default:
      // LANGUAGE, OTHER, FINISH_REASON_UNSPECIFIED and reasons added later.
      return hasToolCalls ? 'tool_calls' : 'stop';
  }
}

/**
 * Finish reasons that mean the model failed to produce a usable answer rather
 * than finished one: the candidate holds no call and usually no content, and
 * the same request often succeeds when tried again. The gateway reports them as
 * a retryable upstream failure, so routing can retry or fall back.
 */
export function isFailedGeneration(reason: string | null | undefined): boolean {
  return reason === 'MALFORMED_FUNCTION_CALL' || reason === 'UNEXPECTED_TOOL_CALL' || reason === 'TOO_MANY_TOOL_CALLS';
}
