import type { FinishReason } from '../contract.js';

/** https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax (stopReason) */
export function mapBedrockFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    // The prompt plus the answer filled the context window: cut short, as `length` says.
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    // end_turn, stop_sequence and reasons added later.
    default:
      return 'stop';
  }
}
