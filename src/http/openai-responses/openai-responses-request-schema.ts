import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * JSON schema of a Responses API request (https://platform.openai.com/docs/api-reference/responses/create), as far
 * as Fastify checks it: the types of the fields the gateway reads. Input items and tools are objects with a `type`
 * (or, for a message, a `role`); convert-responses-input.ts and convert-responses-tools.ts check each kind, with errors naming it.
 * Other fields are allowed and ignored (docs/api.md, Responses). JSON null means "not set", as OpenAI's SDKs send it.
 */
const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

const item = Type.Object({}, { additionalProperties: true });

export const openAIResponsesRequestSchema = Type.Object(
  {
    model: nullable(Type.String()),
    input: nullable(Type.Union([Type.String(), Type.Array(item)])),
    instructions: nullable(Type.String()),
    tools: nullable(Type.Array(Type.Object({ type: Type.String({ minLength: 1 }) }, { additionalProperties: true }))),
    tool_choice: nullable(Type.Union([Type.String(), Type.Object({ type: Type.String() }, { additionalProperties: true })])),
    parallel_tool_calls: nullable(Type.Boolean()),
    text: nullable(
      Type.Object(
        {
          format: nullable(Type.Object({ type: Type.String() }, { additionalProperties: true })),
          verbosity: nullable(Type.String()),
        },
        { additionalProperties: true },
      ),
    ),
    max_output_tokens: nullable(Type.Integer({ minimum: 1 })),
    temperature: nullable(Type.Number({ minimum: 0, maximum: 2 })),
    top_p: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    reasoning: nullable(Type.Object({ effort: nullable(Type.String()), summary: nullable(Type.String()) }, { additionalProperties: true })),
    store: nullable(Type.Boolean()),
    previous_response_id: nullable(Type.String({ minLength: 1 })),
    metadata: nullable(Type.Record(Type.String(), Type.String())),
    user: nullable(Type.String()),
    safety_identifier: nullable(Type.String()),
    prompt_cache_key: nullable(Type.String()),
    truncation: nullable(Type.Union([Type.Literal('auto'), Type.Literal('disabled')])),
    include: nullable(Type.Array(Type.String())),
    stream: nullable(Type.Boolean()),
    background: nullable(Type.Boolean()),
    top_logprobs: nullable(Type.Integer({ minimum: 0 })),
    service_tier: nullable(Type.String()),
  },
  { additionalProperties: true },
);

export type OpenAIResponsesRequestBody = Static<typeof openAIResponsesRequestSchema>;

/** A Responses API item (input or output), as the wire gives it: the decoder checks each kind's fields. */
export type ResponseItem = Readonly<Record<string, unknown>>;
