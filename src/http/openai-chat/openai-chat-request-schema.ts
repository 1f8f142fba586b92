import { Type, type Static } from '@sinclair/typebox';

/**
 * JSON schema of the chat-completion request (spec 2.1, OpenAI's shape).
 * Only what the gateway interprets is checked; every other field is allowed and
 * passed through to the provider.
 */
const contentPart = Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true });

const toolCall = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('function'),
    function: Type.Object({ name: Type.String(), arguments: Type.String() }, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export const chatMessageSchema = Type.Object(
  {
    role: Type.Union(['system', 'developer', 'user', 'assistant', 'tool'].map((role) => Type.Literal(role))),
    content: Type.Optional(Type.Union([Type.String(), Type.Array(contentPart), Type.Null()])),
    name: Type.Optional(Type.String()),
    tool_calls: Type.Optional(Type.Array(toolCall)),
    tool_call_id: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export const toolSchema = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String({ pattern: '^[a-zA-Z0-9_-]{1,64}$' }),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(Type.Object({}, { additionalProperties: true })),
        strict: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

export const openAIChatRequestSchema = Type.Object(
  {
    messages: Type.Array(chatMessageSchema, { minItems: 1 }),
    // null, like every optional OpenAI parameter, means "not set".
    model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    temperature: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 2 }), Type.Null()])),
    max_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    max_completion_tokens: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    tools: Type.Optional(Type.Union([Type.Array(toolSchema), Type.Null()])),
    n: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1 }), Type.Null()])),
    stream_options: Type.Optional(
      Type.Union([Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true }), Type.Null()]),
    ),
  },
  { additionalProperties: true },
);

export type OpenAIChatRequestBody = Static<typeof openAIChatRequestSchema>;
