import { errors } from '../../lib/errors.js';
import type { ChatMessage, ChatRequest, ContentPart, ToolCall, ToolDefinition } from '../../providers/contract.js';
import type { DecodedRequest } from '../surface-adapter.js';
import type {
  AnthropicContentBlock,
  AnthropicMessageBody,
  AnthropicRequestBody,
  AnthropicTextBlockBody,
  AnthropicToolBody,
  AnthropicToolChoiceBody,
} from './anthropic-messages-request-schema.js';

/**
 * An Anthropic Messages request → the gateway's chat request (OpenAI's shape),
 * which every provider adapter takes. Only OpenAI fields are produced: the
 * request goes to whichever model the router picks, and OpenAI refuses fields
 * it does not know. Hence `top_k`, `thinking` and `cache_control` markers are
 * dropped (docs/api.md, "Anthropic Messages format").
 *
 * - `system` → a leading system message; `role: "system"` messages → system messages where they stand.
 * - `tool_use` blocks → the assistant message's `tool_calls` (input as JSON text).
 * - `tool_result` blocks → `tool` messages, placed before the rest of their user
 *   turn, as OpenAI wants them right after the assistant's tool calls. Images in
 *   a tool result follow in a user message (OpenAI tool messages hold text only).
 * - images → `image_url` parts (base64 as a data: URL); PDFs → `file` parts; text documents → text.
 * - thinking blocks are the model's own and are dropped.
 */
export function decodeAnthropicMessagesRequest(body: AnthropicRequestBody): DecodedRequest {
  return { chatRequest: convertFromAnthropicRequest(body), model: body.model, stream: body.stream === true, includeUsage: false };
}

function convertFromAnthropicRequest(body: AnthropicRequestBody): ChatRequest {
  const messages: ChatMessage[] = [...systemMessages(body.system)];
  body.messages.forEach((message, index) => messages.push(...convertMessage(message, `messages[${index}]`)));
  if (!messages.some((message) => message.role !== 'system')) {
    throw errors.invalidRequest('messages: at least one message must have content.', 'messages', 'invalid_value');
  }

  const tools = body.tools === undefined || body.tools.length === 0 ? undefined : body.tools.map((tool, index) => convertTool(tool, `tools[${index}]`));
  const request: Record<string, unknown> = { messages, max_tokens: body.max_tokens };
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.top_p = body.top_p;
  if (body.stop_sequences !== undefined && body.stop_sequences.length > 0) request.stop = body.stop_sequences;
  if (tools !== undefined) {
    request.tools = tools;
    // Without tools a tool_choice means nothing, and OpenAI refuses it.
    if (body.tool_choice !== undefined) Object.assign(request, convertToolChoice(body.tool_choice, tools));
  }
  if (typeof body.metadata?.user_id === 'string' && body.metadata.user_id !== '') request.user = body.metadata.user_id;
  return request as ChatRequest;
}

function systemMessages(system: AnthropicRequestBody['system']): ChatMessage[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return system.trim() === '' ? [] : [{ role: 'system', content: system }];
  const parts = system.filter((block) => block.text.trim() !== '').map(textPart);
  return parts.length === 0 ? [] : [{ role: 'system', content: parts.length === 1 ? (parts[0]?.text ?? '') : parts }];
}

/**
 * A system message inside `messages` (Anthropic's "mid-conversation system messages", which Claude Code sends
 * to a model it does not know): kept where it stands; providers that take a single system prompt gather it there.
 */
function midConversationSystem(content: AnthropicMessageBody['content'], path: string): ChatMessage[] {
  if (typeof content === 'string') return systemMessages(content);
  const blocks = content.map((block, position) => {
    if (block.type !== 'text') {
      throw errors.invalidRequest(`${path}.content[${position}]: a system message cannot hold a '${block.type}' block.`, `${path}.content[${position}].type`, 'invalid_value');
    }
    return block;
  });
  return systemMessages(blocks);
}

/** Anthropic's `cache_control` is left behind: OpenAI refuses unknown fields on a part. */
function textPart(block: AnthropicTextBlockBody): ContentPart & { text: string } {
  return { type: 'text', text: block.text };
}

function convertMessage(message: AnthropicMessageBody, path: string): ChatMessage[] {
  if (message.role === 'system') return midConversationSystem(message.content, path);
  if (message.role === 'assistant') {
    const assistant = convertAssistant(message.content, path);
    return assistant === undefined ? [] : [assistant];
  }
  if (typeof message.content === 'string') return [{ role: 'user', content: message.content }];
  const toolMessages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  const resultImages: ContentPart[] = [];
  message.content.forEach((block, position) => {
    const blockPath = `${path}.content[${position}]`;
    if (block.type === 'tool_result') {
      const { message: toolMessage, images } = convertToolResult(block);
      toolMessages.push(toolMessage);
      resultImages.push(...images);
    } else {
      parts.push(...userPart(block, blockPath));
    }
  });
  const userParts = [...resultImages, ...parts];
  if (toolMessages.length === 0 && userParts.length === 0) {
    throw errors.invalidRequest(`${path}: a user message needs non-empty content.`, `${path}.content`, 'invalid_value');
  }
  return [...toolMessages, ...(userParts.length > 0 ? [{ role: 'user' as const, content: userParts }] : [])];
}

