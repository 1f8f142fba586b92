import { errors } from '../lib/errors.js';
import type { ChatRequest } from '../providers/contract.js';

/** What a request schema cannot say: which roles need content, and tool messages' ids (400 before any routing). */
export function checkMessages(request: Pick<ChatRequest, 'messages'>): void {
  request.messages.forEach((message, index) => {
    const hasContent = message.content !== undefined && message.content !== null;
    if (message.role === 'assistant') {
      if (!hasContent && (message.tool_calls === undefined || message.tool_calls.length === 0)) {
        throw errors.invalidRequest(`messages[${index}]: an assistant message needs 'content' or 'tool_calls'.`, `messages[${index}].content`, 'missing_required_parameter');
      }
    } else if (!hasContent) {
      throw errors.invalidRequest(`Missing required parameter: 'messages[${index}].content'.`, `messages[${index}].content`, 'missing_required_parameter');
    }
    if (message.role === 'tool' && (message.tool_call_id === undefined || message.tool_call_id === '')) {
      throw errors.invalidRequest(`Missing required parameter: 'messages[${index}].tool_call_id'.`, `messages[${index}].tool_call_id`, 'missing_required_parameter');
    }
  });
}
