import { createAnthropicChatModel } from './anthropic/anthropic-chat-model.js';
import { createAzureChatModel } from './azure/azure-chat-model.js';
import { createAzureEmbeddingModel } from './azure/azure-embedding-model.js';
import { createBedrockChatModel } from './bedrock/bedrock-chat-model.js';
import { createBedrockEmbeddingModel } from './bedrock/bedrock-embedding-model.js';
import type { ChatModel, EmbeddingModel } from './contract.js';
import { createGeminiChatModel } from './gemini/gemini-chat-model.js';
import { createGeminiEmbeddingModel } from './gemini/gemini-embedding-model.js';
import type { UpstreamHttp } from './transport/http-client.js';
import { createOpenAIChatModel } from './openai/openai-chat-model.js';
import { createOpenAIEmbeddingModel } from './openai/openai-embedding-model.js';
import type { ProviderCredentials, ProviderPreset } from './credentials/provider-presets.js';

export interface ModelFactoryOptions {
  readonly http: UpstreamHttp;
  /** max_tokens for providers that require one (Anthropic) when the request has none. */
  readonly defaultMaxTokens?: number | undefined;
}

/**
 * One callable model from a provider's wire format and a set of credentials:
 * the only place that knows which folder speaks which format. Server-wide and
 * per-owner credentials both come through here.
 */
export function createChatModelFor(
  preset: ProviderPreset,
  credentials: ProviderCredentials,
  modelId: string,
  options: ModelFactoryOptions,
): ChatModel | undefined {
  const common = {
    provider: preset.name,
    baseUrl: credentials.baseUrl,
    http: options.http,
    ...(credentials.apiKey !== undefined ? { apiKey: credentials.apiKey } : {}),
  };
  switch (preset.wireFormat) {
    case 'openai':
      return createOpenAIChatModel(common, modelId);
    case 'anthropic':
      return createAnthropicChatModel({ ...common, ...(options.defaultMaxTokens !== undefined ? { defaultMaxTokens: options.defaultMaxTokens } : {}) }, modelId);
    case 'gemini':
      return createGeminiChatModel(common, modelId);
    case 'azure': {
      const settings = azureSettings(preset, credentials, options.http);
      return settings === undefined ? undefined : createAzureChatModel(settings, modelId);
    }
    case 'bedrock': {
      const settings = bedrockSettings(preset, credentials, options.http);
      return settings === undefined
        ? undefined
        : createBedrockChatModel({ ...settings, ...(options.defaultMaxTokens !== undefined ? { defaultMaxTokens: options.defaultMaxTokens } : {}) }, modelId);
    }
    case 'sim':
      return undefined;
  }
}

/**
 * One callable embedding model from a provider's wire format and a set of credentials, as `createChatModelFor`
 * builds chat models; undefined for a format without embeddings (Anthropic's, the simulator) or credentials
 * that cannot call it.
 */
export function createEmbeddingModelFor(
  preset: ProviderPreset,
  credentials: ProviderCredentials,
  modelId: string,
  options: Pick<ModelFactoryOptions, 'http'>,
): EmbeddingModel | undefined {
  const common = {
    provider: preset.name,
    baseUrl: credentials.baseUrl,
    http: options.http,
    ...(credentials.apiKey !== undefined ? { apiKey: credentials.apiKey } : {}),
  };
  switch (preset.wireFormat) {
    case 'openai':
      return createOpenAIEmbeddingModel(common, modelId);
    case 'gemini':
      return createGeminiEmbeddingModel(common, modelId);
    case 'azure': {
      const settings = azureSettings(preset, credentials, options.http);
      return settings === undefined ? undefined : createAzureEmbeddingModel(settings, modelId);
    }
    case 'bedrock': {
      const settings = bedrockSettings(preset, credentials, options.http);
      return settings === undefined ? undefined : createBedrockEmbeddingModel(settings, modelId);
    }
    case 'anthropic':
    case 'sim':
      return undefined;
  }
}

/** An Azure resource's settings from its credentials; undefined without a key. */
function azureSettings(preset: ProviderPreset, credentials: ProviderCredentials, http: UpstreamHttp) {
  if (credentials.apiKey === undefined) return undefined;
  const apiVersion = credentials.options?.apiVersion;
  return { provider: preset.name, endpoint: credentials.baseUrl, apiKey: credentials.apiKey, http, ...(apiVersion !== undefined ? { apiVersion } : {}) };
}

/** Bedrock's settings from AWS credentials (access key id as the key); undefined without both halves of the key. */
function bedrockSettings(preset: ProviderPreset, credentials: ProviderCredentials, http: UpstreamHttp) {
  const secretAccessKey = credentials.options?.secretAccessKey;
  if (credentials.apiKey === undefined || secretAccessKey === undefined) return undefined;
  const sessionToken = credentials.options?.sessionToken;
  return {
    provider: preset.name,
    region: credentials.options?.region ?? 'us-east-1',
    baseUrl: credentials.baseUrl,
    credentials: { accessKeyId: credentials.apiKey, secretAccessKey, ...(sessionToken !== undefined ? { sessionToken } : {}) },
    http,
  };
}
