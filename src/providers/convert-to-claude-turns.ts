import type { ChatMessage, ContentPart } from './contract.js';
import { invalidRequest, unsupportedRequest } from './provider-errors.js';

/**
 * OpenAI chat messages → Claude-style turns, the conversation shape of Anthropic's Messages API and of Bedrock's
 * Converse API alike; each format gives its own blocks (ClaudeBlockFormat) and keeps what only it does.
 *
 * - System and developer messages have no place among the turns: their text is lifted, in order, into the
 *   top-level `system`, wherever they stood.
 * - Tool messages become tool-result blocks of a user turn, and consecutive messages of one role are merged into
 *   one turn: user and assistant turns alternate (https://docs.claude.com/en/api/messages, `messages`). In a user
 *   turn the tool results go first, as tool use requires
 *   (https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use).
 * - Blank text blocks are refused by both, so whitespace-only text is left out, and a message left with nothing
 *   (it said nothing) is dropped. A final assistant turn is a prefill, which may not end in whitespace: trimmed.
 */

export type ClaudeTurn<UserBlock, AssistantBlock> =
  | { readonly role: 'user'; readonly blocks: UserBlock[] }
  | { readonly role: 'assistant'; readonly blocks: AssistantBlock[] };

export interface ClaudeTurns<TextBlock, UserBlock, AssistantBlock> {
  /** The text of every system and developer message, in order. */
  readonly system: TextBlock[];
  /** Alternating turns, tool results first in each user turn. */
  readonly turns: readonly ClaudeTurn<UserBlock, AssistantBlock>[];
}

/** One format's blocks. A text block is both a user and an assistant block; an image block is a user block. */
export interface ClaudeBlockFormat<UserBlock, AssistantBlock, TextBlock extends UserBlock & AssistantBlock, ImageBlock extends UserBlock> {
  /** Named in the error for a conversation with no content. */
  readonly name: string;
  /** A text block; `part` is the content part it came from (absent for string content). */
  textBlock(text: string, part: ContentPart | undefined): TextBlock;
  /** An `image_url` part (of a user message or a tool result). */
  imageBlock(part: ContentPart, path: string, provider: string): ImageBlock;
  /** A user content part other than text and images; throws for a kind the format does not take. */
  otherUserBlock(part: ContentPart, path: string, provider: string): UserBlock;
  /** An assistant message's text and tool calls. */
  assistantBlocks(message: ChatMessage, path: string, provider: string): AssistantBlock[];
  /** A tool message's result. */
  toolResult(message: ChatMessage, path: string, provider: string): UserBlock;
  isToolResult(block: UserBlock): boolean;
  /** The last block of a final assistant turn: its text without trailing whitespace (other blocks as they are). */
  trimPrefill(block: AssistantBlock): AssistantBlock;
}

export function convertToClaudeTurns<UserBlock, AssistantBlock, TextBlock extends UserBlock & AssistantBlock, ImageBlock extends UserBlock>(
  messages: readonly ChatMessage[],
  provider: string,
  format: ClaudeBlockFormat<UserBlock, AssistantBlock, TextBlock, ImageBlock>,
): ClaudeTurns<TextBlock, UserBlock, AssistantBlock> {
  const system: TextBlock[] = [];
  const turns: ClaudeTurn<UserBlock, AssistantBlock>[] = [];
  const pushUser = (blocks: UserBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === 'user') last.blocks.push(...blocks);
    else turns.push({ role: 'user', blocks });
  };
  const pushAssistant = (blocks: AssistantBlock[]) => {
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
        system.push(...claudeTextBlocks(message.content, path, provider, format));
        break;
      case 'user':
        pushUser(userBlocks(message.content, path, provider, format));
        break;
      case 'assistant':
        pushAssistant(format.assistantBlocks(message, path, provider));
        break;
      case 'tool':
        pushUser([format.toolResult(message, path, provider)]);
        break;
    }
  });
  if (turns.length === 0) throw invalidRequest(provider, `${format.name} needs at least one user or assistant message with content.`);

  const last = turns.at(-1);
  if (last?.role === 'assistant') {
    const lastBlock = last.blocks.at(-1);
    if (lastBlock !== undefined) last.blocks[last.blocks.length - 1] = format.trimPrefill(lastBlock);
  }
  return {
    system,
    turns: turns.map((turn) => (turn.role === 'user' ? { role: 'user', blocks: toolResultsFirst(turn.blocks, format.isToolResult) } : turn)),
  };
}

