import { fakeEmbedding, fakeTokenCount } from './fake-embedding-vectors.js';

/**
 * Amazon Titan Text Embeddings on Bedrock's InvokeModel as bedrock-runtime serves it
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html),
 * for fake-bedrock.ts: the model's body checked as Bedrock checks it (its JSON-schema
 * messages), and `{"embedding": […], "embeddingsByType": {"float": […]}, "inputTextTokenCount": N}`.
 */

/** What a scripted InvokeModel answer may set (fake-bedrock.ts's `FakeBedrockEmbeddingAnswer`). */
export interface TitanScript {
  /** @default `fakeEmbedding(modelId, inputText, dimensions)` */
  readonly vector?: readonly number[];
  /** @default about four characters a token */
  readonly inputTextTokenCount?: number;
}

/** A ValidationException as fake-bedrock.ts's `FakeBedrockError` scripts one. */
export interface TitanRefusal {
  readonly type: 'error';
  readonly status: 400;
  readonly errorType: 'ValidationException';
  readonly message: string;
}

/** A Titan body, read. */
export interface TitanBody {
  readonly inputText: string;
  readonly dimensions: number | undefined;
}

const V2 = 'amazon.titan-embed-text-v2:0';
const V2_FIELDS = ['inputText', 'dimensions', 'normalize', 'embeddingTypes'];
const V2_DIMENSIONS = [256, 512, 1024];

const malformed = (detail: string): TitanRefusal => ({
  type: 'error',
  status: 400,
  errorType: 'ValidationException',
  message: `Malformed input request: ${detail}, please reformat your input and try again.`,
});

/** The Titan body of an InvokeModel call, or the ValidationException Bedrock answers for it. */
export function readTitanBody(modelId: string | undefined, body: unknown): TitanBody | TitanRefusal {
  if (modelId !== V2 && modelId !== 'amazon.titan-embed-text-v1') return { type: 'error', status: 400, errorType: 'ValidationException', message: 'The provided model identifier is invalid.' };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return malformed('#: expected type: JSONObject, found: Null');
  const fields = body as Record<string, unknown>;
  const allowed = modelId === V2 ? V2_FIELDS : ['inputText'];
  const extraneous = Object.keys(fields).find((key) => !allowed.includes(key));
  if (extraneous !== undefined) return malformed(`#: extraneous key [${extraneous}] is not permitted`);
  if (!('inputText' in fields)) return malformed('#: required key [inputText] not found');
  if (typeof fields.inputText !== 'string') return malformed('#/inputText: expected type: String, found: Integer');
  if (fields.inputText.length === 0) return malformed('#/inputText: expected minLength: 1, actual: 0');
  const dimensions = fields.dimensions;
  if (dimensions !== undefined && !V2_DIMENSIONS.includes(dimensions as number)) return malformed(`#/dimensions: ${String(dimensions)} is not a valid enum value`);
  if (fields.normalize !== undefined && typeof fields.normalize !== 'boolean') return malformed('#/normalize: expected type: Boolean, found: String');
  return { inputText: fields.inputText, dimensions: dimensions as number | undefined };
}

/** The InvokeModel response body, keys in bedrock-runtime's order (v1 has no `embeddingsByType`). */
export function titanResponseObject(answer: TitanScript | undefined, modelId: string, body: TitanBody): Record<string, unknown> {
  const vector = answer?.vector ?? fakeEmbedding(modelId, body.inputText, body.dimensions);
  const inputTextTokenCount = answer?.inputTextTokenCount ?? fakeTokenCount(body.inputText);
  return modelId === V2 ? { embedding: vector, embeddingsByType: { float: vector }, inputTextTokenCount } : { embedding: vector, inputTextTokenCount };
}