function userPart(block: AnthropicContentBlock, path: string): ContentPart[] {
  switch (block.type) {
    case 'text':
      return [textPart(block)];
    case 'image':
      return [imagePart(block.source)];
    case 'document':
      return [documentPart(block, path)];
    case 'thinking':
    case 'redacted_thinking':
      return [];
    default:
      throw errors.invalidRequest(`${path}: a user message cannot hold a '${block.type}' block.`, `${path}.type`, 'invalid_value');
  }
}

type ImageSource = Extract<AnthropicContentBlock, { type: 'image' }>['source'];

function imagePart(source: ImageSource): ContentPart {
  const url = source.type === 'base64' ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: 'image_url', image_url: { url } };
}

function documentPart(block: Extract<AnthropicContentBlock, { type: 'document' }>, path: string): ContentPart {
  const source = block.source;
  if (source.type === 'text') return { type: 'text', text: typeof block.title === 'string' && block.title !== '' ? `${block.title}\n\n${source.data}` : source.data };
  if (source.type === 'base64' && source.media_type.toLowerCase() === 'application/pdf') {
    // OpenAI's file part; every adapter that takes documents reads it (Anthropic's turns it back into a document block).
    return { type: 'file', file: { filename: typeof block.title === 'string' && block.title !== '' ? block.title : 'document.pdf', file_data: `data:application/pdf;base64,${source.data}` } };
  }
  const what = source.type === 'url' ? 'by URL' : `of type ${source.media_type}`;
  throw errors.invalidRequest(`${path}: documents ${what} are not supported; send a PDF as base64 or plain text.`, `${path}.source`, 'invalid_value');
}

function convertToolResult(block: Extract<AnthropicContentBlock, { type: 'tool_result' }>): { message: ChatMessage; images: ContentPart[] } {
  const texts: string[] = [];
  const images: ContentPart[] = [];
  if (typeof block.content === 'string') texts.push(block.content);
  else for (const item of block.content ?? []) {
    if (item.type === 'text') texts.push(item.text);
    else images.push(imagePart(item.source));
  }
  // OpenAI has no is_error flag: the model is told in the text itself.
  const text = texts.join('\n');
  const content = block.is_error === true ? `Error: ${text}` : text;
  return { message: { role: 'tool', tool_call_id: block.tool_use_id, content }, images };
}

function convertAssistant(content: AnthropicMessageBody['content'], path: string): ChatMessage | undefined {
  if (typeof content === 'string') return { role: 'assistant', content };
  const texts: ContentPart[] = [];
  const toolCalls: ToolCall[] = [];
  content.forEach((block, position) => {
    switch (block.type) {
      case 'text':
        if (block.text !== '') texts.push(textPart(block));
        return;
      case 'tool_use':
        toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } });
        return;
      case 'thinking':
      case 'redacted_thinking':
        return;
      default:
        throw errors.invalidRequest(`${path}.content[${position}]: an assistant message cannot hold a '${block.type}' block.`, `${path}.content[${position}].type`, 'invalid_value');
    }
  });
  // An assistant turn that only thought has nothing to pass on.
  if (texts.length === 0 && toolCalls.length === 0) return undefined;
  const text = texts.length === 0 ? null : texts.length === 1 ? (texts[0]?.text ?? '') : texts;
  return { role: 'assistant', content: text, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
}

function convertTool(tool: AnthropicToolBody, path: string): ToolDefinition {
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw errors.invalidRequest(
      `${path}: Anthropic's server tool '${tool.type}' is not supported: the router may choose a model of another provider. Define client tools with 'name' and 'input_schema'.`,
      `${path}.type`,
      'invalid_value',
    );
  }
  if (tool.input_schema === undefined) {
    throw errors.invalidRequest(`Missing required parameter: '${path}.input_schema'.`, `${path}.input_schema`, 'missing_required_parameter');
  }
  return {
    type: 'function',
    function: { name: tool.name, ...(tool.description !== undefined && tool.description !== '' ? { description: tool.description } : {}), parameters: tool.input_schema },
  };
}

/** https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use, in OpenAI's words. */
function convertToolChoice(choice: AnthropicToolChoiceBody, tools: readonly ToolDefinition[]): Record<string, unknown> {
  const parallel = choice.disable_parallel_tool_use === true ? { parallel_tool_calls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { tool_choice: 'auto', ...parallel };
    case 'any':
      return { tool_choice: 'required', ...parallel };
    case 'none':
      return { tool_choice: 'none' };
    case 'tool': {
      if (choice.name === undefined) throw errors.invalidRequest("Missing required parameter: 'tool_choice.name'.", 'tool_choice.name', 'missing_required_parameter');
      if (!tools.some((tool) => tool.function.name === choice.name)) {
        throw errors.invalidRequest(`tool_choice.name: no tool is named "${choice.name}".`, 'tool_choice.name', 'invalid_value');
      }
      return { tool_choice: { type: 'function', function: { name: choice.name } }, ...parallel };
    }
  }
}
