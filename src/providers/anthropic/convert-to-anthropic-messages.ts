import type { ChatMessage, ContentPart, ToolCall } from '../contract.js';
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
import { invalidRequest, unsupportedByAnthropic } from './anthropic-errors.js';

export interface AnthropicPrompt {
  /** The text of every system and developer message, in order, for the top-level `system`. */
  readonly system: readonly AnthropicTextBlock[];
  readonly messages: readonly AnthropicMessage[];
}

type Turn = { readonly role: 'user'; readonly blocks: AnthropicUserBlock[] } | { readonly role: 'assistant'; readonly blocks: AnthropicAssistantBlock[] };

/**
 * OpenAI chat messages → Anthropic's `system` + `messages`.
 *
 * - System and developer messages have no place among Anthropic's messages: their
 *   text is lifted, in order, into the top-level `system`, wherever they stood.
 * - Tool messages become `tool_result` blocks of a user turn, and consecutive
 *   messages of one Anthropic role are merged into one turn, as the API expects
 *   (https://docs.claude.com/en/api/messages, `messages`). In a user turn the
 *   `tool_result` blocks go first, as tool use requires
 *   (https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
 * - A conversation may begin with an assistant turn: the first-party API accepts
 *   it (only Bedrock insists on a user turn first, anthropic-sdk-typescript#622),
 *   so nothing is inserted.
 * - Anthropic rejects empty and whitespace-only text blocks, so such text is left
 *   out, and a message left with nothing (it said nothing) is dropped.
 */
export function convertToAnthropicMessages(messages: readonly ChatMessage[], provider: string): AnthropicPrompt {
  const system: AnthropicTextBlock[] = [];
  const turns: Turn[] = [];
  const pushUser = (blocks: AnthropicUserBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === 'user') last.blocks.push(...blocks);
    else turns.push({ role: 'user', blocks });
  };
  const pushAssistant = (blocks: AnthropicAssistantBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === 'assistant') last.blocks.push(...blocks);
    else turns.push({ role: 'assistant', blocks });
  };

  messages.forEach((message, index) => {
    const path = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...textBlocks(message.content, path, provider));
        break;
      case 'user':
        pushUser(userBlocks(message.content, path, provider));
        break;
      case 'assistant':
        pushAssistant([
          ...textBlocks(message.content, path, provider),
          ...(message.tool_calls ?? []).map((call, position) => toolUse(call, `${path}.tool_calls[${position}]`, provider)),
        ]);
        break;
      case 'tool':
        pushUser([toolResult(message, path, provider)]);
        break;
    }
  });
  if (turns.length === 0) throw invalidRequest(provider, 'Anthropic needs at least one user or assistant message with content.');

  const last = turns.at(-1);
  const lastBlock = last?.blocks.at(-1);
  if (last?.role === 'assistant' && lastBlock?.type === 'text') {
    // A final assistant turn is a prefill, which Anthropic refuses to end in whitespace.
    last.blocks[last.blocks.length - 1] = { ...lastBlock, text: lastBlock.text.trimEnd() };
  }
  return {
    system,
    messages: turns.map((turn): AnthropicMessage =>
      turn.role === 'user' ? { role: 'user', content: compact(toolResultsFirst(turn.blocks)) } : { role: 'assistant', content: compact(turn.blocks) },
    ),
  };
}

/** A turn that is a single plain text block is sent as a string, as Anthropic's own examples do. */
function compact<Block extends AnthropicUserBlock | AnthropicAssistantBlock>(blocks: Block[]): string | Block[] {
  const only: AnthropicUserBlock | AnthropicAssistantBlock | undefined = blocks[0];
  if (blocks.length === 1 && only?.type === 'text' && only.cache_control === undefined) return only.text;
  return blocks;
}

function toolResultsFirst(blocks: readonly AnthropicUserBlock[]): AnthropicUserBlock[] {
  return [...blocks.filter((block) => block.type === 'tool_result'), ...blocks.filter((block) => block.type !== 'tool_result')];
}

function hasText(text: string): boolean {
  return text.trim() !== '';
}

function textBlock(text: string, part?: ContentPart): AnthropicTextBlock {
  const cacheControl = part === undefined ? undefined : cacheControlOf(part);
  return cacheControl === undefined ? { type: 'text', text } : { type: 'text', text, cache_control: cacheControl };
}

/** Anthropic's `cache_control` marker, when a client put one on a part (clients that know Anthropic do). */
function cacheControlOf(part: ContentPart): AnthropicCacheControl | undefined {
  const value = part.cache_control;
  return isRecord(value) && typeof value.type === 'string' ? (value as AnthropicCacheControl) : undefined;
}

