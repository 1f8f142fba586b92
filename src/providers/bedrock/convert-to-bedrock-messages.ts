import type { ChatMessage, ContentPart, ToolCall } from '../contract.js';
import type {
  BedrockAssistantBlock,
  BedrockImageBlock,
  BedrockImageFormat,
  BedrockMessage,
  BedrockTextBlock,
  BedrockToolResultBlock,
  BedrockToolResultContent,
  BedrockToolUseBlock,
  BedrockUserBlock,
} from './bedrock-api.js';
import { invalidRequest, unsupportedByBedrock } from './bedrock-errors.js';

export interface BedrockPrompt {
  /** The text of every system and developer message, in order, for the top-level `system`. */
  readonly system: readonly BedrockTextBlock[];
  readonly messages: readonly BedrockMessage[];
  /** Names of the tools the conversation already called (Converse wants them declared). */
  readonly calledTools: readonly string[];
  /** Whether any turn holds toolUse or toolResult blocks. */
  readonly hasToolBlocks: boolean;
}

type Turn = { readonly role: 'user'; readonly blocks: BedrockUserBlock[] } | { readonly role: 'assistant'; readonly blocks: BedrockAssistantBlock[] };

const IMAGE_FORMATS: Readonly<Record<string, BedrockImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * OpenAI chat messages → Converse's `system` + `messages`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html).
 *
 * - System and developer text is lifted, in order, into the top-level `system`.
 * - Tool messages become `toolResult` blocks of a user turn, and consecutive
 *   messages of one role are merged: Converse requires user and assistant turns
 *   to alternate. In a user turn the tool results go first (Claude requires it).
 * - Converse rejects blank text blocks, so whitespace-only text is left out and a
 *   message left with nothing is dropped; the last assistant turn (a prefill)
 *   may not end in whitespace, so it is trimmed.
 * - The first turn must be the user's; a conversation that opens with the
 *   assistant is refused here (retryable: other providers take it) rather than
 *   given an invented user turn.
 */
export function convertToBedrockMessages(messages: readonly ChatMessage[], provider: string): BedrockPrompt {
  const system: BedrockTextBlock[] = [];
  const turns: Turn[] = [];
  const calledTools = new Set<string>();
  let hasToolBlocks = false;
  const pushUser = (blocks: BedrockUserBlock[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    if (last?.role === 'user') last.blocks.push(...blocks);
    else turns.push({ role: 'user', blocks });
  };
  const pushAssistant = (blocks: BedrockAssistantBlock[]) => {
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
      case 'assistant': {
        const calls = (message.tool_calls ?? []).map((call, position) => toolUse(call, `${path}.tool_calls[${position}]`, provider));
        for (const call of calls) calledTools.add(call.toolUse.name);
        hasToolBlocks ||= calls.length > 0;
        pushAssistant([...textBlocks(message.content, path, provider), ...calls]);
        break;
      }
      case 'tool':
        hasToolBlocks = true;
        pushUser([toolResult(message, path, provider)]);
        break;
    }
  });
  if (turns.length === 0) throw invalidRequest(provider, 'Bedrock needs at least one user or assistant message with content.');
  if (turns[0]?.role !== 'user') throw unsupportedByBedrock(provider, "Bedrock's Converse API needs the conversation to start with a user message.");

  const last = turns.at(-1);
  const lastBlock = last?.blocks.at(-1);
  if (last?.role === 'assistant' && lastBlock !== undefined && 'text' in lastBlock) {
    last.blocks[last.blocks.length - 1] = { text: lastBlock.text.trimEnd() };
  }
  return {
    system,
    messages: turns.map((turn): BedrockMessage =>
      turn.role === 'user' ? { role: 'user', content: toolResultsFirst(turn.blocks) } : { role: 'assistant', content: turn.blocks },
    ),
    calledTools: [...calledTools],
    hasToolBlocks,
  };
}

function toolResultsFirst(blocks: readonly BedrockUserBlock[]): BedrockUserBlock[] {
  return [...blocks.filter((block) => 'toolResult' in block), ...blocks.filter((block) => !('toolResult' in block))];
}

const hasText = (text: string): boolean => text.trim() !== '';

