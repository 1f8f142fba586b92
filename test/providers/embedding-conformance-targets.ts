import { findPreset } from '../../src/providers/credentials/provider-presets.js';
import { azureErrors, startFakeAzureOpenAI } from '../support/fake-azure-openai.js';
import { FAKE_AWS_CREDENTIALS, bedrockErrors, startFakeBedrock } from '../support/fake-bedrock.js';
import { geminiErrors, startFakeGemini, type FakeHttpError as GeminiHttpError } from '../support/fake-gemini.js';
import { openAIErrors, startFakeOpenAI, type FakeHttpError, type FakeOpenAI } from '../support/fake-openai.js';
import type { ErrorClass, ProviderCredentials, ProviderPreset, ScriptedError } from './conformance-target.js';
import type { EmbeddingConformanceTarget, RunningEmbeddingFake, SentInput } from './embedding-conformance-target.js';

/** The embedding conformance targets: one per wire format, and OpenAI's format as Azure and a local server speak it. */

function preset(name: string): ProviderPreset {
  const found = findPreset(name);
  if (found === undefined) throw new Error(`no preset ${name}`);
  return found;
}

const sum = (counts: readonly number[]): number => counts.reduce((total, count) => total + count, 0);
const fields = (body: unknown): Record<string, unknown> => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {});
const dimensionsOf = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

interface OpenAIFamily {
  readonly name: string;
  readonly preset: ProviderPreset;
  readonly modelId: string;
  readonly vectorModel: string;
  startFake(): Promise<Pick<RunningEmbeddingFake, 'credentials' | 'wrongCredentials' | 'credentialsAt'> & { readonly fake: FakeOpenAI }>;
  readonly errors: Readonly<Record<ErrorClass, () => { readonly behaviour: FakeHttpError; readonly retryAfterMs?: number }>>;
  readonly refusedCredentials: EmbeddingConformanceTarget['refusedCredentials'];
}

