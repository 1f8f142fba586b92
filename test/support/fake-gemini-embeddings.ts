import { fakeEmbedding } from './fake-embedding-vectors.js';

/**
 * The Gemini API's embedContent and batchEmbedContents as generativelanguage.googleapis.com
 * serves them (https://ai.google.dev/api/embeddings), for fake-gemini.ts: the body checked
 * as Google checks it, and `{"embedding": {"values": […]}}` / `{"embeddings": [{"values": […]}, …]}`,
 * without a token count (the Gemini API gives none).
 */

/** What a scripted embed answer may set (fake-gemini.ts's `FakeGeminiEmbeddingAnswer`). */
export interface EmbedScript {
  /** One vector per request, in order. @default `fakeEmbedding(model, text, outputDimensionality)` for each */
  readonly vectors?: readonly (readonly number[])[];
}

/** A 400 INVALID_ARGUMENT as fake-gemini.ts's `FakeHttpError` scripts one. */
export interface EmbedRefusal {
  readonly type: 'error';
  readonly status: 400;
  readonly body: unknown;
}

/** Inputs per batchEmbedContents call. */
export const MAX_BATCH = 100;

const invalidArgument = (message: string): EmbedRefusal => ({ type: 'error', status: 400, body: { error: { code: 400, message, status: 'INVALID_ARGUMENT' } } });

const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

export interface EmbedRequest {
  readonly text: string;
  readonly outputDimensionality: number | undefined;
}

/** One EmbedContentRequest read as Google reads it, or the message of its refusal. */
function readRequest(value: unknown, where: string, model: string, inBatch: boolean): EmbedRequest | string {
  const fields = record(value);
  // A batch's requests must name the URL's model; a single call may leave it out.
  if ((inBatch || fields.model !== undefined) && fields.model !== `models/${model}`) {
    return `* ${where}.model: model must be models/${model}, the model of the request URL\n`;
  }
  const parts = record(fields.content).parts;
  if (!Array.isArray(parts) || parts.length === 0) return `* ${where}.content: contents is not specified\n`;
  const texts = parts.map((part) => record(part).text);
  if (!texts.every((text) => typeof text === 'string')) return `* ${where}.content.parts: only text parts can be embedded\n`;
  const dimensions = fields.outputDimensionality;
  if (dimensions !== undefined && (!Number.isInteger(dimensions) || (dimensions as number) < 1)) {
    return `* ${where}.output_dimensionality: must be a positive integer\n`;
  }
  return { text: texts.join(''), outputDimensionality: dimensions as number | undefined };
}

/** The requests of an embed call (`batch`: batchEmbedContents), or Google's 400 for its body. */
export function readEmbedRequests(body: unknown, model: string, batch: boolean): EmbedRequest[] | EmbedRefusal {
  if (!batch) {
    const single = readRequest(body, 'EmbedContentRequest', model, false);
    return typeof single === 'string' ? invalidArgument(single) : [single];
  }
  const requests = record(body).requests;
  if (!Array.isArray(requests) || requests.length === 0) return invalidArgument('* BatchEmbedContentsRequest.requests: requests is not specified\n');
  if (requests.length > MAX_BATCH) return invalidArgument(`* BatchEmbedContentsRequest.requests: at most ${MAX_BATCH} requests can be in one batch.\n`);
  const read: EmbedRequest[] = [];
  for (const [index, request] of requests.entries()) {
    const one = readRequest(request, `BatchEmbedContentsRequest.requests[${index}]`, model, true);
    if (typeof one === 'string') return invalidArgument(one);
    read.push(one);
  }
  return read;
}

/** The EmbedContentResponse or BatchEmbedContentsResponse object. */
export function embedResponseObject(answer: EmbedScript | undefined, requests: readonly EmbedRequest[], model: string, batch: boolean): Record<string, unknown> {
  const values = requests.map((request, index) => answer?.vectors?.[index] ?? fakeEmbedding(model, request.text, request.outputDimensionality));
  return batch ? { embeddings: values.map((vector) => ({ values: vector })) } : { embedding: { values: values[0] ?? [] } };
}
