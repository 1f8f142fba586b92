import { Type, type Static, type TObject, type TSchema, type TUnsafe } from '@sinclair/typebox';

/**
 * JSON schema of Anthropic's Messages request (https://docs.claude.com/en/api/messages),
 * as the gateway takes it on POST …/v1/messages. Only what the gateway interprets
 * is checked; other fields (thinking, service_tier, container…) are tolerated and
 * not forwarded, since the router may pick a model of any provider.
 */

/**
 * One of several object shapes told apart by `type`. Written as `if`/`then` per
 * variant rather than `anyOf`, so a bad block gets the error of its own variant
 * (e.g. "Missing required parameter: 'messages[0].content[1].text'") instead of one
 * error per variant.
 */
function byType<Variants extends Record<string, TObject>>(variants: Variants): TUnsafe<Static<Variants[keyof Variants]>> {
  const names = Object.keys(variants);
  return Type.Unsafe<Static<Variants[keyof Variants]>>({
    type: 'object',
    required: ['type'],
    properties: { type: { type: 'string', enum: names } },
    additionalProperties: true,
    allOf: Object.entries(variants).map(([name, schema]) => ({
      if: { type: 'object', required: ['type'], properties: { type: { const: name } } },
      then: schema,
    })),
  });
}

const object = <Properties extends Record<string, TSchema>>(properties: Properties) => Type.Object(properties, { additionalProperties: true });

const cacheControl = Type.Optional(object({ type: Type.String() }));

export const textBlockSchema = object({ type: Type.Literal('text'), text: Type.String(), cache_control: cacheControl });

const imageSource = byType({
  base64: object({ type: Type.Literal('base64'), media_type: Type.String({ minLength: 1 }), data: Type.String() }),
  url: object({ type: Type.Literal('url'), url: Type.String({ minLength: 1 }) }),
});

const documentSource = byType({
  base64: object({ type: Type.Literal('base64'), media_type: Type.String({ minLength: 1 }), data: Type.String() }),
  text: object({ type: Type.Literal('text'), media_type: Type.Optional(Type.String()), data: Type.String() }),
  url: object({ type: Type.Literal('url'), url: Type.String({ minLength: 1 }) }),
});

const imageBlock = object({ type: Type.Literal('image'), source: imageSource, cache_control: cacheControl });

const documentBlock = object({
  type: Type.Literal('document'),
  source: documentSource,
  title: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  context: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  cache_control: cacheControl,
});

const toolUseBlock = object({
  type: Type.Literal('tool_use'),
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  input: Type.Object({}, { additionalProperties: true }),
});

const toolResultContent = byType({ text: textBlockSchema, image: imageBlock });

const toolResultBlock = object({
  type: Type.Literal('tool_result'),
  tool_use_id: Type.String({ minLength: 1 }),
  content: Type.Optional(Type.Union([Type.String(), Type.Array(toolResultContent)])),
  is_error: Type.Optional(Type.Boolean()),
  cache_control: cacheControl,
});

/** Extended thinking is the model's own; it is dropped when the conversation goes to whichever model the router picks. */
const thinkingBlock = object({ type: Type.Literal('thinking'), thinking: Type.String() });
const redactedThinkingBlock = object({ type: Type.Literal('redacted_thinking'), data: Type.String() });

/** Every block a message may hold; which role may hold which is checked in convert-from-anthropic-request.ts. */
export const contentBlockSchema = byType({
  text: textBlockSchema,
  image: imageBlock,
  document: documentBlock,
  tool_use: toolUseBlock,
  tool_result: toolResultBlock,
  thinking: thinkingBlock,
  redacted_thinking: redactedThinkingBlock,
});

export const anthropicMessageSchema = object({
  /** `system`: a mid-conversation system message (Claude Code sends them), text only. */
  role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
  content: Type.Union([Type.String(), Type.Array(contentBlockSchema)]),
});

export const anthropicToolSchema = object({
  /** Absent or "custom" for client tools; Anthropic's server tools (web_search_…) carry their own type. */
  type: Type.Optional(Type.String()),
  name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
  description: Type.Optional(Type.String()),
  input_schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
  cache_control: cacheControl,
});

export const anthropicToolChoiceSchema = object({
  type: Type.Union([Type.Literal('auto'), Type.Literal('any'), Type.Literal('tool'), Type.Literal('none')]),
  name: Type.Optional(Type.String({ minLength: 1 })),
  disable_parallel_tool_use: Type.Optional(Type.Boolean()),
});

export const anthropicRequestSchema = object({
  /** The router id (`rt_…`); optional when the router id is in the path, which wins. */
  model: Type.Optional(Type.String()),
  max_tokens: Type.Integer({ minimum: 1 }),
  messages: Type.Array(anthropicMessageSchema, { minItems: 1 }),
  system: Type.Optional(Type.Union([Type.String(), Type.Array(textBlockSchema)])),
  // Anthropic samples at 0–1 (OpenAI at 0–2): the range is Anthropic's, as its clients expect.
  temperature: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_p: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  top_k: Type.Optional(Type.Integer({ minimum: 0 })),
  stop_sequences: Type.Optional(Type.Array(Type.String())),
  stream: Type.Optional(Type.Boolean()),
  tools: Type.Optional(Type.Array(anthropicToolSchema)),
  tool_choice: Type.Optional(anthropicToolChoiceSchema),
  metadata: Type.Optional(object({ user_id: Type.Optional(Type.Union([Type.String(), Type.Null()])) })),
});

export type AnthropicRequestBody = Static<typeof anthropicRequestSchema>;
export type AnthropicMessageBody = Static<typeof anthropicMessageSchema>;
export type AnthropicContentBlock = Static<typeof contentBlockSchema>;
export type AnthropicTextBlockBody = Static<typeof textBlockSchema>;
export type AnthropicToolBody = Static<typeof anthropicToolSchema>;
export type AnthropicToolChoiceBody = Static<typeof anthropicToolChoiceSchema>;
