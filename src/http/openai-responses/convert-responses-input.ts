import { errors } from '../../lib/errors.js';
import type { ChatMessage, ContentPart, ToolCall } from '../../providers/contract.js';
import type { ResponseItem } from './openai-responses-request-schema.js';

/**
 * Responses API items → the neutral request's messages (OpenAI chat's shape):
 * - `message` (typed, or the easy form with only `role` and `content`): its role; `input_text` / `output_text` parts
 *   as text, `input_image` as `image_url`, `input_file` (inline `file_data`) as a `file` part.
 * - `function_call` / `custom_tool_call` → `tool_calls` of an assistant message, joined to the assistant message they
 *   follow, as a chat turn holds its text and its calls together.
 * - `function_call_output` / `custom_tool_call_output` → `tool` messages; images in an output follow the run of
 *   outputs in a user message (chat tool messages hold text).
 * - `reasoning` items are dropped: the neutral contract carries no reasoning, so no provider behind it could use
 *   them, whichever made them (docs/decisions.md).
 * Items that refer to OpenAI's stored objects (`item_reference`, file ids) or to hosted tools are a 400 naming them.
 */

/** Names an item for errors: `input[3]`, or the previous response its item came from. */
export type ItemPath = (index: number) => string;

export function itemsToMessages(items: readonly ResponseItem[], pathOf: ItemPath): ChatMessage[] {
  const messages: ChatMessage[] = [];
  /** Images of tool outputs, sent after the run of outputs they came in. */
  let pendingImages: ContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    messages.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  items.forEach((item, index) => {
    const path = pathOf(index);
    const type = typeof item.type === 'string' ? item.type : item.role !== undefined ? 'message' : undefined;
    if (type !== 'function_call_output' && type !== 'custom_tool_call_output') flushImages();
    switch (type) {
      case 'message':
        messages.push(messageOf(item, path));
        return;
      case 'function_call':
      case 'custom_tool_call':
        addToolCall(messages, toolCallOf(item, type, path));
        return;
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const { text, images } = toolOutput(item.output, `${path}.output`);
        messages.push({ role: 'tool', tool_call_id: requireString(item, 'call_id', path), content: text });
        pendingImages.push(...images);
        return;
      }
      case 'reasoning':
        return;
      case 'item_reference':
        // Resolved against the stored responses before this (decode-openai-responses-request.ts); one left means none is stored.
        throw errors.invalidRequest(`${path}: no stored item ${JSON.stringify(item.id)} of yours; send the item itself.`, `${path}.id`, 'invalid_value');
      default:
        throw errors.invalidRequest(`${path}: input items of type ${JSON.stringify(type)} are not supported.`, `${path}.type`, 'unsupported_value');
    }
  });
  flushImages();
  return messages;

  function toolCallOf(item: ResponseItem, type: 'function_call' | 'custom_tool_call', path: string): ToolCall {
    const name = requireString(item, 'name', path);
    const namespace = typeof item.namespace === 'string' && item.namespace !== '' ? item.namespace : undefined;
    const chatName = namespace === undefined ? name : `${namespace}__${name}`;
    const args = type === 'function_call' ? requireString(item, 'arguments', path, true) : JSON.stringify({ input: requireString(item, 'input', path, true) });
    return { id: requireString(item, 'call_id', path), type: 'function', function: { name: chatName, arguments: args } };
  }
}

/** A call joins the assistant turn it follows (its text, or the calls before it); else it starts one. */
function addToolCall(messages: ChatMessage[], call: ToolCall): void {
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    messages[messages.length - 1] = { ...last, tool_calls: [...(last.tool_calls ?? []), call] };
    return;
  }
  messages.push({ role: 'assistant', content: null, tool_calls: [call] });
}

function requireString(item: ResponseItem, field: string, path: string, allowEmpty = false): string {
  const value = item[field];
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    throw errors.invalidRequest(`Missing required parameter: '${path}.${field}'.`, `${path}.${field}`, 'missing_required_parameter');
  }
  return value;
}

