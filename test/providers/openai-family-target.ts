import { openAIErrors, sseBytes, streamEvents, type FakeAnswer, type FakeFinishReason, type FakeHttpError, type FakeOpenAI } from '../support/fake-openai.js';
import type { ConformanceTarget, ErrorClass, FinishReasonCase, ProviderCredentials, RunningFake, ScriptedAnswer } from './conformance-target.js';

/**
 * The part of a conformance target every upstream speaking OpenAI's
 * chat-completions format shares (api.openai.com, Azure OpenAI, the
 * OpenAI-compatible servers): answers are scripted on fake-openai.ts, whatever
 * dialect it speaks; what differs is passed in.
 */

/** finish_reason values of OpenAI's chat-completions enum, each its own neutral reason. */
export const OPENAI_FINISH_REASONS: readonly FinishReasonCase[] = [
  { wire: 'stop', expected: 'stop' },
  { wire: 'length', expected: 'length' },
  { wire: 'tool_calls', expected: 'tool_calls', withToolCall: true },
  { wire: 'content_filter', expected: 'content_filter' },
  { wire: 'function_call', expected: 'function_call' },
];

export interface ScriptedFakeError {
  readonly behaviour: FakeHttpError;
  /** The wait the behaviour's headers carry, in ms. */
  readonly retryAfterMs?: number;
}

export interface OpenAIFamilyFake {
  readonly fake: FakeOpenAI;
  readonly credentials: ProviderCredentials;
  readonly wrongCredentials: RunningFake['wrongCredentials'];
  credentialsAt(origin: string): ProviderCredentials;
}

export interface OpenAIFamilyTarget extends Omit<ConformanceTarget, 'start' | 'finishReasons' | 'inexpressibleFinishReasons' | 'toolArgumentsStreamed'> {
  startFake(): Promise<OpenAIFamilyFake>;
  readonly errors: Readonly<Record<ErrorClass, () => ScriptedFakeError>>;
  /** `data:` events this upstream sends before a stream's first text (the role chunk; Azure's prompt-filter chunk). */
  readonly eventsBeforeText: readonly string[];
}

const STREAMED_REQUEST = { stream: true, stream_options: { include_usage: true } };

function toFakeAnswer(script: ScriptedAnswer): FakeAnswer {
  const { usage } = script;
  return {
    type: 'answer',
    // A tool-only answer has content null on the wire.
    content: script.text.length === 0 ? null : script.text.join(''),
    ...(script.text.length > 0 ? { textPieces: script.text } : {}),
    ...(script.toolCalls !== undefined
      ? { toolCalls: script.toolCalls.map((call) => ({ id: call.id, name: call.name, arguments: JSON.stringify(call.args) })), argumentsPieceLength: 3 }
      : {}),
    ...(script.finishReason !== undefined ? { finishReason: script.finishReason as FakeFinishReason } : {}),
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      ...(usage.cachedPromptTokens !== undefined ? { cached_tokens: usage.cachedPromptTokens } : {}),
    },
  };
}

export function openAIFamilyTarget(family: OpenAIFamilyTarget): ConformanceTarget {
  const { startFake, errors, eventsBeforeText, ...rest } = family;
  return {
    ...rest,
    finishReasons: OPENAI_FINISH_REASONS,
    inexpressibleFinishReasons: [],
    toolArgumentsStreamed: 'pieces',
    async start(): Promise<RunningFake> {
      const started = await startFake();
      const { fake } = started;
      return {
        credentials: started.credentials,
        wrongCredentials: started.wrongCredentials,
        credentialsAt: started.credentialsAt,
        answer(script) {
          const answer = toFakeAnswer(script);
          const cut = script.cut;
          if (cut === undefined) return fake.enqueue(answer);
          // The role chunk (and any dialect prefix) go first; the text pieces follow one event each.
          const events = eventsBeforeText.length + cut.afterTextPieces;
          if (cut.how === 'reset') return fake.enqueue({ ...answer, transport: { resetAfterEvents: events } });
          if (cut.how === 'stall') return fake.enqueue({ ...answer, transport: { hangAfterEvents: events } });
          const text = streamEvents(answer, STREAMED_REQUEST).slice(1, 1 + cut.afterTextPieces);
          fake.enqueue({ type: 'raw', body: sseBytes([...eventsBeforeText, ...text]) });
        },
        error(errorClass) {
          const { behaviour, retryAfterMs } = errors[errorClass]();
          fake.enqueue(behaviour);
          return { status: behaviour.status, retryAfterMs };
        },
        failMidStream(text, afterTextPieces) {
          const events = streamEvents(toFakeAnswer({ text, usage: { promptTokens: 1, completionTokens: 1 } }), STREAMED_REQUEST).slice(1, 1 + afterTextPieces);
          fake.enqueue({ type: 'raw', body: sseBytes([...eventsBeforeText, ...events, JSON.stringify(openAIErrors.serverError().body)]) });
          // The error object in a stream has no HTTP status of its own.
          return { status: undefined };
        },
        malformed(stream) {
          if (stream) fake.enqueue({ type: 'raw', body: 'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","choices": [\n\n' });
          else fake.enqueue({ type: 'raw', headers: { 'content-type': 'application/json' }, body: '{"id":"chatcmpl-1","object":"chat.completion","choices": [' });
        },
        hang: () => fake.enqueue({ type: 'hang' }),
        reset: () => fake.reset(),
        close: () => fake.close(),
      };
    },
  };
}

/** OpenAI's role chunk, as its streams open. */
export function openAIRoleChunk(): string {
  const first = streamEvents({ type: 'answer', content: '' }, STREAMED_REQUEST)[0];
  if (first === undefined) throw new Error('fake-openai streams no role chunk');
  return first;
}