/** Text-only content (system, developer and assistant messages); an assistant's refusal parts are its text too. */
function textBlocks(content: ChatMessage['content'], path: string, provider: string): BedrockTextBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return hasText(content) ? [{ text: content }] : [];
  return content.flatMap((part, position): BedrockTextBlock[] => {
    const text = part.type === 'text' ? part.text : part.type === 'refusal' ? part.refusal : undefined;
    if (typeof text !== 'string') throw unsupportedByBedrock(provider, `${path}.content[${position}]: a '${part.type}' part is not supported in this message.`);
    return hasText(text) ? [{ text }] : [];
  });
}

function userBlocks(content: ChatMessage['content'], path: string, provider: string): BedrockUserBlock[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return hasText(content) ? [{ text: content }] : [];
  return content.flatMap((part, position): BedrockUserBlock[] => {
    const partPath = `${path}.content[${position}]`;
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') throw invalidRequest(provider, `${partPath}: a text part needs 'text'.`);
        return hasText(part.text) ? [{ text: part.text }] : [];
      case 'image_url':
        return [imageBlock(part, partPath, provider)];
      default:
        throw unsupportedByBedrock(provider, `${partPath}: the gateway's Bedrock adapter does not take '${part.type}' content.`);
    }
  });
}

/** Converse takes image bytes (or S3 locations), never a URL to fetch. */
function imageBlock(part: ContentPart, path: string, provider: string): BedrockImageBlock {
  const raw = part.image_url;
  const url = typeof raw === 'string' ? raw : isRecord(raw) && typeof raw.url === 'string' ? raw.url : undefined;
  if (url === undefined) throw invalidRequest(provider, `${path}: an image_url part needs image_url.url.`);
  if (/^https?:\/\//i.test(url)) throw unsupportedByBedrock(provider, `${path}: Bedrock takes images as data: URLs only, not by http(s) URL.`);
  const match = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/is.exec(url);
  if (match === null || !(match[2] ?? '').toLowerCase().split(';').includes('base64')) {
    throw invalidRequest(provider, `${path}.image_url.url must be a base64 data: URL (data:<media type>;base64,<data>).`);
  }
  const mediaType = (match[1] ?? '').trim().toLowerCase();
  const format = IMAGE_FORMATS[mediaType];
  if (format === undefined) throw unsupportedByBedrock(provider, `${path}: Bedrock takes PNG, JPEG, GIF and WebP images, not ${mediaType}.`);
  return { image: { format, source: { bytes: match[3] ?? '' } } };
}

function toolUse(call: ToolCall, path: string, provider: string): BedrockToolUseBlock {
  return { toolUse: { toolUseId: call.id, name: call.function.name, input: toolInput(call.function.arguments, `${path}.function.arguments`, provider) } };
}

/** Converse takes a call's input as a JSON object; empty arguments are the no-argument form, `{}`. */
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

/**
 * A tool message → a `toolResult` block. A result that is a JSON object goes as
 * `json` (structured, as Converse offers); other text as `text`. Converse rejects
 * blank text and an empty result list, so an empty result says so in words.
 */
function toolResult(message: ChatMessage, path: string, provider: string): BedrockToolResultBlock {
  if (typeof message.tool_call_id !== 'string' || message.tool_call_id === '') throw invalidRequest(provider, `${path}: a tool message needs 'tool_call_id'.`);
  const content = message.content;
  let blocks: BedrockToolResultContent[];
  if (content === undefined || content === null) blocks = [];
  else if (typeof content === 'string') blocks = hasText(content) ? [textOrJson(content)] : [];
  else {
    blocks = content.flatMap((part, position): BedrockToolResultContent[] => {
      const partPath = `${path}.content[${position}]`;
      if (part.type === 'text' && typeof part.text === 'string') return hasText(part.text) ? [{ text: part.text }] : [];
      if (part.type === 'image_url') return [imageBlock(part, partPath, provider)];
      throw unsupportedByBedrock(provider, `${partPath}: a tool result may hold text and images only, not '${part.type}'.`);
    });
  }
  return { toolResult: { toolUseId: message.tool_call_id, content: blocks.length > 0 ? blocks : [{ text: '(empty result)' }] } };
}

function textOrJson(text: string): BedrockToolResultContent {
  if (!/^\s*\{/.test(text)) return { text };
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? { json: parsed } : { text };
  } catch {
    return { text };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
