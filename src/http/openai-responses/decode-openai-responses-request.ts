import { errors } from '../../lib/errors.js';
import type { MaybePromise } from '../../lib/maybe-promise.js';
import type { ChatMessage, ChatRequest } from '../../providers/contract.js';
import { completionId } from '../../pipeline/completion-id.js';
import type { DecodeContext } from '../surface-adapter.js';
import { inputItemsToStore, itemsToMessages, type ItemPath } from './convert-responses-input.js';
import { convertResponsesTools, type ToolNames } from './convert-responses-tools.js';
import type { DecodedResponsesRequest, ResponseEcho, ResponsesContext } from './decoded-responses-request.js';
import { responseNotFound, unsupportedParameter } from './openai-responses-errors.js';
import type { OpenAIResponsesRequestBody, ResponseItem } from './openai-responses-request-schema.js';

/**
 * A Responses API request → the neutral chat request every provider takes (docs/api.md, Responses, has the table):
 * `instructions` → a leading system message; the previous response's items, its output and `input` → messages
 * (convert-responses-input.ts); tools (convert-responses-tools.ts); `text.format` → `response_format`;
 * `max_output_tokens` → `max_completion_tokens`; `reasoning.effort` → `reasoning_effort`; `temperature`, `top_p`,
 * `user`, `safety_identifier`, `prompt_cache_key`, `service_tier` as they are. A promise only with
 * `previous_response_id`, which is read from the caller's owner's stored responses.
 */
export function decodeOpenAIResponsesRequest(body: OpenAIResponsesRequestBody, context: DecodeContext, surface: ResponsesContext): MaybePromise<DecodedResponsesRequest> {
  refuseUnsupported(body);
  const tools = convertResponsesTools(body.tools, body.tool_choice);
  const previousId = body.previous_response_id ?? undefined;
  const references = Array.isArray(body.input) && (body.input as readonly ResponseItem[]).some((item) => item.type === 'item_reference');
  if (previousId === undefined && !references) return decodeWith(body, body.input ?? undefined, context, tools.names, [], chatFields(body, tools));
  return Promise.all([
    previousId === undefined ? [] : loadPrevious(previousId, context, surface),
    references ? resolveReferences(body.input as readonly ResponseItem[], context, surface) : body.input ?? undefined,
  ]).then(([earlier, input]) => decodeWith(body, input, context, tools.names, earlier, chatFields(body, tools)));
}

async function loadPrevious(id: string, context: DecodeContext, { store }: ResponsesContext): Promise<readonly ResponseItem[]> {
  const previous = store === undefined || context.ownerId === undefined ? undefined : await store.load(id, context.ownerId);
  if (previous === undefined) throw responseNotFound(id, 'previous_response_id');
  const output = Array.isArray(previous.response.output) ? (previous.response.output as ResponseItem[]) : [];
  return [...previous.inputItems, ...output];
}

/**
 * `item_reference` items replaced by the stored items they name (the AI SDK sends its earlier answers' text so when
 * responses are stored). An item id is `<type>_<the id of its response, after resp_>_<position>`, so each reference
 * is found in one stored response of the caller's owner; one that is not there is a 400 naming it.
 */
async function resolveReferences(input: readonly ResponseItem[], context: DecodeContext, { store }: ResponsesContext): Promise<ResponseItem[]> {
  const responses = new Map<string, Promise<readonly ResponseItem[]>>();
  const itemsOf = (responseId: string): Promise<readonly ResponseItem[]> => {
    let items = responses.get(responseId);
    if (items === undefined) {
      items = (store === undefined || context.ownerId === undefined ? Promise.resolve(undefined) : store.load(responseId, context.ownerId)).then((stored) =>
        stored === undefined ? [] : [...stored.inputItems, ...(Array.isArray(stored.response.output) ? (stored.response.output as ResponseItem[]) : [])],
      );
      responses.set(responseId, items);
    }
    return items;
  };
  return Promise.all(
    input.map(async (item, index) => {
      if (item.type !== 'item_reference') return item;
      const id = typeof item.id === 'string' ? item.id : '';
      const first = id.indexOf('_');
      const last = id.lastIndexOf('_');
      const found = first > 0 && last > first ? (await itemsOf(`resp_${id.slice(first + 1, last)}`)).find((stored) => stored.id === id) : undefined;
      if (found === undefined) {
        throw errors.invalidRequest(`input[${index}]: no stored item ${JSON.stringify(id)} of yours; send the item itself, or continue with previous_response_id.`, `input[${index}].id`, 'invalid_value');
      }
      return found;
    }),
  );
}

