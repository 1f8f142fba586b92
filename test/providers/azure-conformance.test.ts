import { azureErrors, startFakeAzureOpenAI } from '../support/fake-azure-openai.js';
import type { FakeHttpError } from '../support/fake-openai.js';
import { openAIFamilyTarget, openAIRoleChunk } from './openai-family-target.js';
import { describeProviderConformance } from './provider-conformance.js';

const azureError = (status: number, code: string, message: string): FakeHttpError => ({ type: 'error', status, body: { error: { code, message } } });

/** Azure opens every stream with the prompt's filter verdicts, a chunk without choices. */
const promptFilterChunk = JSON.stringify({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] });

describeProviderConformance(
  openAIFamilyTarget({
    name: 'Azure OpenAI',
    preset: { name: 'azure', label: 'Azure OpenAI', wireFormat: 'azure', envPrefix: 'AZURE_OPENAI', defaultBaseUrl: 'https://<resource>.openai.azure.com', requiresKey: true },
    // Azure calls by deployment name, not by model.
    modelId: 'conformance-4o-mini',
    async startFake() {
      const fake = await startFakeAzureOpenAI({ apiKey: 'azure-conformance', deployments: { 'conformance-4o-mini': 'gpt-4o-mini' } });
      return {
        fake,
        credentials: { baseUrl: fake.endpoint, apiKey: 'azure-conformance' },
        wrongCredentials: { credentials: { baseUrl: fake.endpoint, apiKey: 'azure-wrong-key' }, secret: 'azure-wrong-key' },
        credentialsAt: (origin) => ({ baseUrl: origin, apiKey: 'azure-conformance' }),
      };
    },
    errors: {
      'invalid-request': () => ({ behaviour: azureErrors.unrecognizedArgument('reasoning_effort') }),
      forbidden: () => ({ behaviour: azureError(403, 'PermissionDenied', 'Principal does not have access to API/Operation.') }),
      'not-found': () => ({ behaviour: azureErrors.deploymentNotFound() }),
      // Azure sends the wait in retry-after-ms and, rounded up, in retry-after: the exact one counts.
      'rate-limited': () => ({ behaviour: azureErrors.rateLimited(5_400), retryAfterMs: 5_400 }),
      'server-error': () => ({ behaviour: azureErrors.serverError() }),
      unavailable: () => ({ behaviour: azureError(503, 'ServiceUnavailable', 'The service is temporarily unable to process your request. Please try again later.') }),
    },
    eventsBeforeText: [promptFilterChunk, openAIRoleChunk()],
    refusedCredentials: { status: 401 },
  }),
);