function messageOf(item: ResponseItem, path: string): ChatMessage {
  const role = item.role;
  const content = item.content;
  if (role !== 'user' && role !== 'assistant' && role !== 'system' && role !== 'developer') {
    throw errors.invalidRequest(`Invalid value for '${path}.role': must be one of "user", "assistant", "system", "developer".`, `${path}.role`, 'invalid_value');
  }
  if (typeof content === 'string') return { role, content };
  if (!Array.isArray(content)) throw errors.invalidRequest(`Missing required parameter: '${path}.content'.`, `${path}.content`, 'missing_required_parameter');
  const parts = (content as ResponseItem[]).map((part, position) => contentPart(part, `${path}.content[${position}]`));
  if (role === 'user') return { role, content: parts };
  // System, developer and assistant turns hold text only (every provider's converter reads them so).
  const texts = parts.map((part, position) => {
    if (part.type !== 'text') throw errors.invalidRequest(`${path}.content[${position}]: a ${role} message holds text only.`, `${path}.content[${position}].type`, 'invalid_value');
    return part.text ?? '';
  });
  return { role, content: texts.join('') };
}

function contentPart(part: ResponseItem, path: string): ContentPart {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: typeof part.text === 'string' ? part.text : '' };
    case 'refusal':
      return { type: 'text', text: typeof part.refusal === 'string' ? part.refusal : '' };
    case 'input_image': {
      if (typeof part.image_url !== 'string' || part.image_url === '') throw filesNotAvailable(path, 'image_url', 'an image');
      const detail = part.detail === 'low' || part.detail === 'high' ? { detail: part.detail } : {};
      return { type: 'image_url', image_url: { url: part.image_url, ...detail } };
    }
    case 'input_file': {
      if (typeof part.file_data !== 'string' || part.file_data === '') throw filesNotAvailable(path, 'file_data', 'a file');
      return { type: 'file', file: { filename: typeof part.filename === 'string' && part.filename !== '' ? part.filename : 'file', file_data: part.file_data } };
    }
    default:
      throw errors.invalidRequest(`${path}: content parts of type ${JSON.stringify(part.type)} are not supported.`, `${path}.type`, 'unsupported_value');
  }
}

function filesNotAvailable(path: string, field: string, what: string) {
  return errors.invalidRequest(
    `${path}: send ${what} inline (${field}); files uploaded to OpenAI (file_id) or fetched by OpenAI (file_url) are not available behind a router.`,
    `${path}.${field}`,
    'unsupported_value',
  );
}

/** A tool's output: its text, and the images it returned. */
function toolOutput(output: unknown, path: string): { text: string; images: ContentPart[] } {
  if (typeof output === 'string') return { text: output, images: [] };
  if (!Array.isArray(output)) throw errors.invalidRequest(`Missing required parameter: '${path}'.`, path, 'missing_required_parameter');
  const texts: string[] = [];
  const images: ContentPart[] = [];
  (output as ResponseItem[]).forEach((part, position) => {
    const converted = contentPart(part, `${path}[${position}]`);
    if (converted.type === 'text') texts.push(converted.text ?? '');
    else images.push(converted);
  });
  return { text: texts.join('\n'), images };
}

const ID_PREFIXES: Readonly<Record<string, string>> = {
  message: 'msg_',
  function_call: 'fc_',
  function_call_output: 'fco_',
  custom_tool_call: 'ctc_',
  custom_tool_call_output: 'ctco_',
  reasoning: 'rs_',
};

/**
 * This request's `input` as the items it is stored as, which `GET …/input_items` lists: a string becomes a user
 * message; each item gets an id (`<prefix><response id's random part>_in<n>`) and a status where it had none, and an
 * easy message its typed parts.
 */
export function inputItemsToStore(input: string | readonly ResponseItem[] | null | undefined, idBase: string): ResponseItem[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ id: `msg_${idBase}_in0`, type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: input }] }];
  return input.map((item, index) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    const id = typeof item.id === 'string' && item.id !== '' ? item.id : `${ID_PREFIXES[type] ?? 'item_'}${idBase}_in${index}`;
    const stored: Record<string, unknown> = { id, type, ...item };
    stored.id = id;
    stored.type = type;
    if (type === 'message' && typeof item.content === 'string') {
      stored.content = [item.role === 'assistant' ? { type: 'output_text', text: item.content, annotations: [] } : { type: 'input_text', text: item.content }];
    }
    if (type !== 'reasoning' && stored.status === undefined) stored.status = 'completed';
    return stored;
  });
}
