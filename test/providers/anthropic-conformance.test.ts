import { anthropicErrors, sseBytes, startFakeAnthropic, streamEvents, type FakeAnswer, type FakeBlock, type FakeStopReason } from '../support/fake-anthropic.js';
import type { ScriptedAnswer, ScriptedError } from './conformance-target.js';
import { describeProviderConformance } from './provider-conformance.js';

const MODEL = 'claude-sonnet-4-5';
/** message_start, the text block's content_block_start and the ping after it come before the first text_delta. */
const EVENTS_BEFORE_TEXT = 3;

function toFakeAnswer(script: ScriptedAnswer): FakeAnswer {
  const { usage } = script;
  const cached = usage.cachedPromptTokens ?? 0;
  const content: FakeBlock[] = [
    ...(script.text.length > 0 ? [{ type: 'text', text: script.text.join(''), pieces: script.text } as const] : []),
    ...(script.toolCalls ?? []).map((call): FakeBlock => ({ type: 'tool_use', id: call.id, name: call.name, input: { ...call.args }, pieceLength: 3 })),
  ];
  return {
    type: 'answer',
    content,
    ...(script.finishReason !== undefined ? { stopReason: script.finishReason as FakeStopReason } : {}),
    // Anthropic counts cache reads apart from input_tokens.
    usage: { input_tokens: usage.promptTokens - cached, output_tokens: usage.completionTokens, cache_read_input_tokens: cached },
  };
}

describeProviderConformance({
  name: 'Anthropic Messages',
  preset: { name: 'anthropic', label: 'Anthropic', wireFormat: 'anthropic', envPrefix: 'ANTHROPIC', defaultBaseUrl: 'https://api.anthropic.com', requiresKey: true },
  modelId: MODEL,
  finishReasons: [
    { wire: 'end_turn', expected: 'stop' },
    { wire: 'stop_sequence', expected: 'stop' },
    { wire: 'pause_turn', expected: 'stop' },
    { wire: 'max_tokens', expected: 'length' },
    { wire: 'model_context_window_exceeded', expected: 'length' },
    { wire: 'tool_use', expected: 'tool_calls', withToolCall: true },
    { wire: 'refusal', expected: 'content_filter' },
  ],
  inexpressibleFinishReasons: ['function_call'],
  refusedCredentials: { status: 401 },
  toolArgumentsStreamed: 'pieces',
  async start() {
    const fake = await startFakeAnthropic({ apiKey: 'sk-ant-conformance' });
    const enqueueError = (behaviour: ReturnType<(typeof anthropicErrors)['apiError']>, retryAfterMs?: number): ScriptedError => {
      fake.enqueue(behaviour);
      return { status: behaviour.status, retryAfterMs };
    };
    return {
      credentials: { baseUrl: fake.baseUrl, apiKey: 'sk-ant-conformance' },
      wrongCredentials: { credentials: { baseUrl: fake.baseUrl, apiKey: 'sk-ant-wrong-key' }, secret: 'sk-ant-wrong-key' },
      credentialsAt: (origin) => ({ baseUrl: origin, apiKey: 'sk-ant-conformance' }),
      answer(script) {
        const answer = toFakeAnswer(script);
        const cut = script.cut;
        if (cut === undefined) return fake.enqueue(answer);
        const events = EVENTS_BEFORE_TEXT + cut.afterTextPieces;
        if (cut.how === 'reset') return fake.enqueue({ ...answer, transport: { resetAfterEvents: events } });
        if (cut.how === 'stall') return fake.enqueue({ ...answer, transport: { hangAfterEvents: events } });
        fake.enqueue({ type: 'raw', body: sseBytes(streamEvents(answer, { model: MODEL }).slice(0, events)) });
      },
      error(errorClass): ScriptedError {
        switch (errorClass) {
          case 'invalid-request':
            return enqueueError(anthropicErrors.invalidRequest());
          case 'forbidden':
            return enqueueError(anthropicErrors.permission());
          case 'not-found':
            return enqueueError(anthropicErrors.notFound(MODEL));
          case 'rate-limited':
            return enqueueError(anthropicErrors.rateLimited(17), 17_000);
          case 'server-error':
            return enqueueError(anthropicErrors.apiError());
          case 'unavailable':
            // Anthropic says "overloaded" with a status of its own, 529.
            return enqueueError(anthropicErrors.overloaded());
        }
      },
      failMidStream(text, afterTextPieces) {
        const answer = toFakeAnswer({ text, usage: { promptTokens: 1, completionTokens: 1 } });
        const overloaded = anthropicErrors.overloaded();
        const { type, message } = (overloaded.body as { error: { type: string; message: string } }).error;
        fake.enqueue({ ...answer, streamError: { afterEvents: EVENTS_BEFORE_TEXT + afterTextPieces, type, message } });
        // An `event: error` carries only its type, which names the status the same error has over HTTP.
        return { status: overloaded.status };
      },
      malformed(stream) {
        if (stream) fake.enqueue({ type: 'raw', body: 'event: message_start\ndata: {"type":"message_start","message": [\n\n' });
        else fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"type":"message","content": [' });
      },
      hang: () => fake.enqueue({ type: 'hang' }),
      reset: () => fake.reset(),
      close: () => fake.close(),
    };
  },
});
