import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { startFakeOpenAI, type FakeBehaviour, type FakeDialect, type FakeHttpError, type FakeOpenAI } from './fake-openai.js';

/**
 * The fake api.openai.com speaking as an Azure OpenAI resource
 * (https://learn.microsoft.com/azure/ai-services/openai/reference): chat at
 * /openai/deployments/{deployment}/chat/completions?api-version=… (embeddings at
 * …/{deployment}/embeddings), the key in an
 * `api-key` header, Azure's error bodies, and the content-filter annotations
 * Azure adds to answers and chunks (`prompt_filter_results`, `content_filter_results`).
 */

export interface FakeAzureOpenAIOptions {
  /** The key the resource accepts. @default "azure-key" */
  readonly apiKey?: string;
  /** Deployment name → the model it serves. @default { "gpt-4o-mini": "gpt-4o-mini" } */
  readonly deployments?: Readonly<Record<string, string>>;
  /** api-version values served. @default 2024-06-01, 2024-10-21, 2025-01-01-preview */
  readonly apiVersions?: readonly string[];
}

export interface FakeAzureOpenAI extends FakeOpenAI {
  /** What AZURE_OPENAI_ENDPOINT takes, e.g. http://127.0.0.1:PORT. */
  readonly endpoint: string;
}

const CHAT_PATH = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/;
const EMBEDDINGS_PATH = /^\/openai\/deployments\/([^/]+)\/embeddings$/;
/** Either endpoint: the deployment is the first group. */
const DEPLOYMENT_PATH = /^\/openai\/deployments\/([^/]+)\/(?:chat\/completions|embeddings)$/;

const SAFE = { filtered: false, severity: 'safe' } as const;

/** Azure's default filter verdicts on an answer (hate, self-harm, sexual, violence; protected material). */
function outputFilterResults(filtered: boolean): Record<string, unknown> {
  return {
    hate: SAFE,
    protected_material_code: { filtered: false, detected: false },
    protected_material_text: { filtered: false, detected: false },
    self_harm: SAFE,
    sexual: SAFE,
    violence: filtered ? { filtered: true, severity: 'high' } : SAFE,
  };
}

const PROMPT_FILTER_RESULTS = [
  { prompt_index: 0, content_filter_results: { hate: SAFE, jailbreak: { filtered: false, detected: false }, self_harm: SAFE, sexual: SAFE, violence: SAFE } },
];

function azureError(status: number, code: string, message: string, headers: Readonly<Record<string, string>> = {}): FakeHttpError {
  return { type: 'error', status, body: { error: { code, message } }, headers };
}

/** Azure OpenAI's error answers, as its resources send them. */
export const azureErrors = {
  unauthorized: (): FakeHttpError =>
    azureError(
      401,
      '401',
      'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
    ),
  deploymentNotFound: (): FakeHttpError =>
    azureError(
      404,
      'DeploymentNotFound',
      'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
    ),
  resourceNotFound: (): FakeHttpError => azureError(404, '404', 'Resource not found'),
  /** The prompt tripped the content filter: HTTP 400 with code content_filter and the verdicts. */
  contentFilter: (): FakeHttpError => ({
    type: 'error',
    status: 400,
    body: {
      error: {
        message:
          "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766",
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: {
          code: 'ResponsibleAIPolicyViolation',
          content_filter_result: { hate: SAFE, jailbreak: { filtered: false, detected: false }, self_harm: SAFE, sexual: SAFE, violence: { filtered: true, severity: 'medium' } },
        },
      },
    },
  }),
  /** A token-rate limit, with the wait in both `retry-after-ms` and `retry-after`. */
  rateLimited: (retryAfterMs = 5_400): FakeHttpError =>
    azureError(
      429,
      '429',
      `Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after ${Math.ceil(retryAfterMs / 1000)} seconds. Please go here: https://aka.ms/oai/quotaincrease if you would like to further increase the default rate limit.`,
      { 'retry-after-ms': String(retryAfterMs), 'retry-after': String(Math.ceil(retryAfterMs / 1000)), 'x-ratelimit-remaining-tokens': '0' },
    ),
  /** A rate limit that says its wait in seconds only. */
  rateLimitedSeconds: (seconds = 7): FakeHttpError =>
    azureError(429, '429', `Rate limit is exceeded. Try again in ${seconds} seconds.`, { 'retry-after': String(seconds) }),
  unrecognizedArgument: (name: string): FakeHttpError => ({
    type: 'error',
    status: 400,
    body: { error: { message: `Unrecognized request argument supplied: ${name}`, type: 'invalid_request_error', param: null, code: null } },
  }),
  serverError: (): FakeHttpError => ({
    type: 'error',
    status: 500,
    body: { error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null } },
  }),
} as const;

