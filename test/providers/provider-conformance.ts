import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Agent } from 'undici';
import { UpstreamError, type ChatModel, type ChatRequest, type FinishReason, type StreamPart, type UpstreamErrorKind } from '../../src/providers/contract.js';
import { createChatModelFor, type ModelFactoryOptions } from '../../src/providers/model-factory.js';
import { unusedPort } from '../support/fake-openai.js';
import type { ConformanceTarget, ErrorClass, ProviderCredentials, RunningFake, ScriptedAnswer, ScriptedUsage } from './conformance-target.js';

/**
 * One suite for every wire format, as kysely runs one suite per dialect: each
 * `<format>-conformance.test.ts` calls `describeProviderConformance` with its
 * target, and the model under test is built by the public factory, as the
 * gateway builds it. Every expected value is what the test scripted into the fake.
 */

type Timeouts = ModelFactoryOptions['http']['timeouts'];

const PATIENT: Timeouts = { connectMs: 1_000, firstByteMs: 5_000, idleMs: 5_000, totalMs: 20_000 };
/** Short enough that a hung upstream fails fast, long enough for a loaded machine to answer in time. */
const IMPATIENT: Timeouts = { connectMs: 1_000, firstByteMs: 300, idleMs: 300, totalMs: 10_000 };

const ALL_FINISH_REASONS: readonly FinishReason[] = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'];

const weatherTool = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
} as const;
const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello' }] };
const withTools: ChatRequest = { ...hello, tools: [weatherTool] };

const signal = (): AbortSignal => new AbortController().signal;

async function collect(stream: AsyncIterable<StreamPart>, seen: StreamPart[] = []): Promise<StreamPart[]> {
  for await (const part of stream) seen.push(part);
  return seen;
}

const textOf = (parts: readonly StreamPart[]): string => parts.map((part) => (part.type === 'text-delta' ? part.text : '')).join('');
const partsOf = <T extends StreamPart['type']>(parts: readonly StreamPart[], type: T) =>
  parts.filter((part): part is Extract<StreamPart, { type: T }> => part.type === type);

/** The contract's Usage for what was scripted. */
function usageOf(scripted: ScriptedUsage): Record<string, unknown> {
  return {
    promptTokens: scripted.promptTokens,
    completionTokens: scripted.completionTokens,
    ...(scripted.cachedPromptTokens !== undefined ? { cachedPromptTokens: scripted.cachedPromptTokens } : {}),
    estimated: false,
  };
}

interface StreamedCall {
  id: string | undefined;
  name: string | undefined;
  deltas: string[];
}

/** Tool calls put back together from their deltas, by index; an id or a name is given once. */
function streamedCalls(parts: readonly StreamPart[]): StreamedCall[] {
  const calls: StreamedCall[] = [];
  for (const part of partsOf(parts, 'tool-call-delta')) {
    const call = (calls[part.index] ??= { id: undefined, name: undefined, deltas: [] });
    if (part.id !== undefined) {
      assert.equal(call.id, undefined, `call ${part.index}: its id is sent once`);
      call.id = part.id;
    }
    if (part.name !== undefined) {
      assert.ok(call.name === undefined || call.name === part.name, `call ${part.index}: one name`);
      call.name = part.name;
    }
    if (part.argumentsDelta !== '') call.deltas.push(part.argumentsDelta);
  }
  return calls;
}

interface ExpectedError {
  readonly provider: string;
  readonly kind: UpstreamErrorKind;
  readonly statusCode?: number | undefined;
  readonly isRetryable: boolean;
  readonly retryAfterMs?: number | undefined;
  /** A secret the message must not repeat. */
  readonly secret?: string;
}

