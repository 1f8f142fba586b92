import { answerChunks, geminiErrors, sseBytes, startFakeGemini, type FakeGeminiAnswer, type FakeHttpError } from '../support/fake-gemini.js';
import type { ScriptedAnswer, ScriptedError } from './conformance-target.js';
import { describeProviderConformance } from './provider-conformance.js';

const MODEL = 'gemini-2.5-flash';

function toFakeAnswer(script: ScriptedAnswer): FakeGeminiAnswer {
  const { usage } = script;
  return {
    type: 'answer',
    // In a stream each part is a chunk of its own.
    parts: [...script.text.map((text) => ({ text })), ...(script.toolCalls ?? []).map((call) => ({ functionCall: { id: call.id, name: call.name, args: { ...call.args } } }))],
    ...(script.finishReason !== undefined ? { finishReason: script.finishReason } : {}),
    // promptTokenCount includes the cached tokens.
    usage: {
      promptTokenCount: usage.promptTokens,
      candidatesTokenCount: usage.completionTokens,
      ...(usage.cachedPromptTokens !== undefined ? { cachedContentTokenCount: usage.cachedPromptTokens } : {}),
    },
  };
}

const contentFilter = (wire: string) => ({ wire, expected: 'content_filter' as const });

describeProviderConformance({
  name: 'Gemini generateContent',
  preset: { name: 'gemini', label: 'Google Gemini', wireFormat: 'gemini', envPrefix: 'GEMINI', defaultBaseUrl: 'https://generativelanguage.googleapis.com', requiresKey: true },
  modelId: MODEL,
  finishReasons: [
    { wire: 'STOP', expected: 'stop' },
    // Gemini has no finish reason of its own for tool calls: STOP with a functionCall says it.
    { wire: 'STOP', expected: 'tool_calls', withToolCall: true },
    { wire: 'MAX_TOKENS', expected: 'length' },
    ...['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION'].map(contentFilter),
    { wire: 'LANGUAGE', expected: 'stop' },
    { wire: 'OTHER', expected: 'stop' },
    { wire: 'FINISH_REASON_UNSPECIFIED', expected: 'stop' },
  ],
  inexpressibleFinishReasons: ['function_call'],
  // A wrong API key is 400 INVALID_ARGUMENT (reason API_KEY_INVALID), not 401.
  refusedCredentials: { status: 400 },
  toolArgumentsStreamed: 'whole',
  async start() {
    const fake = await startFakeGemini({ apiKey: 'gemini-conformance-key' });
    const enqueueError = (behaviour: FakeHttpError, retryAfterMs?: number): ScriptedError => {
      fake.enqueue(behaviour);
      return { status: behaviour.status, retryAfterMs };
    };
    return {
      credentials: { baseUrl: fake.baseUrl, apiKey: 'gemini-conformance-key' },
      wrongCredentials: { credentials: { baseUrl: fake.baseUrl, apiKey: 'AIzaWrongConformanceKey' }, secret: 'AIzaWrongConformanceKey' },
      credentialsAt: (origin) => ({ baseUrl: origin, apiKey: 'gemini-conformance-key' }),
      answer(script) {
        const answer = toFakeAnswer(script);
        const cut = script.cut;
        if (cut === undefined) return fake.enqueue(answer);
        // No envelope event: the first chunk already carries the first text.
        const events = cut.afterTextPieces;
        if (cut.how === 'reset') return fake.enqueue({ ...answer, transport: { resetAfterEvents: events } });
        if (cut.how === 'stall') return fake.enqueue({ ...answer, transport: { hangAfterEvents: events } });
        fake.enqueue({ type: 'raw', body: sseBytes(answerChunks(answer, {}, MODEL, true).slice(0, events)) });
      },
      error(errorClass): ScriptedError {
        switch (errorClass) {
          case 'invalid-request':
            return enqueueError(geminiErrors.badRequest());
          case 'forbidden':
            return enqueueError(geminiErrors.unregisteredCaller());
          case 'not-found':
            return enqueueError(geminiErrors.modelNotFound(MODEL));
          case 'rate-limited':
            // Google puts the wait in a google.rpc.RetryInfo detail of the body, not in a header.
            return enqueueError(geminiErrors.rateLimited('17s', MODEL), 17_000);
          case 'server-error':
            return enqueueError(geminiErrors.internal());
          case 'unavailable':
            return enqueueError(geminiErrors.unavailable());
        }
      },
      failMidStream(text, afterTextPieces) {
        const chunks = answerChunks(toFakeAnswer({ text, usage: { promptTokens: 1, completionTokens: 1 } }), {}, MODEL, true).slice(0, afterTextPieces);
        const unavailable = geminiErrors.unavailable();
        fake.enqueue({ type: 'raw', body: sseBytes([...chunks, unavailable.body]) });
        return { status: unavailable.status };
      },
      malformed(stream) {
        if (stream) fake.enqueue({ type: 'raw', body: 'data: {"candidates": [\r\n\r\n' });
        else fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json; charset=UTF-8' }, body: '{"candidates": [' });
      },
      hang: () => fake.enqueue({ type: 'hang' }),
      reset: () => fake.reset(),
      close: () => fake.close(),
    };
  },
});
