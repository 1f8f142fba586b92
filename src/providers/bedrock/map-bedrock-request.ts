import type { ChatRequest, ToolDefinition } from '../contract.js';
import { invalidRequest } from '../provider-errors.js';
import type { BedrockConverseRequest, BedrockInferenceConfig, BedrockTextBlock, BedrockToolChoice, BedrockToolSpec } from './bedrock-api.js';
import { convertToBedrockMessages } from './convert-to-bedrock-messages.js';

export interface BedrockRequestOptions {
  readonly provider: string;
  /** Bedrock's model id (or inference profile), e.g. `anthropic.claude-3-5-haiku-20241022-v1:0`. */
  readonly modelId: string;
  /** `maxTokens` when the request sets no limit; none: the model's own default. */
  readonly defaultMaxTokens?: number;
}

/** Schema of a tool the conversation called but the request no longer declares. */
const OPEN_OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

/**
 * The gateway's OpenAI-shaped request → the body of Converse / ConverseStream
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html).
 * Parameters Converse has no field for (seed, n, logprobs, penalties, user,
 * parallel_tool_calls) are left out.
 */
export function mapBedrockRequest(request: ChatRequest, options: BedrockRequestOptions): BedrockConverseRequest {
  const { provider } = options;
  const prompt = convertToBedrockMessages(request.messages, provider);
  const system = [...prompt.system, ...jsonInstruction(request.response_format, provider)];
  const inferenceConfig = mapInferenceConfig(request, options);
  const toolConfig = mapToolConfig(request, prompt.hasToolBlocks, prompt.calledTools, provider);
  return {
    messages: prompt.messages,
    ...(system.length > 0 ? { system } : {}),
    ...(Object.keys(inferenceConfig).length > 0 ? { inferenceConfig } : {}),
    ...(toolConfig !== undefined ? { toolConfig } : {}),
  };
}

/**
 * Converse's `temperature` and `topP` range over 0–1 for every model (Bedrock
 * refuses more: https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InferenceConfiguration.html),
 * where OpenAI's temperature goes to 2. Values up to 1 pass as they are; hotter
 * ones become the hottest Bedrock takes, 1 (scaling would turn the common 0.7 into 0.35).
 * Recent Claude models refuse temperature and top_p together, so for Anthropic
 * models temperature, the usual knob, wins, as in the Anthropic adapter.
 */
function mapInferenceConfig(request: ChatRequest, options: BedrockRequestOptions): BedrockInferenceConfig {
  const maxTokens = request.max_completion_tokens ?? request.max_tokens ?? options.defaultMaxTokens;
  const temperature = typeof request.temperature === 'number' ? Math.min(Math.max(request.temperature, 0), 1) : undefined;
  const topP = typeof request.top_p === 'number' ? Math.min(Math.max(request.top_p, 0), 1) : undefined;
  const dropTopP = temperature !== undefined && options.modelId.includes('anthropic.');
  const stops: readonly unknown[] = typeof request.stop === 'string' ? [request.stop] : Array.isArray(request.stop) ? request.stop : [];
  const stopSequences = stops.filter((stop): stop is string => typeof stop === 'string' && stop !== '');
  return {
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined && !dropTopP ? { topP } : {}),
    ...(stopSequences.length > 0 ? { stopSequences } : {}),
  };
}

/**
 * Tools and tool_choice → `toolConfig` (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html).
 * Converse has no "none" choice: the tools are withheld instead, unless the
 * conversation holds toolUse/toolResult blocks, which Converse refuses without a
 * toolConfig; then the tools stay, with the model's default choice. For the same
 * reason a conversation with tool calls but no tools declares the called tools.
 */
function mapToolConfig(request: ChatRequest, hasToolBlocks: boolean, calledTools: readonly string[], provider: string): BedrockConverseRequest['toolConfig'] {
  const declared = request.tools === undefined || request.tools.length === 0 ? undefined : request.tools.map(toToolSpec);
  if (declared === undefined) {
    if (!hasToolBlocks || calledTools.length === 0) return undefined;
    return { tools: calledTools.map((name) => ({ toolSpec: { name, inputSchema: { json: OPEN_OBJECT_SCHEMA } } })) };
  }
  const choice = request.tool_choice;
  if (choice === 'none') return hasToolBlocks ? { tools: declared } : undefined;
  const toolChoice = mapToolChoice(choice, provider);
  return { tools: declared, ...(toolChoice !== undefined ? { toolChoice } : {}) };
}

function toToolSpec(tool: ToolDefinition): BedrockToolSpec {
  const { name, description, parameters } = tool.function;
  return {
    toolSpec: {
      name,
      // Bedrock refuses an empty description; OpenAI lets a tool omit its parameters.
      ...(description !== undefined && description !== '' ? { description } : {}),
      inputSchema: { json: parameters ?? OPEN_OBJECT_SCHEMA },
    },
  };
}

function mapToolChoice(choice: unknown, provider: string): BedrockToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { auto: {} };
  if (choice === 'required') return { any: {} };
  if (typeof choice === 'object' && (choice as { type?: unknown }).type === 'function') {
    const name = (choice as { function?: { name?: unknown } }).function?.name;
    if (typeof name === 'string' && name !== '') return { tool: { name } };
  }
  throw invalidRequest(provider, `tool_choice must be "none", "auto", "required" or {"type":"function","function":{"name":…}}; got ${JSON.stringify(choice)}.`);
}

/**
 * Converse has no JSON mode that every model takes, so `response_format` becomes
 * an instruction at the end of the system prompt, as in the Anthropic adapter:
 * the answer is then JSON by instruction, not by construction.
 */
function jsonInstruction(format: unknown, provider: string): BedrockTextBlock[] {
  if (typeof format !== 'object' || format === null) return [];
  const { type } = format as { type?: unknown };
  if (type === 'json_object') return [{ text: 'Answer with one valid JSON object and nothing else: no prose and no Markdown code fence around it.' }];
  if (type !== 'json_schema') return [];
  const schema = (format as { json_schema?: { schema?: unknown } }).json_schema?.schema;
  if (typeof schema !== 'object' || schema === null) throw invalidRequest(provider, 'response_format.json_schema.schema must be a JSON schema object.');
  return [
    {
      text:
        'Answer with one valid JSON value that conforms to this JSON schema, and nothing else: no prose and no Markdown code fence around it.\n' +
        `<json_schema>\n${JSON.stringify(schema)}\n</json_schema>`,
    },
  ];
}