function azureHeaders(contentType: string): Record<string, string> {
  const requestId = randomUUID();
  return {
    'content-type': contentType,
    'apim-request-id': requestId,
    'x-request-id': requestId,
    'x-ms-region': 'East US',
    'x-ms-rai-invoked': 'true',
    'x-ms-client-request-id': 'Not-Set',
    'azureml-model-session': `d${randomBytes(4).toString('hex')}-20241021`,
    'x-ratelimit-remaining-requests': '9999',
    'x-ratelimit-remaining-tokens': '1999800',
    'x-content-type-options': 'nosniff',
    'strict-transport-security': 'max-age=31536000; includeSubDomains; preload',
  };
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** Adds Azure's verdicts to each choice, and drops what only api.openai.com sends. */
function annotateChoices(object: Record<string, unknown>, role: 'message' | 'delta'): Record<string, unknown> {
  const { service_tier: _tier, obfuscation: _obfuscation, ...rest } = object;
  const choices = Array.isArray(rest.choices) ? rest.choices.map(record) : [];
  return {
    ...rest,
    choices: choices.map((choice) => {
      const isRoleChunk = role === 'delta' && typeof record(choice.delta).role === 'string';
      return { ...choice, content_filter_results: isRoleChunk ? {} : outputFilterResults(choice.finish_reason === 'content_filter') };
    }),
  };
}

function createAzureDialect(apiKey: string, deployments: Readonly<Record<string, string>>, apiVersions: readonly string[]): FakeDialect {
  const deploymentOf = (url: string): string | undefined => {
    const match = DEPLOYMENT_PATH.exec(url.split('?')[0] ?? '');
    return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
  };
  return {
    isChatPath: (pathname) => CHAT_PATH.test(pathname),
    isEmbeddingsPath: (pathname) => EMBEDDINGS_PATH.test(pathname),
    notFound: () => azureErrors.resourceNotFound(),
    refuse(request: IncomingMessage): FakeBehaviour | undefined {
      const url = new URL(request.url ?? '/', 'http://fake');
      const version = url.searchParams.get('api-version');
      if (version === null || !apiVersions.includes(version)) return azureErrors.resourceNotFound();
      if (request.headers['api-key'] !== apiKey) return azureErrors.unauthorized();
      const deployment = deploymentOf(request.url ?? '');
      if (deployment === undefined || deployments[deployment] === undefined) return azureErrors.deploymentNotFound();
      return undefined;
    },
    refuseBody(url, body) {
      // Streaming usage came with 2024-08-01-preview; older versions refuse the field.
      const version = new URL(url, 'http://fake').searchParams.get('api-version') ?? '';
      if (version < '2024-08-01' && 'stream_options' in record(body)) return azureErrors.unrecognizedArgument('stream_options');
      return undefined;
    },
    // Azure serves the deployment's model whatever the body says (embeddings: the same `list` as OpenAI's).
    requestBody: (url, body) => ({ ...record(body), model: deployments[deploymentOf(url) ?? ''] ?? 'gpt-4o-mini' }),
    headers: azureHeaders,
    completion: (object) => ({ ...annotateChoices(object, 'message'), prompt_filter_results: PROMPT_FILTER_RESULTS }),
    streamEvents(events) {
      const promptChunk = JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: PROMPT_FILTER_RESULTS });
      const annotated = events.map((data) => {
        if (data === '[DONE]') return data;
        return JSON.stringify(annotateChoices(record(JSON.parse(data) as unknown), 'delta'));
      });
      return [promptChunk, ...annotated];
    },
  };
}

export async function startFakeAzureOpenAI(options: FakeAzureOpenAIOptions = {}): Promise<FakeAzureOpenAI> {
  const dialect = createAzureDialect(
    options.apiKey ?? 'azure-key',
    options.deployments ?? { 'gpt-4o-mini': 'gpt-4o-mini' },
    options.apiVersions ?? ['2024-06-01', '2024-10-21', '2025-01-01-preview'],
  );
  const fake = await startFakeOpenAI({ dialect });
  return Object.assign(fake, { endpoint: fake.origin });
}

/** The deployment a recorded request went to. */
export function requestedDeployment(path: string): string | undefined {
  const match = DEPLOYMENT_PATH.exec(path.split('?')[0] ?? '');
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}