/** Text-only content (system, developer and assistant messages); an assistant's refusal parts are its text too. */
export function claudeTextBlocks<TextBlock>(
  content: ChatMessage['content'],
  path: string,
  provider: string,
  format: { textBlock(text: string, part: ContentPart | undefined): TextBlock },
): TextBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return hasText(content) ? [format.textBlock(content, undefined)] : [];
  return content.flatMap((part, position): TextBlock[] => {
    const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
    if (typeof text !== 'string') throw unsupportedRequest(provider, `${path}.content[${position}]: a '${part.type}' part is not supported in this message.`);
    return hasText(text) ? [format.textBlock(text, part)] : [];
  });
}

function userBlocks<UserBlock, AssistantBlock, TextBlock extends UserBlock & AssistantBlock, ImageBlock extends UserBlock>(
  content: ChatMessage['content'],
  path: string,
  provider: string,
  format: ClaudeBlockFormat<UserBlock, AssistantBlock, TextBlock, ImageBlock>,
): UserBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return hasText(content) ? [format.textBlock(content, undefined)] : [];
  return content.flatMap((part, position): UserBlock[] => {
    const partPath = `${path}.content[${position}]`;
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') throw invalidRequest(provider, `${partPath}: a text part needs 'text'.`);
        return hasText(part.text) ? [format.textBlock(part.text, part)] : [];
      case 'image_url':
        return [format.imageBlock(part, partPath, provider)];
      default:
        return [format.otherUserBlock(part, partPath, provider)];
    }
  });
}

/** The content parts of a tool message given as parts: text and images only. */
export function toolResultParts<TextBlock, ImageBlock>(
  parts: readonly ContentPart[],
  path: string,
  provider: string,
  format: { textBlock(text: string, part: ContentPart | undefined): TextBlock; imageBlock(part: ContentPart, path: string, provider: string): ImageBlock },
): (TextBlock | ImageBlock)[] {
  return parts.flatMap((part, position): (TextBlock | ImageBlock)[] => {
    const partPath = `${path}.content[${position}]`;
    if (part.type === 'text' && typeof part.text === 'string') return hasText(part.text) ? [format.textBlock(part.text, part)] : [];
    if (part.type === 'image_url') return [format.imageBlock(part, partPath, provider)];
    throw unsupportedRequest(provider, `${partPath}: a tool result may hold text and images only, not '${part.type}'.`);
  });
}

/** The id of the call a tool message answers. */
export function toolCallIdOf(message: ChatMessage, path: string, provider: string): string {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') throw invalidRequest(provider, `${path}: a tool message needs 'tool_call_id'.`);
  return message.tool_call_id;
}

/** An `image_url` part's URL (given as a string or as `{ url }`). */
export function imageUrlOf(part: ContentPart, path: string, provider: string): string {
  const raw = part.image_url;
  const url = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw.url === 'string' ? raw.url : undefined;
  if (url === undefined) throw invalidRequest(provider, `${path}: an image_url part needs image_url.url.`);
  return url;
}

/** A base64 data: URL's media type (lower case) and data; `path` names the URL in the error. */
export function parseBase64DataUrl(url: string, path: string, provider: string): { mediaType: string; data: string } {
  const match = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/is.exec(url);
  const parameters = (match?.[2] ?? '').toLowerCase().split(';');
  if (match === null || !parameters.includes('base64')) {
    throw invalidRequest(provider, `${path} must be a base64 data: URL (data:<media type>;base64,<data>).`);
  }
  return { mediaType: (match[1] ?? '').trim().toLowerCase(), data: match[3] ?? '' };
}

/**
 * A tool call's arguments as the JSON object both formats take as its input: arguments that do not parse cannot
 * be sent (guessing `{}` would tell the model it called the tool with nothing). Empty arguments are the
 * no-argument form, `{}`.
 */
export function toolInput(text: string, path: string, provider: string): Record<string, unknown> {
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

export function hasText(text: string): boolean {
  return text.trim() !== '';
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolResultsFirst<UserBlock>(blocks: readonly UserBlock[], isToolResult: (block: UserBlock) => boolean): UserBlock[] {
  return [...blocks.filter((block) => isToolResult(block)), ...blocks.filter((block) => !isToolResult(block))];
}