/** Text-only content (system, developer and assistant messages); an assistant's refusal parts are its text too. */
function textBlocks(content: ChatMessage['content'], path: string, provider: string): AnthropicTextBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return hasText(content) ? [textBlock(content)] : [];
  return content.flatMap((part, position): AnthropicTextBlock[] => {
    const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
    if (typeof text !== 'string') throw unsupportedByAnthropic(provider, `${path}.content[${position}]: a '${part.type}' part is not supported in this message.`);
    return hasText(text) ? [textBlock(text, part)] : [];
  });
}

function userBlocks(content: ChatMessage['content'], path: string, provider: string): AnthropicUserBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return hasText(content) ? [textBlock(content)] : [];
  return content.flatMap((part, position): AnthropicUserBlock[] => {
    const partPath = `${path}.content[${position}]`;
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') throw invalidRequest(provider, `${partPath}: a text part needs 'text'.`);
        return hasText(part.text) ? [textBlock(part.text, part)] : [];
      case 'image_url':
        return [imageBlock(part, partPath, provider)];
      case 'file':
        return [documentBlock(part, partPath, provider)];
      default:
        throw unsupportedByAnthropic(provider, `${partPath}: Anthropic's Messages API does not take '${part.type}' content.`);
    }
  });
}

function imageBlock(part: ContentPart, path: string, provider: string): AnthropicImageBlock {
  const raw = part.image_url;
  const url = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw.url === 'string' ? raw.url : undefined;
  if (url === undefined) throw invalidRequest(provider, `${path}: an image_url part needs image_url.url.`);
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
  if (typeof file.file_data !== 'string') throw unsupportedByAnthropic(provider, `${path}: Anthropic takes files as inline file_data only, not by file_id.`);
  const { mediaType, data } = parseBase64DataUrl(file.file_data, `${path}.file.file_data`, provider);
  if (mediaType !== 'application/pdf') throw unsupportedByAnthropic(provider, `${path}: Anthropic takes PDF files only, not ${mediaType}.`);
  const cacheControl = cacheControlOf(part);
  return { type: 'document', source: { type: 'base64', media_type: mediaType, data }, ...(cacheControl === undefined ? {} : { cache_control: cacheControl }) };
}

function parseBase64DataUrl(url: string, path: string, provider: string): { mediaType: string; data: string } {
  const match = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/is.exec(url);
  const parameters = (match?.[2] ?? '').toLowerCase().split(';');
  if (match === null || !parameters.includes('base64')) {
    throw invalidRequest(provider, `${path} must be a base64 data: URL (data:<media type>;base64,<data>).`);
  }
  return { mediaType: (match[1] ?? '').trim().toLowerCase(), data: match[3] ?? '' };
}

function toolUse(call: ToolCall, path: string, provider: string): AnthropicToolUseBlock {
  return { type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments, `${path}.function.arguments`, provider) };
}

/**
 * Anthropic takes a tool call's input as a JSON object, not as text, so arguments
 * that do not parse cannot be sent: guessing `{}` would tell the model it called
 * the tool with nothing. Empty arguments are the no-argument form, and are `{}`.
 */
function toolInput(text: string, path: string, provider: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidRequest(provider, `${path} is not valid JSON (${(error as Error).message}).`);
  }
  if (!isRecord(parsed)) throw invalidRequest(provider, `${path} must be a JSON object.`);
  return parsed;
}

function toolResult(message: ChatMessage, path: string, provider: string): AnthropicToolResultBlock {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') throw invalidRequest(provider, `${path}: a tool message needs 'tool_call_id'.`);
  const block = { type: 'tool_result', tool_use_id: message.tool_call_id } as const;
  const content = message.content;
  if (content === undefined || content === null) return block;
  if (typeof content === 'string') return hasText(content) ? { ...block, content } : block;
  const parts = content.flatMap((part, position): (AnthropicTextBlock | AnthropicImageBlock)[] => {
    const partPath = `${path}.content[${position}]`;
    if (part.type === 'text' && typeof part.text === 'string') return hasText(part.text) ? [textBlock(part.text, part)] : [];
    if (part.type === 'image_url') return [imageBlock(part, partPath, provider)];
    throw unsupportedByAnthropic(provider, `${partPath}: a tool result may hold text and images only, not '${part.type}'.`);
  });
  return parts.length === 0 ? block : { ...block, content: parts };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
