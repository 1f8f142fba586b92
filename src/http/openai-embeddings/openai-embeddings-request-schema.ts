import { Type, type Static } from '@sinclair/typebox';

const tokenArray = Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1 });

/**
 * JSON schema of the embeddings request (OpenAI's `POST /v1/embeddings`): `input` is a string, an array of strings,
 * an array of token ids, or an array of token arrays. Other fields are allowed and ignored, as OpenAI's SDKs may add
 * their own.
 */
export const openAIEmbeddingsRequestSchema = Type.Object(
  {
    input: Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 }), tokenArray, Type.Array(tokenArray, { minItems: 1 })]),
    // null, like every optional OpenAI parameter, means "not set".
    model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    dimensions: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
    encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64'), Type.Null()])),
    user: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);

export type OpenAIEmbeddingsRequestBody = Static<typeof openAIEmbeddingsRequestSchema>;
