import { createHash } from 'node:crypto';
import { countPromptTokens, countTextTokens, messageText } from '../token-counter.js';
import type { ChatMessage, ChatRequest, ToolCall, ToolDefinition } from '../contract.js';
import { seededRandom } from '../../lib/seeded-random.js';
import { sampleJsonValue } from './sim-json-value.js';

/**
 * What the simulator answers, decided before any (simulated) time passes, so
 * `generate` and `stream` say exactly the same. Same model and messages, same answer.
 */
export interface PlannedAnswer {
  readonly text: string | null;
  readonly toolCalls?: ToolCall[];
  /** True when the text is JSON (structured output): streamed in small pieces, not word by word. */
  readonly json: boolean;
  readonly finishReason: 'stop' | 'length' | 'tool_calls';
  readonly promptTokens: number;
  readonly completionTokens: number;
}

const WORDS = (
  'routing gateway model latency cost carbon token stream answer request provider fallback strategy quality budget ' +
  'router agent usage prompt context response measure simulate deterministic offline example quick start'
).split(' ');

/** A tool call's framing (id, type, name) as OpenAI bills it, beside the name and arguments. */
const TOOL_CALL_OVERHEAD_TOKENS = 3;

export function planAnswer(modelId: string, request: ChatRequest): PlannedAnswer {
  const promptTokens = countPromptTokens(request);
  const seed = createHash('sha256').update(modelId).update(JSON.stringify(request.messages)).digest();
  const random = seededRandom(seed.readUInt32BE(4));
  const limit = request.max_completion_tokens ?? request.max_tokens;

  const tool = pickTool(request);
  if (tool !== undefined) {
    const args = JSON.stringify(sampleJsonValue(tool.function.parameters ?? { type: 'object', properties: {} }, random));
    const fixed = countTextTokens(tool.function.name) + TOOL_CALL_OVERHEAD_TOKENS;
    const cut = truncateToTokens(args, limit === undefined ? undefined : Math.max(0, limit - fixed));
    const call: ToolCall = { id: `call_sim${seed.toString('hex').slice(0, 20)}`, type: 'function', function: { name: tool.function.name, arguments: cut.text } };
    const completionTokens = countTextTokens(tool.function.name + cut.text) + TOOL_CALL_OVERHEAD_TOKENS;
    return { text: null, toolCalls: [call], json: true, finishReason: cut.truncated ? 'length' : 'tool_calls', promptTokens, completionTokens };
  }

  const last = request.messages.at(-1);
  const question = (last ? messageText(last) : '').replace(/\s+/g, ' ').trim().slice(0, 80);
  let prose = `Simulated answer from sim:${modelId} (ModelPort's offline simulator, not a real model). You said: "${question}".`;
  const targetTokens = 24 + (seed.readUInt16BE(0) % 72);
  for (let i = 2; countTextTokens(prose) < targetTokens; i += 1) prose += ` ${WORDS[(seed[i % seed.length] ?? 0) % WORDS.length]}`;
  prose += '.';

  const structured = structuredText(request.response_format, prose, random);
  if (structured !== undefined) {
    const cut = truncateToTokens(structured, limit);
    return { text: cut.text, json: true, finishReason: cut.truncated ? 'length' : 'stop', promptTokens, completionTokens: countTextTokens(cut.text) };
  }
  let text = prose;
  let finishReason: PlannedAnswer['finishReason'] = 'stop';
  if (limit !== undefined && countTextTokens(text) > limit) {
    // Whole words, so the stream's word pieces add up to the same text.
    const words = text.split(' ');
    while (words.length > 1 && countTextTokens(words.join(' ')) > limit) words.pop();
    text = words.join(' ');
    if (countTextTokens(text) > limit) text = truncateToTokens(text, limit).text;
    finishReason = 'length';
  }
  return { text, json: false, finishReason, promptTokens, completionTokens: countTextTokens(text) };
}

/** The JSON text `response_format` asks for; undefined for plain text. */
function structuredText(format: unknown, prose: string, random: () => number): string | undefined {
  if (typeof format !== 'object' || format === null) return undefined;
  const { type, json_schema: jsonSchema } = format as { type?: unknown; json_schema?: { schema?: unknown } };
  if (type === 'json_schema' && typeof jsonSchema?.schema === 'object' && jsonSchema.schema !== null) {
    return JSON.stringify(sampleJsonValue(jsonSchema.schema, random));
  }
  if (type === 'json_object' || type === 'json_schema') return JSON.stringify({ answer: prose });
  return undefined;
}

/**
 * The tool to call, or undefined to answer in text:
 * - `none`, no tools, or the last message is a tool result: text;
 * - a named function: that one; `required`: the tool the last user message names, else the first;
 * - `auto` (the default): only a tool the last user message names (`get_weather` or "get weather").
 */
export function pickTool(request: ChatRequest): ToolDefinition | undefined {
  const tools = request.tools;
  const choice = request.tool_choice;
  if (!tools || tools.length === 0 || choice === 'none' || request.messages.at(-1)?.role === 'tool') return undefined;
  if (typeof choice === 'object' && choice !== null) {
    const named = (choice as { function?: { name?: unknown }; name?: unknown }).function?.name ?? (choice as { name?: unknown }).name;
    const tool = tools.find((candidate) => candidate.function.name === named);
    if (tool !== undefined) return tool;
  }
  const mentioned = toolMentioned(tools, request.messages);
  if (mentioned !== undefined) return mentioned;
  return choice === 'required' || (typeof choice === 'object' && choice !== null) ? tools[0] : undefined;
}

function toolMentioned(tools: readonly ToolDefinition[], messages: readonly ChatMessage[]): ToolDefinition | undefined {
  const lastUser = messages.findLast((message) => message.role === 'user');
  if (lastUser === undefined) return undefined;
  const said = normalize(messageText(lastUser));
  return tools.find((tool) => {
    const name = normalize(tool.function.name);
    return name !== '' && ` ${said} `.includes(` ${name} `);
  });
}

/** Lower case, words apart: `get_weather`, `getWeather` and "Get weather?" all read "get weather". */
function normalize(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The longest prefix of `text` within `limit` tokens (the tokenizer's count); whole when no limit. */
export function truncateToTokens(text: string, limit: number | undefined): { text: string; truncated: boolean } {
  if (limit === undefined || countTextTokens(text) <= limit) return { text, truncated: false };
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (countTextTokens(text.slice(0, middle)) <= limit) low = middle;
    else high = middle - 1;
  }
  // Never half of a surrogate pair.
  if (low > 0 && isHighSurrogate(text.charCodeAt(low - 1))) low -= 1;
  return { text: text.slice(0, low), truncated: true };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
