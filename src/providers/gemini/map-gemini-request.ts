import type { ChatRequest, ToolDefinition } from '../contract.js';
import { convertToGeminiMessages } from './convert-to-gemini-messages.js';
import type { GeminiFunctionDeclaration, GeminiGenerateContentRequest, GeminiGenerationConfig, GeminiToolConfig } from './gemini-api.js';
import { invalidGeminiRequest } from './gemini-errors.js';

export interface MapRequestOptions {
  readonly provider: string;
  readonly modelId: string;
}

/**
 * The OpenAI chat request onto a GenerateContentRequest.
 * - temperature (0–2 on both), top_p, seed and stop map one to one;
 *   max_completion_tokens (or the older max_tokens) becomes maxOutputTokens.
 * - JSON schemas (tool parameters, response_format json_schema) go in the fields
 *   that take plain JSON Schema, parametersJsonSchema and responseJsonSchema,
 *   rather than the OpenAPI-subset `parameters` / `responseSchema`, so nothing has
 *   to be stripped (additionalProperties, $ref, anyOf… are accepted).
 * - frequency_penalty and presence_penalty are not sent: Gemini 2.5 models on
 *   this API reject them. logprobs, n > 1 and parallel_tool_calls have no equivalent.
 * https://ai.google.dev/api/generate-content#request-body
 */
export function mapGeminiRequest(request: ChatRequest, options: MapRequestOptions): GeminiGenerateContentRequest {
  const { contents, systemInstruction } = convertToGeminiMessages(request.messages, {
    provider: options.provider,
    placeholderThoughtSignatures: needsThoughtSignatures(options.modelId),
  });
  const tools = mapTools(request, options.provider);
  return {
    contents,
    ...(systemInstruction === undefined ? {} : { systemInstruction }),
    ...tools,
    generationConfig: mapGenerationConfig(request, options.provider),
  };
}

/** Gemini 3 and later validate thought signatures on replayed function calls. */
function needsThoughtSignatures(modelId: string): boolean {
  const major = /(?:^|\/)gemini-(\d+)/.exec(modelId)?.[1];
  return major !== undefined && Number(major) >= 3;
}

function mapGenerationConfig(request: ChatRequest, provider: string): GeminiGenerationConfig {
  const maxTokens = numberOf(request.max_completion_tokens) ?? numberOf(request.max_tokens);
  const topP = numberOf(request.top_p);
  const seed = numberOf(request.seed);
  const temperature = numberOf(request.temperature);
  const stop = typeof request.stop === 'string' ? [request.stop] : Array.isArray(request.stop) ? request.stop.filter((item) => typeof item === 'string') : [];
  return {
    // The gateway reads one candidate; saying so keeps a model default from billing more.
    candidateCount: 1,
    ...(temperature === undefined ? {} : { temperature }),
    ...(topP === undefined ? {} : { topP }),
    ...(maxTokens === undefined ? {} : { maxOutputTokens: maxTokens }),
    ...(stop.length === 0 ? {} : { stopSequences: stop }),
    ...(seed === undefined ? {} : { seed }),
    ...mapResponseFormat(request.response_format, provider),
  };
}

function mapResponseFormat(format: unknown, provider: string): Pick<GeminiGenerationConfig, 'responseMimeType' | 'responseJsonSchema'> {
  if (!isRecord(format) || format.type === 'text') return {};
  if (format.type === 'json_object') return { responseMimeType: 'application/json' };
  if (format.type === 'json_schema') {
    const schema = isRecord(format.json_schema) ? format.json_schema.schema : undefined;
    return { responseMimeType: 'application/json', ...(isRecord(schema) ? { responseJsonSchema: withoutDialect(schema) } : {}) };
  }
  throw invalidGeminiRequest(provider, `response_format of type ${JSON.stringify(format.type)} is not supported`);
}

function mapTools(request: ChatRequest, provider: string): Pick<GeminiGenerateContentRequest, 'tools' | 'toolConfig'> {
  let tools: readonly ToolDefinition[] = request.tools ?? [];
  if (tools.length === 0) return {};
  const choice = request.tool_choice;
  let toolConfig: GeminiToolConfig | undefined;
  if (choice === undefined || choice === null) {
    toolConfig = undefined;
  } else if (choice === 'auto' || choice === 'none' || choice === 'required') {
    toolConfig = { functionCallingConfig: { mode: choice === 'auto' ? 'AUTO' : choice === 'none' ? 'NONE' : 'ANY' } };
  } else if (isRecord(choice) && choice.type === 'function' && isRecord(choice.function) && typeof choice.function.name === 'string') {
    toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  } else if (isRecord(choice) && choice.type === 'allowed_tools' && isRecord(choice.allowed_tools)) {
    // allowedFunctionNames only applies to mode ANY, so "auto" among some tools declares only those.
    const allowed = new Set(toolNames(choice.allowed_tools.tools));
    tools = tools.filter((tool) => allowed.has(tool.function.name));
    const mode = choice.allowed_tools.mode === 'required' ? 'ANY' : 'AUTO';
    toolConfig = { functionCallingConfig: mode === 'ANY' ? { mode, allowedFunctionNames: [...allowed] } : { mode } };
  } else {
    throw invalidGeminiRequest(provider, `tool_choice ${JSON.stringify(choice).slice(0, 80)} is not supported`);
  }
  const functionDeclarations = tools.map(
    (tool): GeminiFunctionDeclaration => ({
      name: tool.function.name,
      ...(tool.function.description === undefined ? {} : { description: tool.function.description }),
      ...(tool.function.parameters === undefined ? {} : { parametersJsonSchema: withoutDialect(tool.function.parameters) }),
    }),
  );
  return { tools: [{ functionDeclarations }], ...(toolConfig === undefined ? {} : { toolConfig }) };
}

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((tool: unknown) => (isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === 'string' ? [tool.function.name] : []));
}

/** `$schema` names a dialect; Gemini has its own and does not list the keyword. */
function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  if (!('$schema' in schema)) return schema;
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
