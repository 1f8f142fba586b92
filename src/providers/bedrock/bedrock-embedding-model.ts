import { ClientAbort, type ClientSignal } from '../../lib/client-abort.js';
import { UpstreamError, type CallOptions, type EmbeddingModel, type EmbeddingRequest, type EmbeddingResult } from '../contract.js';
import { parseJsonOrUndefined } from '../parse-json.js';
import { invalidRequest, invalidResponse, unsupportedRequest } from '../provider-errors.js';
import { postForText } from '../transport/post-json-text.js';
import { upstreamTarget } from '../transport/upstream-call.js';
import type { BedrockProviderSettings } from './bedrock-chat-model.js';
import { titanEmbeddingResponseSchema, type TitanEmbeddingRequest } from './bedrock-embeddings-api.js';
import { refineBedrockError } from './bedrock-errors.js';
import { createBedrockSigner } from './sign-bedrock-request.js';

/**
 * Titan takes one text a call, so a batch is that many calls: at most this many at
 * once, so that a batch of thousands neither opens thousands of connections nor meets
 * the account's request quota all at once.
 */
const CALLS_IN_FLIGHT = 8;

interface Embedded {
  readonly vector: readonly number[];
  readonly tokens: number;
}

/**
 * Amazon Titan Text Embeddings v2 (`amazon.titan-embed-text-v2:0`) through
 * InvokeModel, signed as the Converse calls are. One call per input, several at once,
 * the vectors in input order and the token counts summed; the first failure aborts
 * the calls still running and is the batch's. Titan takes text only: token arrays are
 * refused, and another model may serve them.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html
 */
export function createBedrockEmbeddingModel(settings: Omit<BedrockProviderSettings, 'defaultMaxTokens'>, modelId: string): EmbeddingModel {
  const provider = settings.provider;
  const base = (settings.baseUrl ?? `https://bedrock-runtime.${settings.region}.amazonaws.com`).replace(/\/+$/, '');
  const invokeUrl = new URL(`${base}/model/${encodeURIComponent(modelId)}/invoke`);
  const invokeTarget = upstreamTarget(invokeUrl.href);
  const sign = createBedrockSigner(settings.credentials, settings.region, settings.now);

  const embedOne = async (inputText: string, dimensions: number | undefined, signal: ClientSignal): Promise<Embedded> => {
    const body: TitanEmbeddingRequest = { inputText, ...(dimensions !== undefined ? { dimensions } : {}), normalize: true };
    const payload = JSON.stringify(body);
    const signed = await sign(invokeUrl, payload, { 'content-type': 'application/json' });
    let text: string;
    try {
      // The bytes sent are the bytes signed.
      text = (await postForText(settings.http, provider, invokeTarget, { ...signed, accept: 'application/json' }, payload, signal)).text;
    } catch (error) {
      throw error instanceof UpstreamError ? refineBedrockError(error) : error;
    }
    const parsed = titanEmbeddingResponseSchema.safeParse(parseJsonOrUndefined(text));
    if (!parsed.success) throw invalidResponse(provider, 'response body is not a Titan embedding response');
    return { vector: parsed.data.embedding, tokens: parsed.data.inputTextTokenCount };
  };

  return {
    provider,
    modelId,

    async embed(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResult> {
      const texts = request.input.map((input) => {
        if (typeof input !== 'string') throw unsupportedRequest(provider, `${provider}: token arrays cannot be embedded: Titan takes text only`);
        return input;
      });
      if (texts.length === 0) throw invalidRequest(provider, `${provider}: no input to embed`);
      const embedded = texts.length === 1 ? [await embedOne(texts[0] as string, request.dimensions, options.signal)] : await embedAll(texts, request.dimensions, options.signal, embedOne);
      let tokens = 0;
      for (const one of embedded) tokens += one.tokens;
      return { embeddings: embedded.map((one) => one.vector), usage: { promptTokens: tokens } };
    },
  };
}

/** Every text embedded, `CALLS_IN_FLIGHT` at a time, in input order; the first failure aborts the others and is thrown. */
async function embedAll(
  texts: readonly string[],
  dimensions: number | undefined,
  signal: ClientSignal,
  embedOne: (text: string, dimensions: number | undefined, signal: ClientSignal) => Promise<Embedded>,
): Promise<Embedded[]> {
  // One abort for the batch's calls: the caller's, or the first failure's (the others then fail as aborted, unseen).
  const batch = new ClientAbort();
  const onCallerAbort = () => batch.abort(signal.reason);
  if (signal.aborted) batch.abort(signal.reason);
  else signal.addEventListener('abort', onCallerAbort, { once: true });
  const results = new Array<Embedded>(texts.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    // A worker stops at its first failure; once the batch is aborted, each call fails at once, as aborted.
    while (next < texts.length) {
      const index = next++;
      results[index] = await embedOne(texts[index] as string, dimensions, batch);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(CALLS_IN_FLIGHT, texts.length) }, () =>
        worker().catch((error: unknown) => {
          batch.abort(error);
          throw error;
        }),
      ),
    );
    return results;
  } finally {
    signal.removeEventListener('abort', onCallerAbort);
  }
}
