import { openAIErrors, startFakeOpenAI, type FakeHttpError } from '../support/fake-openai.js';
import { openAIFamilyTarget, openAIRoleChunk } from './openai-family-target.js';
import { describeProviderConformance } from './provider-conformance.js';

/**
 * The OpenAI-compatible family (Groq, Together, vLLM, Ollama…) shares OpenAI's
 * wire format; what sets it apart is a base URL of its own and, for local
 * servers, no key at all. Run here as a keyless local server, as Ollama is.
 */

/** Ollama's answer for a model that was never pulled. */
const modelNotPulled: FakeHttpError = {
  type: 'error',
  status: 404,
  body: { error: { message: 'model "llama3.2" not found, try pulling it first', type: 'api_error', param: null, code: null } },
};

describeProviderConformance(
  openAIFamilyTarget({
    name: 'OpenAI-compatible local server (no key)',
    preset: { name: 'ollama', label: 'Ollama (local)', wireFormat: 'openai', envPrefix: 'OLLAMA', defaultBaseUrl: 'http://127.0.0.1:11434/v1', requiresKey: false },
    modelId: 'llama3.2',
    async startFake() {
      const fake = await startFakeOpenAI({ apiKey: null });
      return {
        fake,
        credentials: { baseUrl: fake.baseUrl },
        wrongCredentials: undefined,
        credentialsAt: (origin) => ({ baseUrl: `${origin}/v1` }),
      };
    },
    errors: {
      'invalid-request': () => ({ behaviour: openAIErrors.badRequest() }),
      forbidden: () => ({ behaviour: { type: 'error', status: 403, body: { error: { message: 'Forbidden', type: 'api_error', param: null, code: null } } } }),
      'not-found': () => ({ behaviour: modelNotPulled }),
      'rate-limited': () => ({ behaviour: openAIErrors.rateLimited(3), retryAfterMs: 3_000 }),
      'server-error': () => ({ behaviour: openAIErrors.serverError() }),
      unavailable: () => ({ behaviour: openAIErrors.overloaded() }),
    },
    eventsBeforeText: [openAIRoleChunk()],
    refusedCredentials: { skip: 'a local server takes no key, so it has none to refuse' },
  }),
);
