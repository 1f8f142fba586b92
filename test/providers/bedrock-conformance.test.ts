import { FAKE_AWS_CREDENTIALS, bedrockErrors, converseStreamMessages, startFakeBedrock, type FakeBedrockAnswer, type FakeBedrockError, type FakeStopReason } from '../support/fake-bedrock.js';
import type { ProviderCredentials, ScriptedAnswer, ScriptedError } from './conformance-target.js';
import { describeProviderConformance } from './provider-conformance.js';

/** messageStart comes before the first text delta. */
const EVENTS_BEFORE_TEXT = 1;

function toFakeAnswer(script: ScriptedAnswer): FakeBedrockAnswer {
  const { usage } = script;
  const cached = usage.cachedPromptTokens;
  return {
    type: 'answer',
    text: script.text.length === 0 ? null : script.text.join(''),
    ...(script.text.length > 0 ? { textPieces: script.text } : {}),
    ...(script.toolCalls !== undefined ? { toolUses: script.toolCalls.map((call) => ({ id: call.id, name: call.name, input: call.args })), inputPieceLength: 3 } : {}),
    ...(script.finishReason !== undefined ? { stopReason: script.finishReason as FakeStopReason } : {}),
    // Converse counts cache reads apart from inputTokens.
    usage: { inputTokens: usage.promptTokens - (cached ?? 0), outputTokens: usage.completionTokens, ...(cached !== undefined ? { cacheReadInputTokens: cached } : {}) },
  };
}

const credentialsFor = (baseUrl: string, secretAccessKey = FAKE_AWS_CREDENTIALS.secretAccessKey): ProviderCredentials => ({
  baseUrl,
  apiKey: FAKE_AWS_CREDENTIALS.accessKeyId,
  options: { region: 'us-east-1', secretAccessKey },
});

describeProviderConformance({
  name: 'Amazon Bedrock Converse',
  preset: { name: 'bedrock', label: 'Amazon Bedrock', wireFormat: 'bedrock', envPrefix: 'BEDROCK', defaultBaseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com', requiresKey: true },
  modelId: 'anthropic.claude-3-5-haiku-20241022-v1:0',
  finishReasons: [
    { wire: 'end_turn', expected: 'stop' },
    { wire: 'stop_sequence', expected: 'stop' },
    { wire: 'max_tokens', expected: 'length' },
    { wire: 'model_context_window_exceeded', expected: 'length' },
    { wire: 'tool_use', expected: 'tool_calls', withToolCall: true },
    { wire: 'guardrail_intervened', expected: 'content_filter' },
    { wire: 'content_filtered', expected: 'content_filter' },
  ],
  inexpressibleFinishReasons: ['function_call'],
  // A signature made with the wrong secret: 403 InvalidSignatureException.
  refusedCredentials: { status: 403 },
  toolArgumentsStreamed: 'pieces',
  async start() {
    const fake = await startFakeBedrock();
    const enqueueError = (behaviour: FakeBedrockError): ScriptedError => {
      fake.enqueue(behaviour);
      // Bedrock's ThrottlingException carries no wait, in its body or its headers.
      return { status: behaviour.status, retryAfterMs: undefined };
    };
    return {
      credentials: credentialsFor(fake.baseUrl),
      wrongCredentials: { credentials: credentialsFor(fake.baseUrl, 'wrongConformanceSecretKey0000000000000000'), secret: 'wrongConformanceSecretKey0000000000000000' },
      credentialsAt: (origin) => credentialsFor(origin),
      answer(script) {
        const answer = toFakeAnswer(script);
        const cut = script.cut;
        if (cut === undefined) return fake.enqueue(answer);
        const events = EVENTS_BEFORE_TEXT + cut.afterTextPieces;
        if (cut.how === 'reset') return fake.enqueue({ ...answer, transport: { resetAfterEvents: events } });
        if (cut.how === 'stall') return fake.enqueue({ ...answer, transport: { hangAfterEvents: events } });
        fake.enqueue({ type: 'raw', body: Buffer.concat(converseStreamMessages(answer).slice(0, events)) });
      },
      error(errorClass): ScriptedError {
        switch (errorClass) {
          case 'invalid-request':
            return enqueueError(bedrockErrors.validation('Malformed input request: #/messages: expected minimum item count: 1'));
          case 'forbidden':
            return enqueueError(bedrockErrors.accessDenied());
          case 'not-found':
            return enqueueError(bedrockErrors.resourceNotFound());
          case 'rate-limited':
            return enqueueError(bedrockErrors.throttling());
          case 'server-error':
            return enqueueError(bedrockErrors.internal());
          case 'unavailable':
            return enqueueError(bedrockErrors.serviceUnavailable());
        }
      },
      failMidStream(text, afterTextPieces) {
        const answer = toFakeAnswer({ text, usage: { promptTokens: 1, completionTokens: 1 } });
        const unavailable = bedrockErrors.serviceUnavailable();
        // ConverseStream's exceptions are the HTTP errors' names in lower camel case, and have their status.
        const exceptionType = unavailable.errorType.charAt(0).toLowerCase() + unavailable.errorType.slice(1);
        fake.enqueue({ ...answer, exception: { exceptionType, message: unavailable.message, afterEvents: EVENTS_BEFORE_TEXT + afterTextPieces } });
        return { status: unavailable.status };
      },
      malformed(stream) {
        if (!stream) return fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"output":' });
        // A well-framed event stream whose first message fails its CRC.
        const corrupt = Buffer.concat(converseStreamMessages({ type: 'answer', text: 'Hello world' }));
        corrupt[30] = (corrupt[30] ?? 0) ^ 0x55;
        fake.enqueue({ type: 'raw', body: corrupt });
      },
      hang: () => fake.enqueue({ type: 'hang' }),
      reset: () => fake.reset(),
      close: () => fake.close(),
    };
  },
});
