import { countTokens } from 'gpt-tokenizer';
import type { ChatMessage, ChatRequest } from '../providers/contract.js';

/**
 * Token counts with the o200k_base tokenizer (GPT-4o family), used where a
 * provider reports no usage; such counts are marked `estimated`.
 * Chat framing follows OpenAI's published rule of thumb: 3 tokens per message
 * plus 3 to prime the reply.
 */
export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : countTokens(text);
}

export function messageText(message: ChatMessage): string {
  const content = message.content;
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    for (const part of content) if (typeof part.text === 'string') text += part.text;
  }
  if (message.tool_calls) for (const call of message.tool_calls) text += call.function.name + call.function.arguments;
  return text;
}

export function countPromptTokens(request: ChatRequest): number {
  let total = 3;
  for (const message of request.messages) {
    total += 3 + countTextTokens(messageText(message)) + (message.name ? countTextTokens(message.name) + 1 : 0);
  }
  if (request.tools && request.tools.length > 0) total += countTextTokens(JSON.stringify(request.tools));
  return total;
}