function openAIFamily(family: OpenAIFamily): EmbeddingConformanceTarget {
  const { startFake, errors, ...rest } = family;
  return {
    ...rest,
    shortDimensions: 256,
    tokenArrays: true,
    reportsUsage: true,
    async start() {
      const { fake, ...credentials } = await startFake();
      return {
        ...credentials,
        answer: (script) => fake.enqueue({ type: 'embeddings', vectors: script.vectors, promptTokens: sum(script.promptTokens) }),
        error(errorClass): ScriptedError {
          const { behaviour, retryAfterMs } = errors[errorClass]();
          fake.enqueue(behaviour);
          return { status: behaviour.status, retryAfterMs };
        },
        malformed: () => fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"object":"list","data":[' }),
        hang: () => fake.enqueue({ type: 'hang' }),
        sent: () =>
          fake.embeddingRequests().flatMap((request): SentInput[] => {
            const body = fields(request.body);
            const inputs = Array.isArray(body.input) ? (body.input as (string | number[])[]) : [body.input as string];
            return inputs.map((input) => ({ input, dimensions: dimensionsOf(body.dimensions) }));
          }),
        reset: () => fake.reset(),
        close: () => fake.close(),
      };
    },
  };
}

const openAIForbidden: FakeHttpError = {
  type: 'error',
  status: 403,
  body: { error: { code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported', param: null, type: 'request_forbidden' } },
};

export const openAITarget = openAIFamily({
  name: 'OpenAI embeddings',
  preset: preset('openai'),
  modelId: 'text-embedding-3-small',
  vectorModel: 'text-embedding-3-small',
  async startFake() {
    const fake = await startFakeOpenAI({ apiKey: 'sk-conformance' });
    return {
      fake,
      credentials: { baseUrl: fake.baseUrl, apiKey: 'sk-conformance' },
      wrongCredentials: { credentials: { baseUrl: fake.baseUrl, apiKey: 'sk-wrong-key' }, secret: 'sk-wrong-key' },
      credentialsAt: (origin) => ({ baseUrl: `${origin}/v1`, apiKey: 'sk-conformance' }),
    };
  },
  errors: {
    'invalid-request': () => ({ behaviour: openAIErrors.badRequest("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", null, null) }),
    forbidden: () => ({ behaviour: openAIForbidden }),
    'not-found': () => ({ behaviour: openAIErrors.modelNotFound('text-embedding-3-small') }),
    'rate-limited': () => ({ behaviour: openAIErrors.rateLimited(17), retryAfterMs: 17_000 }),
    'server-error': () => ({ behaviour: openAIErrors.serverError() }),
    unavailable: () => ({ behaviour: openAIErrors.overloaded() }),
  },
  refusedCredentials: { status: 401 },
});

const azureError = (status: number, code: string, message: string): FakeHttpError => ({ type: 'error', status, body: { error: { code, message } } });

export const azureTarget = openAIFamily({
  name: 'Azure OpenAI embeddings',
  preset: preset('azure'),
  // Azure calls by deployment name; the deployment's model seeds the vectors.
  modelId: 'conformance-embed',
  vectorModel: 'text-embedding-3-small',
  async startFake() {
    const fake = await startFakeAzureOpenAI({ apiKey: 'azure-conformance', deployments: { 'conformance-embed': 'text-embedding-3-small' } });
    return {
      fake,
      credentials: { baseUrl: fake.endpoint, apiKey: 'azure-conformance' },
      wrongCredentials: { credentials: { baseUrl: fake.endpoint, apiKey: 'azure-wrong-key' }, secret: 'azure-wrong-key' },
      credentialsAt: (origin) => ({ baseUrl: origin, apiKey: 'azure-conformance' }),
    };
  },
  errors: {
    'invalid-request': () => ({ behaviour: azureErrors.unrecognizedArgument('task_type') }),
    forbidden: () => ({ behaviour: azureError(403, 'PermissionDenied', 'Principal does not have access to API/Operation.') }),
    'not-found': () => ({ behaviour: azureErrors.deploymentNotFound() }),
    'rate-limited': () => ({ behaviour: azureErrors.rateLimited(5_400), retryAfterMs: 5_400 }),
    'server-error': () => ({ behaviour: azureErrors.serverError() }),
    unavailable: () => ({ behaviour: azureError(503, 'ServiceUnavailable', 'The service is temporarily unable to process your request. Please try again later.') }),
  },
  refusedCredentials: { status: 401 },
});

/** Ollama's answer for a model that was never pulled. */
const modelNotPulled: FakeHttpError = {
  type: 'error',
  status: 404,
  body: { error: { message: 'model "nomic-embed-text" not found, try pulling it first', type: 'api_error', param: null, code: null } },
};

export const openAICompatibleTarget = openAIFamily({
  name: 'OpenAI-compatible local server embeddings (no key)',
  preset: preset('ollama'),
  modelId: 'nomic-embed-text',
  vectorModel: 'nomic-embed-text',
  async startFake() {
    const fake = await startFakeOpenAI({ apiKey: null });
    return { fake, credentials: { baseUrl: fake.baseUrl }, wrongCredentials: undefined, credentialsAt: (origin) => ({ baseUrl: `${origin}/v1` }) };
  },
  errors: {
    'invalid-request': () => ({ behaviour: openAIErrors.badRequest('input length exceeds the context length', null, null) }),
    forbidden: () => ({ behaviour: { type: 'error', status: 403, body: { error: { message: 'Forbidden', type: 'api_error', param: null, code: null } } } }),
    'not-found': () => ({ behaviour: modelNotPulled }),
    'rate-limited': () => ({ behaviour: openAIErrors.rateLimited(3), retryAfterMs: 3_000 }),
    'server-error': () => ({ behaviour: openAIErrors.serverError() }),
    unavailable: () => ({ behaviour: openAIErrors.overloaded() }),
  },
  refusedCredentials: { skip: 'a local server takes no key, so it has none to refuse' },
});

const GEMINI_MODEL = 'gemini-embedding-001';

export const geminiTarget: EmbeddingConformanceTarget = {
  name: 'Gemini embedContent / batchEmbedContents',
  preset: preset('gemini'),
  modelId: GEMINI_MODEL,
  vectorModel: GEMINI_MODEL,
  shortDimensions: 768,
  tokenArrays: false,
  reportsUsage: false,
  // A wrong API key is 400 INVALID_ARGUMENT (reason API_KEY_INVALID), not 401.
  refusedCredentials: { status: 400 },
  async start() {
    const fake = await startFakeGemini({ apiKey: 'gemini-conformance-key' });
    const enqueueError = (behaviour: GeminiHttpError, retryAfterMs?: number): ScriptedError => {
      fake.enqueue(behaviour);
      return { status: behaviour.status, retryAfterMs };
    };
    const errors: Record<ErrorClass, () => ScriptedError> = {
      'invalid-request': () => enqueueError(geminiErrors.badRequest('* EmbedContentRequest.content: contents is not specified\n')),
      forbidden: () => enqueueError(geminiErrors.unregisteredCaller()),
      'not-found': () => enqueueError(geminiErrors.modelNotFound(GEMINI_MODEL)),
      // Google puts the wait in a google.rpc.RetryInfo detail of the body, not in a header.
      'rate-limited': () => enqueueError(geminiErrors.rateLimited('17s', GEMINI_MODEL), 17_000),
      'server-error': () => enqueueError(geminiErrors.internal()),
      unavailable: () => enqueueError(geminiErrors.unavailable()),
    };
    const credentialsAt = (origin: string): ProviderCredentials => ({ baseUrl: origin, apiKey: 'gemini-conformance-key' });
    return {
      credentials: credentialsAt(fake.baseUrl),
      wrongCredentials: { credentials: { baseUrl: fake.baseUrl, apiKey: 'AIzaWrongConformanceKey' }, secret: 'AIzaWrongConformanceKey' },
      credentialsAt,
      answer: (script) => fake.enqueue({ type: 'embeddings', vectors: script.vectors }),
      error: (errorClass) => errors[errorClass](),
      malformed: () => fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json; charset=UTF-8' }, body: '{"embedding": {' }),
      hang: () => fake.enqueue({ type: 'hang' }),
      sent: () =>
        fake.requests.flatMap((request): SentInput[] => {
          const body = fields(request.body);
          const requests = request.path.endsWith(':batchEmbedContents') ? (body.requests as unknown[]) : request.path.endsWith(':embedContent') ? [body] : [];
          return requests.map((one) => {
            const { content, outputDimensionality } = fields(one);
            const parts = fields(content).parts as { text: string }[];
            return { input: parts.map((part) => part.text).join(''), dimensions: dimensionsOf(outputDimensionality) };
          });
        }),
      reset: () => fake.reset(),
      close: () => fake.close(),
    };
  },
};

const TITAN = 'amazon.titan-embed-text-v2:0';

const bedrockCredentials = (baseUrl: string, secretAccessKey = FAKE_AWS_CREDENTIALS.secretAccessKey): ProviderCredentials => ({
  baseUrl,
  apiKey: FAKE_AWS_CREDENTIALS.accessKeyId,
  options: { region: 'us-east-1', secretAccessKey },
});

export const bedrockTarget: EmbeddingConformanceTarget = {
  name: 'Amazon Bedrock InvokeModel (Titan Text Embeddings v2)',
  preset: preset('bedrock'),
  modelId: TITAN,
  vectorModel: TITAN,
  shortDimensions: 256,
  tokenArrays: false,
  reportsUsage: true,
  // A signature made with the wrong secret: 403 InvalidSignatureException.
  refusedCredentials: { status: 403 },
  async start() {
    const fake = await startFakeBedrock();
    const errors: Record<ErrorClass, () => ReturnType<typeof bedrockErrors.throttling>> = {
      'invalid-request': () => bedrockErrors.validation('Malformed input request: #/inputText: expected maxLength: 50000, actual: 50001, please reformat your input and try again.'),
      forbidden: () => bedrockErrors.accessDenied(),
      'not-found': () => bedrockErrors.resourceNotFound(),
      'rate-limited': () => bedrockErrors.throttling(),
      'server-error': () => bedrockErrors.internal(),
      unavailable: () => bedrockErrors.serviceUnavailable(),
    };
    const wrongSecret = 'wrongConformanceSecretKey0000000000000000';
    return {
      credentials: bedrockCredentials(fake.baseUrl),
      wrongCredentials: { credentials: bedrockCredentials(fake.baseUrl, wrongSecret), secret: wrongSecret },
      credentialsAt: (origin) => bedrockCredentials(origin),
      // One call per input, arriving in any order: each is answered by its text.
      answer(script) {
        fake.setHandler((request) => {
          const index = script.inputs.indexOf(String(fields(request.body).inputText));
          const vector = script.vectors[index];
          return vector === undefined ? undefined : { type: 'embeddings', vector, inputTextTokenCount: script.promptTokens[index] ?? 0 };
        });
      },
      error(errorClass) {
        const behaviour = errors[errorClass]();
        fake.enqueue(behaviour);
        // Bedrock's ThrottlingException carries no wait, in its body or its headers.
        return { status: behaviour.status, retryAfterMs: undefined };
      },
      malformed: () => fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"embedding":' }),
      hang: () => fake.enqueue({ type: 'hang' }),
      sent: () => fake.invokeRequests().map((request) => ({ input: String(fields(request.body).inputText), dimensions: dimensionsOf(fields(request.body).dimensions) })),
      reset: () => fake.reset(),
      close: () => fake.close(),
    };
  },
};
