import { openAIChatResponseSchema, openAIChunkSchema, type OpenAIChatResponse, type OpenAIChunk } from './openai-api.js';

/**
 * A parsed chat-completion body checked against `openAIChatResponseSchema`.
 * The usual answer (text, no tool calls) is checked by hand: zod copies every
 * object it validates, a few microseconds and their garbage on every call
 * (docs/performance.md). The hand check accepts a strict subset of what the
 * schema accepts and returns the body itself, which reads the same as the
 * schema's output there; anything else (tool calls, a field of another type, a
 * body the schema refuses) goes through the schema, which decides.
 */
export function readChatResponse(json: unknown): OpenAIChatResponse | undefined {
  if (isPlainChatResponse(json)) return json as OpenAIChatResponse;
  const parsed = openAIChatResponseSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/**
 * A parsed stream chunk checked against `openAIChunkSchema`, as `readChatResponse` checks a whole answer: the usual
 * chunk (a role, a text delta, a finish, the usage) by hand, returned as it is; anything else through the schema.
 */
export function readChunk(json: unknown): OpenAIChunk | undefined {
  if (isPlainChunk(json)) return json as OpenAIChunk;
  const parsed = openAIChunkSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `z.string().nullish()` */
function isNullishString(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'string';
}

/** `z.number().nullish()` */
function isNullishNumber(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'number';
}

function isPlainChatResponse(json: unknown): boolean {
  if (!isObject(json) || !isNullishString(json.id) || !isNullishString(json.system_fingerprint)) return false;
  const choices = json.choices;
  if (!Array.isArray(choices) || choices.length === 0) return false;
  for (const choice of choices) if (!isPlainChoice(choice)) return false;
  return isPlainUsage(json.usage);
}

function isPlainChoice(choice: unknown): boolean {
  if (!isObject(choice) || (choice.index !== undefined && typeof choice.index !== 'number') || !isNullishString(choice.finish_reason)) return false;
  const message = choice.message;
  return (
    isObject(message) &&
    isNullishString(message.role) &&
    isNullishString(message.content) &&
    isNullishString(message.refusal) &&
    // Tool calls get the schema's default `type`: left to it.
    (message.tool_calls === undefined || message.tool_calls === null)
  );
}

function isPlainUsage(usage: unknown): boolean {
  if (usage === undefined || usage === null) return true;
  if (!isObject(usage) || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return false;
  if (usage.total_tokens !== undefined && typeof usage.total_tokens !== 'number') return false;
  return isPlainDetails(usage.prompt_tokens_details, 'cached_tokens') && isPlainDetails(usage.completion_tokens_details, 'reasoning_tokens');
}

function isPlainDetails(details: unknown, field: string): boolean {
  return details === undefined || details === null || (isObject(details) && isNullishNumber(details[field]));
}

function isPlainChunk(json: unknown): boolean {
  // Missing choices get the schema's default (an empty array): left to it.
  if (!isObject(json) || !isNullishString(json.id) || !Array.isArray(json.choices)) return false;
  for (const choice of json.choices) if (!isPlainChunkChoice(choice)) return false;
  return isPlainUsage(json.usage);
}

function isPlainChunkChoice(choice: unknown): boolean {
  if (!isObject(choice) || (choice.index !== undefined && typeof choice.index !== 'number') || !isNullishString(choice.finish_reason)) return false;
  const delta = choice.delta;
  if (delta === undefined || delta === null) return true;
  return (
    isObject(delta) &&
    isNullishString(delta.role) &&
    isNullishString(delta.content) &&
    isNullishString(delta.refusal) &&
    // Tool-call deltas: left to the schema.
    (delta.tool_calls === undefined || delta.tool_calls === null)
  );
}
