import type { FinishReason } from '../contract.js';

export function mapOpenAIFinishReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'length':
      return 'length';
    case 'tool_calls':
      return 'tool_calls';
    case 'function_call':
      return 'function_call';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'stop';
  }
}