function upstreamError(expected: ExpectedError) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof UpstreamError, `expected an UpstreamError, got ${String(error)}`);
    assert.equal(error.provider, expected.provider);
    assert.equal(error.kind, expected.kind, error.message);
    assert.equal(error.statusCode, expected.statusCode, error.message);
    assert.equal(error.isRetryable, expected.isRetryable, error.message);
    if ('retryAfterMs' in expected) assert.equal(error.retryAfterMs, expected.retryAfterMs);
    if (expected.secret !== undefined) assert.ok(!error.message.includes(expected.secret), `the message repeats the secret: ${error.message}`);
    return true;
  };
}

/** Iterates a stream to its end or its failure; the parts delivered before a failure stay in `seen`. */
async function drain(model: ChatModel, request: ChatRequest, seen: StreamPart[]): Promise<void> {
  await collect(await model.stream(request, { signal: signal() }), seen);
}

/** Whether a class is the request's fault (no other model will do better) or the upstream's. */
const RETRYABLE: Readonly<Record<ErrorClass, boolean>> = {
  'invalid-request': false,
  forbidden: true,
  'not-found': true,
  'rate-limited': true,
  'server-error': true,
  unavailable: true,
};

export function describeProviderConformance(target: ConformanceTarget): void {
  describe(`provider conformance: ${target.name} (${target.preset.wireFormat} wire format)`, () => {
    let fake: RunningFake;
    let patient: Agent;
    let impatient: Agent;
    let model: ChatModel;
    let impatientModel: ChatModel;
    const provider = target.preset.name;

    const build = (credentials: ProviderCredentials, dispatcher: Agent, timeouts: Timeouts): ChatModel => {
      const built = createChatModelFor(target.preset, credentials, target.modelId, { http: { dispatcher, timeouts }, defaultMaxTokens: 1_024 });
      assert.ok(built !== undefined, 'the factory builds a model for these credentials');
      return built;
    };
    // The suite reaches providers only through the contract and the factory; an undici Agent with the
    // same deadlines stands in for the transport's pooled dispatcher, which the factory takes as it is.
    const agent = (timeouts: Timeouts) =>
      new Agent({ connect: { timeout: timeouts.connectMs }, headersTimeout: timeouts.firstByteMs, bodyTimeout: timeouts.idleMs });

    before(async () => {
      fake = await target.start();
      patient = agent(PATIENT);
      impatient = agent(IMPATIENT);
      model = build(fake.credentials, patient, PATIENT);
      impatientModel = build(fake.credentials, impatient, IMPATIENT);
    });
    after(async () => {
      await patient.close();
      await impatient.close();
      await fake.close();
    });
    beforeEach(() => fake.reset());

    describe('answers', () => {
      const answer: ScriptedAnswer = { text: ['Grüße', ' aus', ' Zürich', ' — 東京 🎉'], usage: { promptTokens: 21, completionTokens: 9 } };

      it('generate(): the text and the usage scripted, finish "stop"', async () => {
        fake.answer(answer);
        const result = await model.generate(hello, { signal: signal() });
        assert.equal(result.message.content, answer.text.join(''));
        assert.equal((result.message.toolCalls ?? []).length, 0);
        assert.equal(result.finishReason, 'stop');
        assert.deepEqual(result.usage, usageOf(answer.usage));
      });

      it('stream(): the text deltas join to the text, then exactly one finish and one usage part', async () => {
        fake.answer(answer);
        const parts = await collect(await model.stream(hello, { signal: signal() }));
        assert.equal(textOf(parts), answer.text.join(''));
        assert.deepEqual(partsOf(parts, 'finish'), [{ type: 'finish', finishReason: 'stop' }]);
        assert.deepEqual(partsOf(parts, 'usage'), [{ type: 'usage', usage: usageOf(answer.usage) }]);
        const finishAt = parts.findIndex((part) => part.type === 'finish');
        assert.ok(parts.slice(finishAt).every((part) => part.type === 'finish' || part.type === 'usage'), 'nothing but usage after the finish');
        assert.equal(partsOf(parts, 'tool-call-delta').length, 0);
      });

      it('usage with cached prompt tokens, complete and streamed', async () => {
        const cached: ScriptedAnswer = { text: ['Cached.'], usage: { promptTokens: 2_048, completionTokens: 12, cachedPromptTokens: 1_536 } };
        fake.answer(cached);
        fake.answer(cached);
        assert.deepEqual((await model.generate(hello, { signal: signal() })).usage, usageOf(cached.usage));
        const parts = await collect(await model.stream(hello, { signal: signal() }));
        assert.deepEqual(partsOf(parts, 'usage'), [{ type: 'usage', usage: usageOf(cached.usage) }]);
      });

      const toolAnswer: ScriptedAnswer = {
        text: ['Let me', ' check.'],
        toolCalls: [
          { id: 'call_conformance_1', name: 'get_weather', args: { city: 'Zürich, "CH"', days: 3, units: { temperature: 'celsius' } } },
          { id: 'call_conformance_2', name: 'get_time', args: { tz: 'Asia/東京' } },
        ],
        usage: { promptTokens: 40, completionTokens: 31 },
      };

      it('generate(): tool calls with their ids, names and arguments, the text before them kept', async () => {
        fake.answer(toolAnswer);
        const result = await model.generate(withTools, { signal: signal() });
        assert.equal(result.finishReason, 'tool_calls');
        assert.equal(result.message.content, toolAnswer.text.join(''));
        const calls = result.message.toolCalls ?? [];
        assert.deepEqual(
          calls.map((call) => ({ id: call.id, type: call.type, name: call.function.name, args: JSON.parse(call.function.arguments) as unknown })),
          (toolAnswer.toolCalls ?? []).map((call) => ({ id: call.id, type: 'function', name: call.name, args: call.args })),
        );
        assert.deepEqual(result.usage, usageOf(toolAnswer.usage));
      });

      it(`stream(): tool calls by index, each id and name once, argument deltas joining to the arguments (${target.toolArgumentsStreamed})`, async () => {
        fake.answer(toolAnswer);
        const parts = await collect(await model.stream(withTools, { signal: signal() }));
        assert.equal(textOf(parts), toolAnswer.text.join(''));
        const calls = streamedCalls(parts);
        assert.deepEqual(
          calls.map((call) => ({ id: call.id, name: call.name, args: JSON.parse(call.deltas.join('')) as unknown })),
          (toolAnswer.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: call.args })),
        );
        const lastText = parts.findLastIndex((part) => part.type === 'text-delta');
        assert.ok(lastText < parts.findIndex((part) => part.type === 'tool-call-delta'), 'the text comes before the calls');
        const longest = calls.reduce((most, call) => Math.max(most, call.deltas.length), 0);
        if (target.toolArgumentsStreamed === 'whole') assert.equal(longest, 1, 'each call in one delta');
        else assert.ok(longest > 1, 'arguments arrive in several deltas');
        assert.deepEqual(partsOf(parts, 'finish'), [{ type: 'finish', finishReason: 'tool_calls' }]);
        assert.deepEqual(partsOf(parts, 'usage'), [{ type: 'usage', usage: usageOf(toolAnswer.usage) }]);
      });

      it('an answer that only calls a tool: content null, no text delta', async () => {
        const toolOnly: ScriptedAnswer = { text: [], toolCalls: [{ id: 'call_only', name: 'get_weather', args: { city: 'Lima' } }], usage: { promptTokens: 30, completionTokens: 8 } };
        fake.answer(toolOnly);
        fake.answer(toolOnly);
        const result = await model.generate(withTools, { signal: signal() });
        assert.equal(result.message.content, null);
        assert.deepEqual(result.message.toolCalls?.map((call) => call.id), ['call_only']);
        const parts = await collect(await model.stream(withTools, { signal: signal() }));
        assert.deepEqual(partsOf(parts, 'text-delta'), []);
        assert.deepEqual(streamedCalls(parts).map((call) => call.id), ['call_only']);
      });

      it('an answer with no content at all: content null, no text delta, one finish', async () => {
        const empty: ScriptedAnswer = { text: [], usage: { promptTokens: 6, completionTokens: 0 } };
        fake.answer(empty);
        fake.answer(empty);
        const result = await model.generate(hello, { signal: signal() });
        assert.deepEqual({ content: result.message.content, finishReason: result.finishReason }, { content: null, finishReason: 'stop' });
        const parts = await collect(await model.stream(hello, { signal: signal() }));
        assert.deepEqual(partsOf(parts, 'text-delta'), []);
        assert.deepEqual(partsOf(parts, 'finish'), [{ type: 'finish', finishReason: 'stop' }]);
      });
    });

    describe('finish reasons', () => {
      for (const { wire, expected, withToolCall } of target.finishReasons) {
        it(`"${wire}"${withToolCall ? ' with a tool call' : ''} means "${expected}", complete and streamed`, async () => {
          const script: ScriptedAnswer = {
            text: ['Partial', ' answer'],
            finishReason: wire,
            usage: { promptTokens: 5, completionTokens: 2 },
            ...(withToolCall ? { toolCalls: [{ id: 'call_finish', name: 'get_weather', args: { city: 'Oslo' } }] } : {}),
          };
          fake.answer(script);
          fake.answer(script);
          assert.equal((await model.generate(withTools, { signal: signal() })).finishReason, expected);
          const parts = await collect(await model.stream(withTools, { signal: signal() }));
          assert.deepEqual(partsOf(parts, 'finish'), [{ type: 'finish', finishReason: expected }]);
          assert.equal(textOf(parts), script.text.join(''), 'the text streamed before the finish is delivered');
        });
      }

      it('every neutral finish reason is covered, or declared inexpressible', () => {
        const covered = new Set<FinishReason>([...target.finishReasons.map((entry) => entry.expected), ...target.inexpressibleFinishReasons]);
        assert.deepEqual([...covered].sort(), [...ALL_FINISH_REASONS].sort());
      });
    });

    describe('upstream errors', () => {
      const classes = Object.keys(RETRYABLE) as ErrorClass[];
      for (const errorClass of classes) {
        it(`${errorClass}: an UpstreamError with the status scripted, ${RETRYABLE[errorClass] ? '' : 'not '}retryable, complete and streamed`, async () => {
          const first = fake.error(errorClass);
          const second = fake.error(errorClass);
          const expected = (scripted: typeof first): ExpectedError => ({
            provider,
            kind: 'http',
            statusCode: scripted.status,
            isRetryable: RETRYABLE[errorClass],
            retryAfterMs: scripted.retryAfterMs,
          });
          await assert.rejects(model.generate(hello, { signal: signal() }), upstreamError(expected(first)));
          // A failure before the first byte fails stream() itself, so routing can still fall back.
          await assert.rejects(model.stream(hello, { signal: signal() }), upstreamError(expected(second)));
        });
      }

      const refused = target.refusedCredentials;
      it(
        'credentials the upstream refuses: retryable elsewhere, the secret not repeated',
        'skip' in refused ? { skip: refused.skip } : {},
        async () => {
          if ('skip' in refused || fake.wrongCredentials === undefined) return assert.fail('the target gives no wrong credentials');
          const wrong = build(fake.wrongCredentials.credentials, patient, PATIENT);
          const expected: ExpectedError = { provider, kind: 'http', statusCode: refused.status, isRetryable: true, secret: fake.wrongCredentials.secret };
          await assert.rejects(wrong.generate(hello, { signal: signal() }), upstreamError(expected));
          await assert.rejects(wrong.stream(hello, { signal: signal() }), upstreamError(expected));
        },
      );

      it('no response before the first-byte deadline: a retryable timeout', async () => {
        fake.hang();
        await assert.rejects(impatientModel.generate(hello, { signal: signal() }), upstreamError({ provider, kind: 'timeout', isRetryable: true }));
        fake.hang();
        await assert.rejects(impatientModel.stream(hello, { signal: signal() }), upstreamError({ provider, kind: 'timeout', isRetryable: true }));
      });

      it('connection refused: a retryable connection error', async () => {
        const nowhere = build(fake.credentialsAt(`http://127.0.0.1:${await unusedPort()}`), patient, PATIENT);
        await assert.rejects(nowhere.generate(hello, { signal: signal() }), upstreamError({ provider, kind: 'connection', isRetryable: true }));
        await assert.rejects(nowhere.stream(hello, { signal: signal() }), upstreamError({ provider, kind: 'connection', isRetryable: true }));
      });

      it('a 200 whose body is not this format: a retryable invalid response, complete and streamed', async () => {
        fake.malformed(false);
        await assert.rejects(model.generate(hello, { signal: signal() }), upstreamError({ provider, kind: 'invalid_response', isRetryable: true }));
        fake.malformed(true);
        await assert.rejects(drain(model, hello, []), upstreamError({ provider, kind: 'invalid_response', isRetryable: true }));
      });

      it('a caller that has already gone: aborted, not retryable', async () => {
        const gone = new AbortController();
        gone.abort();
        await assert.rejects(model.generate(hello, { signal: gone.signal }), upstreamError({ provider, kind: 'aborted', isRetryable: false }));
        await assert.rejects(model.stream(hello, { signal: gone.signal }), upstreamError({ provider, kind: 'aborted', isRetryable: false }));
      });
    });

    describe('streams cut short', () => {
      const text = ['alpha', ' beta', ' gamma', ' delta'];
      const delivered = 2;
      const cases: { how: 'reset' | 'stall' | 'end'; title: string; kind: UpstreamErrorKind; impatient: boolean }[] = [
        { how: 'reset', title: 'the connection dropped mid-way (TCP reset)', kind: 'connection', impatient: false },
        { how: 'stall', title: 'the upstream falls silent mid-way', kind: 'timeout', impatient: true },
        { how: 'end', title: 'the body ends cleanly before its finish', kind: 'invalid_response', impatient: false },
      ];
      for (const { how, title, kind, impatient: short } of cases) {
        it(`${title}: the parts already delivered, then a retryable ${kind} error, never a finish`, async () => {
          fake.answer({ text, usage: { promptTokens: 5, completionTokens: 4 }, cut: { afterTextPieces: delivered, how } });
          const seen: StreamPart[] = [];
          await assert.rejects(drain(short ? impatientModel : model, hello, seen), upstreamError({ provider, kind, isRetryable: true }));
          assert.equal(textOf(seen), text.slice(0, delivered).join(''));
          assert.deepEqual(partsOf(seen, 'finish'), []);
        });
      }

      it("the upstream's own error event mid-way: the parts already delivered, then a retryable http error", async () => {
        const { status } = fake.failMidStream(text, delivered);
        const seen: StreamPart[] = [];
        await assert.rejects(drain(model, hello, seen), upstreamError({ provider, kind: 'http', statusCode: status, isRetryable: true }));
        assert.equal(textOf(seen), text.slice(0, delivered).join(''));
        assert.deepEqual(partsOf(seen, 'finish'), []);
      });

      it('a caller that leaves mid-stream: the next read fails as aborted', async () => {
        fake.answer({ text, usage: { promptTokens: 5, completionTokens: 4 }, cut: { afterTextPieces: delivered, how: 'stall' } });
        const controller = new AbortController();
        const iterator = (await model.stream(hello, { signal: controller.signal }))[Symbol.asyncIterator]();
        assert.deepEqual((await iterator.next()).value, { type: 'text-delta', text: text[0] });
        assert.deepEqual((await iterator.next()).value, { type: 'text-delta', text: text[1] });
        const next = iterator.next();
        controller.abort();
        await assert.rejects(next, upstreamError({ provider, kind: 'aborted', isRetryable: false }));
      });
    });
  });
}
