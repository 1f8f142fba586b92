import { createRequire } from 'node:module';
import type { ChatMessage, ChatRequest } from './contract.js';

type CountTokens = (text: string) => number;
let loadedCountTokens: CountTokens | undefined;

/**
 * gpt-tokenizer's o200k tables take about 60 MB and 50 ms to load, so they are
 * loaded on the first count (its CommonJS build, synchronously), not when the
 * module is imported: the CLI and an idle server never pay for them.
 */
function countTokens(text: string): number {
  loadedCountTokens ??= (createRequire(import.meta.url)('gpt-tokenizer') as { countTokens: CountTokens }).countTokens;
  return loadedCountTokens(text);
}

/**
 * Token counts with the o200k_base tokenizer (GPT-4o family), used where a
 * provider reports no usage; such counts are marked `estimated`.
 * Chat framing follows OpenAI's published rule of thumb: 3 tokens per message
 * plus 3 to prime the reply.
 */
export function countTextTokens(text: string): number {
  if (text.length <= SLICE_CHARACTERS) return text.length === 0 ? 0 : countTokens(text);
  let total = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + SLICE_CHARACTERS, text.length);
    if (end < text.length) {
      // Cut before a space: the tokenizer glues a word to the space in front of it, so the count stays exact.
      const space = text.lastIndexOf(' ', end);
      if (space > start) end = space;
      else if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    }
    total += countTokens(text.slice(start, end));
    start = end;
  }
  return total;
}

/**
 * gpt-tokenizer's BPE is quadratic in the length of one unbroken run (50 KB of
 * "a" blocks the event loop for seconds, a 10 MB body for hours), so long
 * texts are counted in slices of at most this many characters: linear time.
 */
const SLICE_CHARACTERS = 1024;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
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
