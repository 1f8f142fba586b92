import type { EmbeddingModel } from '../contract.js';
import { createOpenAIEmbeddingModel } from '../openai/openai-embedding-model.js';
import { AZURE_DEFAULT_API_VERSION, azureEndpoint, type AzureProviderSettings } from './azure-chat-model.js';

/**
 * An embedding deployment of an Azure OpenAI resource: OpenAI's embeddings format
 * at `/openai/deployments/{deployment}/embeddings?api-version=…`, the key in `api-key`,
 * the model named by the deployment, not by the body.
 * https://learn.microsoft.com/azure/ai-services/openai/reference#embeddings
 */
export function createAzureEmbeddingModel(settings: AzureProviderSettings, deployment: string): EmbeddingModel {
  const endpoint = azureEndpoint(settings.endpoint);
  const apiVersion = encodeURIComponent(settings.apiVersion ?? AZURE_DEFAULT_API_VERSION);
  return createOpenAIEmbeddingModel(
    {
      provider: settings.provider,
      baseUrl: endpoint,
      http: settings.http,
      headers: { 'api-key': settings.apiKey },
      sendModelInBody: false,
      url: (name) => `${endpoint}/openai/deployments/${encodeURIComponent(name)}/embeddings?api-version=${apiVersion}`,
    },
    deployment,
  );
}
