import type { CallOptions, EmbeddingModel, EmbeddingRequest, EmbeddingResult } from '../contract.js';
import { parseJsonOrUndefined } from '../parse-json.js';
import { invalidRequest, invalidResponse } from '../provider-errors.js';
import { postJsonForText } from '../transport/post-json-text.js';
import { upstreamTarget } from '../transport/upstream-call.js';
import type { OpenAIProviderSettings } from './openai-chat-model.js';
import { readEmbeddingList, type OpenAIEmbeddingList } from './openai-embeddings-api.js';

export interface OpenAIEmbeddingSettings extends Omit<OpenAIProviderSettings, 'url' | 'streamUsage'> {
  /**
   * The embeddings URL for a model, for upstreams that put the model in the path
   * (Azure OpenAI's deployments). @default `${baseUrl}/embeddings`
   */
  readonly url?: (modelId: string) => string;
}

/**
 * An embedding model spoken to in OpenAI's embeddings wire format
 * (https://platform.openai.com/docs/api-reference/embeddings/create): OpenAI's own,
 * Azure's deployments and the compatible servers (Mistral, Ollama, vLLM…). The only
 * format that takes token arrays as input, which are sent as they are. Vectors are
 * always asked for as floats: the gateway answers base64 itself when its client asks.
 */
export function createOpenAIEmbeddingModel(settings: OpenAIEmbeddingSettings, modelId: string): EmbeddingModel {
  const provider = settings.provider;
  const target = upstreamTarget(settings.url?.(modelId) ?? `${settings.baseUrl.replace(/\/+$/, '')}/embeddings`);
  const auth: Record<string, string> = settings.headers ? { ...settings.headers } : settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  const headers = { 'content-type': 'application/json', accept: 'application/json', ...auth };
  const modelField = settings.sendModelInBody === false ? {} : { model: modelId };

  return {
    provider,
    modelId,

    async embed(request: EmbeddingRequest, options: CallOptions): Promise<EmbeddingResult> {
      if (request.input.length === 0) throw invalidRequest(provider, `${provider}: no input to embed`);
      // OpenAI takes strings or token arrays, not both in one request (`'$.input' is invalid`): as it would refuse it.
      const texts = typeof request.input[0] === 'string';
      if (request.input.some((input) => (typeof input === 'string') !== texts)) throw invalidRequest(provider, `${provider}: input mixes texts and token arrays`);
      const body = {
        ...modelField,
        input: request.input,
        ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
        ...(request.user !== undefined ? { user: request.user } : {}),
        encoding_format: 'float',
      };
      const { text } = await postJsonForText(settings.http, provider, target, headers, body, options.signal);
      const json = parseJsonOrUndefined(text);
      if (json === undefined) throw invalidResponse(provider, 'response body is not JSON');
      const list = readEmbeddingList(json);
      if (list === undefined) throw invalidResponse(provider, 'response body does not match the embedding list shape');
      return { embeddings: inInputOrder(provider, list, request.input.length), usage: list.usage ? { promptTokens: list.usage.prompt_tokens } : undefined };
    },
  };
}

/** The vectors by their `index` (their position where a compatible server gives none), one for each input. */
function inInputOrder(provider: string, list: OpenAIEmbeddingList, inputs: number): (readonly number[])[] {
  if (list.data.length !== inputs) throw invalidResponse(provider, `${list.data.length} embeddings for ${inputs} inputs`);
  const vectors = new Array<readonly number[] | undefined>(inputs).fill(undefined);
  list.data.forEach((item, position) => {
    const index = item.index ?? position;
    if (index >= inputs || vectors[index] !== undefined) throw invalidResponse(provider, `embedding index ${index} is out of range or repeated`);
    vectors[index] = item.embedding;
  });
  return vectors as (readonly number[])[];
}
