import type { ChatMessage, ContentPart, ToolCall } from '../contract.js';
import {
  claudeTextBlocks,
  convertToClaudeTurns,
  hasText,
  imageUrlOf,
  isRecord,
  parseBase64DataUrl,
  toolCallIdOf,
  toolInput,
  toolResultParts,
  type ClaudeBlockFormat,
} from '../convert-to-claude-turns.js';
import { invalidRequest, unsupportedRequest } from '../provider-errors.js';
import type {
  AnthropicAssistantBlock,
  AnthropicCacheControl,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicTextBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
  AnthropicUserBlock,
} from './anthropic-api.js';

export interface AnthropicPrompt {
  /** The text of every system and developer message, in order, for the top-level `system`. */
  readonly system: readonly AnthropicTextBlock[];
  readonly messages: readonly AnthropicMessage[];
}

/**
 * OpenAI chat messages → Anthropic's `system` + `messages`, by the Claude turn rules (convert-to-claude-turns.ts).
 * What is Anthropic's own:
 * - A conversation may begin with an assistant turn: the first-party API accepts it (only Bedrock insists on a
 *   user turn first, anthropic-sdk-typescript#622), so nothing is inserted.
 * - Images go by URL or as base64 data, PDF files as `document` blocks, and a client's `cache_control` marker on a
 *   part is kept.
 * - A turn that is a single plain text block is sent as a string, as Anthropic's own examples do.
 */
export function convertToAnthropicMessages(messages: readonly ChatMessage[], provider: string): AnthropicPrompt {
  const { system, turns } = convertToClaudeTurns(messages, provider, anthropicBlocks);
  return {
    system,
    messages: turns.map((turn): AnthropicMessage => (turn.role === 'user' ? { role: 'user', content: compact(turn.blocks) } : { role: 'assistant', content: compact(turn.blocks) })),
  };
}

const anthropicBlocks: ClaudeBlockFormat<AnthropicUserBlock, AnthropicAssistantBlock, AnthropicTextBlock, AnthropicImageBlock> = {
  name: 'Anthropic',
  textBlock,
  imageBlock,
  otherUserBlock(part, path, provider) {
    if (part.type === 'file') return documentBlock(part, path, provider);
    throw unsupportedRequest(provider, `${path}: Anthropic's Messages API does not take '${part.type}' content.`);
  },
  assistantBlocks: (message, path, provider) => [
    ...claudeTextBlocks(message.content, path, provider, anthropicBlocks),
    ...(message.tool_calls ?? []).map((call, position) => toolUse(call, `${path}.tool_calls[${position}]`, provider)),
  ],
  toolResult,
  isToolResult: (block) => block.type === 'tool_result',
  trimPrefill: (block) => (block.type === 'text' ? { ...block, text: block.text.trimEnd() } : block),
};

function compact<Block extends AnthropicUserBlock | AnthropicAssistantBlock>(blocks: Block[]): string | Block[] {
  const only: AnthropicUserBlock | AnthropicAssistantBlock | undefined = blocks[0];
  if (blocks.length === 1 && only?.type === 'text' && only.cache_control === undefined) return only.text;
  return blocks;
}

function textBlock(text: string, part: ContentPart | undefined): AnthropicTextBlock {
  const cacheControl = part === undefined ? undefined : cacheControlOf(part);
  return cacheControl === undefined ? { type: 'text', text } : { type: 'text', text, cache_control: cacheControl };
}

/** Anthropic's `cache_control` marker, when a client put one on a part (clients that know Anthropic do). */
function cacheControlOf(part: ContentPart): AnthropicCacheControl | undefined {
  const value = part.cache_control;
  return isRecord(value) && typeof value.type === 'string' ? (value as AnthropicCacheControl) : undefined;
}

function imageBlock(part: ContentPart, path: string, provider: string): AnthropicImageBlock {
  const url = imageUrlOf(part, path, provider);
  const cacheControl = cacheControlOf(part);
  const extra = cacheControl === undefined ? {} : { cache_control: cacheControl };
  if (/^data:/i.test(url)) {
    const { mediaType, data } = parseBase64DataUrl(url, `${path}.image_url.url`, provider);
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data }, ...extra };
  }
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url }, ...extra };
  throw invalidRequest(provider, `${path}.image_url.url must be an http(s) URL or a base64 data: URL.`);
}

/** OpenAI's `file` part with inline PDF data → a `document` block; files by id live on OpenAI's side only. */
function documentBlock(part: ContentPart, path: string, provider: string): AnthropicDocumentBlock {
  const file = isRecord(part.file) ? part.file : {};
  if (typeof file.file_data !== 'string') throw unsupportedRequest(provider, `${path}: Anthropic takes files as inline file_data only, not by file_id.`);
  const { mediaType, data } = parseBase64DataUrl(file.file_data, `${path}.file.file_data`, provider);
  if (mediaType !== 'application/pdf') throw unsupportedRequest(provider, `${path}: Anthropic takes PDF files only, not ${mediaType}.`);
  const cacheControl = cacheControlOf(part);
  return { type: 'document', source: { type: 'base64', media_type: mediaType, data }, ...(cacheControl === undefined ? {} : { cache_control: cacheControl }) };
}

function toolUse(call: ToolCall, path: string, provider: string): AnthropicToolUseBlock {
  return { type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments, `${path}.function.arguments`, provider) };
}

function toolResult(message: ChatMessage, path: string, provider: string): AnthropicToolResultBlock {
  const block = { type: 'tool_result', tool_use_id: toolCallIdOf(message, path, provider) } as const;
  const content = message.content;
  if (content === undefined || content === null) return block;
  if (typeof content === 'string') return hasText(content) ? { ...block, content } : block;
  const parts = toolResultParts(content, path, provider, anthropicBlocks);
  return parts.length === 0 ? block : { ...block, content: parts };
}
