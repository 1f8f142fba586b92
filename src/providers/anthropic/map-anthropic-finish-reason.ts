import type { FinishReason } from '../contract.js';

/** https://docs.claude.com/en/api/messages#response-stop-reason */
export function mapAnthropicFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'max_tokens':
    // The prompt plus the answer filled the context window: cut short, as `length` says.
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    // end_turn, stop_sequence, pause_turn (a server tool loop paused; the turn so far is whole) and anything new.
    default:
      return 'stop';
  }
}