function decodeWith(
  body: OpenAIResponsesRequestBody,
  input: string | readonly ResponseItem[] | undefined,
  context: DecodeContext,
  toolNames: ToolNames,
  earlier: readonly ResponseItem[],
  fields: Record<string, unknown>,
): DecodedResponsesRequest {
  const own: readonly ResponseItem[] = input === undefined ? [] : typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  const pathOf: ItemPath = (index) => (index < earlier.length ? 'previous_response_id' : typeof input === 'string' ? 'input' : `input[${index - earlier.length}]`);
  const messages: ChatMessage[] = [];
  if (typeof body.instructions === 'string' && body.instructions !== '') messages.push({ role: 'system', content: body.instructions });
  messages.push(...itemsToMessages(earlier.length === 0 ? own : [...earlier, ...own], pathOf));
  if (!messages.some((message) => message.role !== 'system' && message.role !== 'developer')) {
    throw errors.invalidRequest("Missing required parameter: 'input' (no message for the model to answer).", 'input', 'missing_required_parameter');
  }
  const store = body.store !== false;
  return {
    chatRequest: { messages, ...fields } as ChatRequest,
    model: body.model,
    stream: body.stream === true,
    includeUsage: false,
    echo: echoOf(body, store),
    toolNames,
    store,
    // Kept only for a response that is stored.
    inputItems: store ? [...earlier, ...inputItemsToStore(input, completionId('', context.requestId))] : [],
    ownerId: context.ownerId,
    keyId: context.keyId,
  };
}

/** The neutral request's fields besides the messages, in one order for every request. */
function chatFields(body: OpenAIResponsesRequestBody, tools: ReturnType<typeof convertResponsesTools>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (tools.tools !== undefined) {
    fields.tools = tools.tools;
    if (tools.toolChoice !== undefined) fields.tool_choice = tools.toolChoice;
    if (typeof body.parallel_tool_calls === 'boolean') fields.parallel_tool_calls = body.parallel_tool_calls;
  }
  const format = responseFormat(body.text?.format);
  if (format !== undefined) fields.response_format = format;
  if (typeof body.text?.verbosity === 'string') fields.verbosity = body.text.verbosity;
  if (typeof body.max_output_tokens === 'number') fields.max_completion_tokens = body.max_output_tokens;
  if (typeof body.temperature === 'number') fields.temperature = body.temperature;
  if (typeof body.top_p === 'number') fields.top_p = body.top_p;
  if (typeof body.reasoning?.effort === 'string') fields.reasoning_effort = body.reasoning.effort;
  for (const name of ['user', 'safety_identifier', 'prompt_cache_key', 'service_tier'] as const) {
    const value = body[name];
    if (typeof value === 'string' && value !== '') fields[name] = value;
  }
  return fields;
}

/** `text.format` → chat's `response_format`; plain text needs none. */
function responseFormat(format: Readonly<Record<string, unknown>> | null | undefined): Record<string, unknown> | undefined {
  if (format === undefined || format === null || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  if (format.type === 'json_schema') {
    if (typeof format.name !== 'string' || format.name === '') throw errors.invalidRequest("Missing required parameter: 'text.format.name'.", 'text.format.name', 'missing_required_parameter');
    if (typeof format.schema !== 'object' || format.schema === null || Array.isArray(format.schema)) {
      throw errors.invalidRequest("Missing required parameter: 'text.format.schema' (a JSON schema object).", 'text.format.schema', 'missing_required_parameter');
    }
    return {
      type: 'json_schema',
      json_schema: {
        name: format.name,
        ...(typeof format.description === 'string' ? { description: format.description } : {}),
        schema: format.schema,
        ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
      },
    };
  }
  throw errors.invalidRequest(`Invalid value for 'text.format.type': must be one of "text", "json_object", "json_schema".`, 'text.format.type', 'invalid_value');
}

/** What the response object repeats of the request, with OpenAI's defaults. */
function echoOf(body: OpenAIResponsesRequestBody, store: boolean): ResponseEcho {
  return {
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    store,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' }, verbosity: body.text?.verbosity ?? 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

/** Features no model behind the gateway can honour: a 400 naming the parameter, never dropped in silence. */
function refuseUnsupported(body: OpenAIResponsesRequestBody): void {
  const extra = body as Record<string, unknown>;
  if (body.background === true) throw unsupportedParameter('background', 'responses are answered while the request waits (or streams); run it in the background on your side.');
  if (extra.conversation !== undefined && extra.conversation !== null) throw unsupportedParameter('conversation', 'continue a conversation with previous_response_id.');
  if (extra.prompt !== undefined && extra.prompt !== null) throw unsupportedParameter('prompt', "prompt templates are stored at OpenAI; send the prompt's text as instructions and input.");
  if (Array.isArray(extra.context_management) && extra.context_management.length > 0) throw unsupportedParameter('context_management', 'server-side compaction runs at OpenAI only.');
  if (extra.moderation !== undefined && extra.moderation !== null) throw unsupportedParameter('moderation', 'moderation runs at OpenAI only.');
  if (typeof body.top_logprobs === 'number' && body.top_logprobs > 0) throw unsupportedParameter('top_logprobs', 'log probabilities are not returned through a router.');
  if (body.include?.includes('message.output_text.logprobs') === true) throw unsupportedParameter('include', "log probabilities ('message.output_text.logprobs') are not returned through a router.");
}
