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
import { unsupportedRequest } from '../provider-errors.js';
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

export interface BedrockPrompt {
  /** The text of every system and developer message, in order, for the top-level `system`. */
  readonly system: readonly BedrockTextBlock[];
  readonly messages: readonly BedrockMessage[];
  /** Names of the tools the conversation already called (Converse wants them declared). */
  readonly calledTools: readonly string[];
  /** Whether any turn holds toolUse or toolResult blocks. */
  readonly hasToolBlocks: boolean;
}

const IMAGE_FORMATS: Readonly<Record<string, BedrockImageFormat>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/**
 * OpenAI chat messages → Converse's `system` + `messages`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Message.html), by the Claude turn rules
 * (convert-to-claude-turns.ts), which Converse applies to every model. What is Converse's own:
 * - The first turn must be the user's; a conversation that opens with the assistant is refused here (retryable:
 *   other providers take it) rather than given an invented user turn.
 * - Images go as bytes only, never by URL; a tool result that is a JSON object goes as `json`.
 */
export function convertToBedrockMessages(messages: readonly ChatMessage[], provider: string): BedrockPrompt {
  const { system, turns } = convertToClaudeTurns(messages, provider, bedrockBlocks);
  if (turns[0]?.role !== 'user') throw unsupportedRequest(provider, "Bedrock's Converse API needs the conversation to start with a user message.");
  const calledTools = new Set<string>();
  let hasToolBlocks = false;
  for (const turn of turns) {
    for (const block of turn.blocks) {
      if ('toolUse' in block) {
        calledTools.add(block.toolUse.name);
        hasToolBlocks = true;
      } else if ('toolResult' in block) {
        hasToolBlocks = true;
      }
    }
  }
  return {
    system,
    messages: turns.map((turn): BedrockMessage => (turn.role === 'user' ? { role: 'user', content: turn.blocks } : { role: 'assistant', content: turn.blocks })),
    calledTools: [...calledTools],
    hasToolBlocks,
  };
}

const bedrockBlocks: ClaudeBlockFormat<BedrockUserBlock, BedrockAssistantBlock, BedrockTextBlock, BedrockImageBlock> = {
  name: 'Bedrock',
  textBlock: (text) => ({ text }),
  imageBlock,
  otherUserBlock(part, path, provider) {
    throw unsupportedRequest(provider, `${path}: the gateway's Bedrock adapter does not take '${part.type}' content.`);
  },
  assistantBlocks(message, path, provider) {
    const calls = (message.tool_calls ?? []).map((call, position) => toolUse(call, `${path}.tool_calls[${position}]`, provider));
    return [...claudeTextBlocks(message.content, path, provider, bedrockBlocks), ...calls];
  },
  toolResult,
  isToolResult: (block) => 'toolResult' in block,
  trimPrefill: (block) => ('text' in block ? { text: block.text.trimEnd() } : block),
};

/** Converse takes image bytes (or S3 locations), never a URL to fetch. */
function imageBlock(part: ContentPart, path: string, provider: string): BedrockImageBlock {
  const url = imageUrlOf(part, path, provider);
  if (/^https?:\/\//i.test(url)) throw unsupportedRequest(provider, `${path}: Bedrock takes images as data: URLs only, not by http(s) URL.`);
  const { mediaType, data } = parseBase64DataUrl(url, `${path}.image_url.url`, provider);
  const format = IMAGE_FORMATS[mediaType];
  if (format === undefined) throw unsupportedRequest(provider, `${path}: Bedrock takes PNG, JPEG, GIF and WebP images, not ${mediaType}.`);
  return { image: { format, source: { bytes: data } } };
}

function toolUse(call: ToolCall, path: string, provider: string): BedrockToolUseBlock {
  return { toolUse: { toolUseId: call.id, name: call.function.name, input: toolInput(call.function.arguments, `${path}.function.arguments`, provider) } };
}

/**
 * A tool message → a `toolResult` block. A result that is a JSON object goes as
 * `json` (structured, as Converse offers); other text as `text`. Converse rejects
 * blank text and an empty result list, so an empty result says so in words.
 */
function toolResult(message: ChatMessage, path: string, provider: string): BedrockToolResultBlock {
  const toolUseId = toolCallIdOf(message, path, provider);
  const content = message.content;
  let blocks: BedrockToolResultContent[];
  if (content === undefined || content === null) blocks = [];
  else if (typeof content === 'string') blocks = hasText(content) ? [textOrJson(content)] : [];
  else blocks = toolResultParts(content, path, provider, bedrockBlocks);
  return { toolResult: { toolUseId, content: blocks.length > 0 ? blocks : [{ text: '(empty result)' }] } };
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
