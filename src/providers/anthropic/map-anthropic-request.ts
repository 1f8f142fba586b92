import type { ChatRequest, ToolDefinition } from '../contract.js';
import { invalidRequest } from '../provider-errors.js';
import type { AnthropicMessagesRequest, AnthropicTextBlock, AnthropicTool, AnthropicToolChoice } from './anthropic-api.js';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages.js';

/** Anthropic requires `max_tokens`; OpenAI does not. Used when the request sets no limit. */
export const DEFAULT_MAX_TOKENS = 4_096;

export interface AnthropicRequestOptions {
  readonly provider: string;
  readonly modelId: string;
  readonly stream: boolean;
  /** @default DEFAULT_MAX_TOKENS */
  readonly defaultMaxTokens?: number;
}

/**
 * The gateway's OpenAI-shaped request → the body of Anthropic's POST /v1/messages
 * (https://docs.claude.com/en/api/messages). Parameters Anthropic has no
 * equivalent for (seed, n, logprobs, penalties…) are left out.
 */
export function mapAnthropicRequest(request: ChatRequest, options: AnthropicRequestOptions): AnthropicMessagesRequest {
  const { provider } = options;
  const prompt = convertToAnthropicMessages(request.messages, provider);
  const systemBlocks = [...prompt.system, ...jsonInstruction(request.response_format, provider)];
  const tools = request.tools === undefined || request.tools.length === 0 ? undefined : request.tools.map(toAnthropicTool);
  const toolChoice = tools === undefined ? undefined : mapToolChoice(request.tool_choice, request.parallel_tool_calls, provider);
  const stops: readonly unknown[] = typeof request.stop === 'string' ? [request.stop] : Array.isArray(request.stop) ? request.stop : [];
  const stopSequences = stops.filter((stop): stop is string => typeof stop === 'string');
  const temperature = typeof request.temperature === 'number' ? request.temperature : undefined;
  const topP = typeof request.top_p === 'number' ? request.top_p : undefined;

  return {
    model: options.modelId,
    max_tokens: request.max_completion_tokens ?? request.max_tokens ?? options.defaultMaxTokens ?? DEFAULT_MAX_TOKENS,
    ...(systemBlocks.length > 0 ? { system: compactSystem(systemBlocks) } : {}),
    messages: prompt.messages,
    // OpenAI samples at 0–2 and Anthropic at 0–1, both defaulting to 1. Values up to 1
    // mean the same on both and pass as they are; above 1 (hotter than the default on
    // OpenAI) becomes Anthropic's hottest, 1. Scaling would turn the common 0.7 into 0.35.
    ...(temperature !== undefined ? { temperature: Math.min(temperature, 1) } : {}),
    // Recent Claude models refuse temperature and top_p together ("temperature and
    // top_p cannot both be specified for this model"): temperature, the usual knob, wins.
    ...(topP !== undefined && temperature === undefined ? { top_p: topP } : {}),
    ...(stopSequences.length > 0 ? { stop_sequences: stopSequences } : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...(typeof request.user === 'string' && request.user !== '' ? { metadata: { user_id: request.user } } : {}),
    stream: options.stream,
  };
}

/** One plain block is sent as a string; several (or one with cache_control) as blocks. */
function compactSystem(blocks: readonly AnthropicTextBlock[]): string | readonly AnthropicTextBlock[] {
  const [only] = blocks;
  return blocks.length === 1 && only !== undefined && only.cache_control === undefined ? only.text : blocks;
}

function toAnthropicTool(tool: ToolDefinition): AnthropicTool {
  const { name, description, parameters } = tool.function;
  return {
    name,
    ...(description !== undefined && description !== '' ? { description } : {}),
    // Anthropic requires an object schema; OpenAI lets a tool without parameters omit it.
    input_schema: parameters ?? { type: 'object', properties: {} },
  };
}

/** https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use */
function mapToolChoice(choice: unknown, parallelToolCalls: unknown, provider: string): AnthropicToolChoice | undefined {
  const parallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined || choice === 'auto') return parallelToolCalls === false ? { type: 'auto', ...parallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...parallel };
  if (typeof choice === 'object' && choice !== null && (choice as { type?: unknown }).type === 'function') {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name === 'string' && name !== '') return { type: 'tool', name, ...parallel };
  }
  throw invalidRequest(provider, `tool_choice must be "none", "auto", "required" or {"type":"function","function":{"name":…}}; got ${JSON.stringify(choice)}.`);
}

/**
 * Anthropic's Messages API has no JSON mode that every Claude model takes (its
 * structured outputs need recent models), so OpenAI's `response_format` becomes
 * an instruction at the end of the system prompt, the approach Anthropic documents
 * for consistent output (https://platform.claude.com/docs/en/test-and-evaluate/strengthen-guardrails/increase-consistency).
 * The answer is then JSON by instruction, not by construction.
 */
function jsonInstruction(format: unknown, provider: string): AnthropicTextBlock[] {
  if (typeof format !== 'object' || format === null) return [];
  const { type } = format as { type?: unknown };
  if (type === 'json_object') {
    return [{ type: 'text', text: 'Answer with one valid JSON object and nothing else: no prose and no Markdown code fence around it.' }];
  }
  if (type === 'json_schema') {
    const schema = (format as { json_schema?: { schema?: unknown } }).json_schema?.schema;
    if (typeof schema !== 'object' || schema === null) throw invalidRequest(provider, 'response_format.json_schema.schema must be a JSON schema object.');
    return [
      {
        type: 'text',
        text:
          'Answer with one valid JSON value that conforms to this JSON schema, and nothing else: no prose and no Markdown code fence around it.\n' +
          `<json_schema>\n${JSON.stringify(schema)}\n</json_schema>`,
      },
    ];
  }
  return [];
}
