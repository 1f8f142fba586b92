import { fakeEmbedding, fakeTokenCount, float32Base64, nativeDimensions } from './fake-embedding-vectors.js';

/**
 * OpenAI's embeddings endpoint as api.openai.com serves it
 * (https://platform.openai.com/docs/api-reference/embeddings), for fake-openai.ts:
 * the request checked as OpenAI checks it, and the `list` answer, its vectors as
 * JSON floats or, with `encoding_format: "base64"`, as base64 of little-endian float32s.
 */

/** What a scripted embeddings answer may set (fake-openai.ts's `FakeEmbeddingAnswer`); the rest is derived from the request. */
export interface EmbeddingListScript {
  /** One vector per input, in input order. @default `fakeEmbedding(model, input, dimensions)` for each input */
  readonly vectors?: readonly (readonly number[])[];
  /** @default about four characters a token, or the token arrays' lengths */
  readonly promptTokens?: number;
  /** The model the upstream reports. @default the requested model */
  readonly model?: string;
  /** The order `data` is sent in, as input indexes (each entry keeps its own `index`). @default input order */
  readonly order?: readonly number[];
}

/** A 400 as fake-openai.ts's `FakeHttpError` scripts one. */
export interface EmbeddingsRefusal {
  readonly type: 'error';
  readonly status: 400;
  readonly body: unknown;
}

type Input = string | readonly number[];

const isTokens = (value: unknown): value is number[] => Array.isArray(value) && value.length > 0 && value.every((token) => Number.isInteger(token) && token >= 0);

/** The request's inputs as OpenAI reads `input`: a string, strings, one token array, or token arrays; undefined when invalid. */
function inputsOf(input: unknown): Input[] | undefined {
  if (typeof input === 'string') return input === '' ? undefined : [input];
  if (!Array.isArray(input) || input.length === 0) return undefined;
  if (input.every((item) => typeof item === 'string' && item !== '')) return input as string[];
  if (isTokens(input)) return [input];
  if (input.every(isTokens)) return input as number[][];
  return undefined;
}

const invalid = (message: string, param: string | null = null, code: string | null = null): EmbeddingsRefusal => ({
  type: 'error',
  status: 400,
  body: { error: { message, type: 'invalid_request_error', param, code } },
});

const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** The 400 OpenAI answers a body it does not take, or undefined. */
export function embeddingsRefusal(body: unknown): EmbeddingsRefusal | undefined {
  const fields = record(body);
  if (typeof fields.model !== 'string') return invalid('You must provide a model parameter.');
  if (inputsOf(fields.input) === undefined) return invalid("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.");
  const format = fields.encoding_format;
  if (format !== undefined && format !== 'float' && format !== 'base64') {
    return invalid(`Invalid value for 'encoding_format': expected one of 'float' or 'base64', but got '${String(format)}'.`, 'encoding_format', 'invalid_value');
  }
  const dimensions = fields.dimensions;
  if (dimensions === undefined) return undefined;
  if (fields.model === 'text-embedding-ada-002') return invalid('This model does not support specifying dimensions.');
  if (!Number.isInteger(dimensions) || (dimensions as number) < 1 || (dimensions as number) > nativeDimensions(fields.model)) {
    return invalid(`Invalid value for 'dimensions' = ${String(dimensions)}. Must be between 1 and ${nativeDimensions(fields.model)}.`, 'dimensions', 'invalid_value');
  }
  return undefined;
}

/** The `list` object, keys in api.openai.com's order. */
export function embeddingListObject(answer: EmbeddingListScript | undefined, body: unknown): Record<string, unknown> {
  const fields = record(body);
  const model = typeof fields.model === 'string' ? fields.model : 'text-embedding-3-small';
  const inputs = inputsOf(fields.input) ?? [];
  const dimensions = typeof fields.dimensions === 'number' ? fields.dimensions : undefined;
  const base64 = fields.encoding_format === 'base64';
  const vectors = answer?.vectors ?? inputs.map((input) => fakeEmbedding(model, input, dimensions));
  const order = answer?.order ?? vectors.map((_, index) => index);
  const promptTokens = answer?.promptTokens ?? inputs.reduce((sum, input) => sum + fakeTokenCount(input), 0);
  return {
    object: 'list',
    data: order.map((index) => {
      const vector = vectors[index] ?? [];
      return { object: 'embedding', index, embedding: base64 ? float32Base64(vector) : vector };
    }),
    model: answer?.model ?? model,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
  };
}
