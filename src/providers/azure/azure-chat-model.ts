import type { ChatModel } from '../contract.js';
import type { UpstreamHttp } from '../transport/http-client.js';
import { createOpenAIChatModel } from '../openai/openai-chat-model.js';

/**
 * The latest GA data-plane inference version as of writing; the first GA version
 * with usage in streams (`stream_options.include_usage`), which cost accounting needs.
 * https://learn.microsoft.com/azure/ai-services/openai/api-version-deprecation
 */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/** Dated api-versions before this one refuse `stream_options` ("Unrecognized request argument supplied"). */
const FIRST_VERSION_WITH_STREAM_USAGE = '2024-08-01';

export interface AzureProviderSettings {
  /** Name used in `<provider>:<deployment>` ids and in errors. @default "azure" */
  readonly provider: string;
  /** The resource's endpoint, as AZURE_OPENAI_ENDPOINT takes it. @example "https://myres.openai.azure.com" */
  readonly endpoint: string;
  /** Sent as `api-key` (Azure's key header), never as a Bearer token. */
  readonly apiKey: string;
  /** The `api-version` query parameter. @default AZURE_DEFAULT_API_VERSION */
  readonly apiVersion?: string;
  readonly http: UpstreamHttp;
}

/**
 * A deployment of an Azure OpenAI resource. Azure speaks OpenAI's chat-completions
 * format, so the OpenAI adapter does the mapping; only the URL (the deployment is
 * in the path, the model is not in the body) and the auth header differ.
 * Azure's extras need no code: `content_filter_results` and `prompt_filter_results`
 * are extra fields the OpenAI schemas let through, output stopped by the filter is
 * finish_reason `content_filter`, a filtered prompt is HTTP 400 with code
 * `content_filter` (a request fault: not retried elsewhere), and 429s carry
 * `retry-after-ms` and `retry-after`, which http-client.ts honours. Older
 * api-versions refuse `stream_options`: their streams go without upstream usage
 * (the gateway then counts tokens itself).
 * https://learn.microsoft.com/azure/ai-services/openai/reference
 */
export function createAzureChatModel(settings: AzureProviderSettings, deployment: string): ChatModel {
  const endpoint = azureEndpoint(settings.endpoint);
  const version = settings.apiVersion ?? AZURE_DEFAULT_API_VERSION;
  const apiVersion = encodeURIComponent(version);
  return createOpenAIChatModel(
    {
      provider: settings.provider,
      baseUrl: endpoint,
      http: settings.http,
      headers: { 'api-key': settings.apiKey },
      sendModelInBody: false,
      // Dated versions compare as strings; "preview" and "latest" (the v1 API's) sort after them.
      streamUsage: version >= FIRST_VERSION_WITH_STREAM_USAGE,
      url: (name) => `${endpoint}/openai/deployments/${encodeURIComponent(name)}/chat/completions?api-version=${apiVersion}`,
    },
    deployment,
  );
}

/** The endpoint as the portal shows it, with or without a trailing slash or `/openai`. */
export function azureEndpoint(endpoint: string): string {
  return endpoint.replace(/\/+$/, '').replace(/\/openai$/, '');
}
