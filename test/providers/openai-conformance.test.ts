import { openAIErrors, startFakeOpenAI, type FakeHttpError } from '../support/fake-openai.js';
import { openAIFamilyTarget, openAIRoleChunk } from './openai-family-target.js';
import { describeProviderConformance } from './provider-conformance.js';

/** OpenAI answers 403 to a request from a country it does not serve. */
const forbidden: FakeHttpError = {
  type: 'error',
  status: 403,
  body: { error: { code: 'unsupported_country_region_territory', message: 'Country, region, or territory not supported', param: null, type: 'request_forbidden' } },
};

describeProviderConformance(
  openAIFamilyTarget({
    name: 'OpenAI',
    preset: { name: 'openai', label: 'OpenAI', wireFormat: 'openai', envPrefix: 'OPENAI', defaultBaseUrl: 'https://api.openai.com/v1', requiresKey: true },
    modelId: 'gpt-4o-mini',
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
      'invalid-request': () => ({ behaviour: openAIErrors.badRequest() }),
      forbidden: () => ({ behaviour: forbidden }),
      'not-found': () => ({ behaviour: openAIErrors.modelNotFound() }),
      'rate-limited': () => ({ behaviour: openAIErrors.rateLimited(17), retryAfterMs: 17_000 }),
      'server-error': () => ({ behaviour: openAIErrors.serverError() }),
      unavailable: () => ({ behaviour: openAIErrors.overloaded() }),
    },
    eventsBeforeText: [openAIRoleChunk()],
    refusedCredentials: { status: 401 },
  }),
);
