import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { GatewayError } from '../lib/errors.js';
import type { ClientSignal } from '../lib/client-abort.js';
import { UpstreamError, type ChatModel, type ChatRequest, type ChatResult, type StreamPart } from '../providers/contract.js';
import type { ModelResolver } from '../providers/credentials/registry.js';
import { loadShippedCatalog, type ModelInfo } from '../catalog/catalog.js';
import { RoutingFailure, callWithFallback, type Attempt, type FallbackOptions } from './fallback.js';
import { createModelHealth } from './health/model-health.js';

const catalog = loadShippedCatalog();
const info = (id: string): ModelInfo => catalog.get(id) ?? assert.fail(`missing ${id}`);

/** Five real catalog models over four providers (two share OpenAI, for provider back-offs). */
const POOL = ['openai:gpt-4o-mini', 'openai:gpt-4o', 'anthropic:claude-3-5-haiku-latest', 'gemini:gemini-2.0-flash', 'sim:small'] as const;
type PoolId = (typeof POOL)[number];

/** What a model double does when called. */
type Behaviour = 'ok' | 'server-error' | 'rate-limited' | 'timeout' | 'bad-request';
const RETRYABLE: readonly Behaviour[] = ['server-error', 'rate-limited', 'timeout'];

const REQUEST: ChatRequest = { messages: [{ role: 'user', content: 'Hi' }] };

/** A clock the test moves by hand. */
function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

function failure(provider: string, behaviour: Exclude<Behaviour, 'ok'>): UpstreamError {
  switch (behaviour) {
    case 'server-error':
      return new UpstreamError({ provider, kind: 'http', statusCode: 500, isRetryable: true, message: `${provider} answered HTTP 500` });
    case 'rate-limited':
      return new UpstreamError({ provider, kind: 'http', statusCode: 429, isRetryable: true, retryAfterMs: 30_000, message: `${provider} rate-limited the gateway's account (HTTP 429)` });
    case 'timeout':
      return new UpstreamError({ provider, kind: 'timeout', isRetryable: true, message: `${provider} timed out` });
    case 'bad-request':
      return new UpstreamError({ provider, kind: 'http', statusCode: 400, isRetryable: false, message: 'Invalid messages' });
  }
}

interface CallRecord {
  readonly id: string;
  readonly at: number;
}

/** A ChatModel test double: answers or fails as told, taking `durationMs` on the clock, and records every call. */
function modelDouble(id: string, behaviour: Behaviour, durationMs: number, clock: { advance: (ms: number) => number; now: () => number }, calls: CallRecord[]): ChatModel {
  const [provider = '', modelId = ''] = id.split(/:(.*)/s);
  const run = async (): Promise<ChatResult> => {
    calls.push({ id, at: clock.now() });
    clock.advance(durationMs);
    if (behaviour !== 'ok') throw failure(provider, behaviour);
    return { message: { content: `answer from ${id}` }, finishReason: 'stop', usage: { promptTokens: 3, completionTokens: 10, estimated: false } };
  };
  return {
    provider,
    modelId,
    generate: run,
    async stream(): Promise<AsyncIterable<StreamPart>> {
      const result = await run();
      return (async function* parts() {
        yield { type: 'text-delta', text: result.message.content ?? '' } as const;
      })();
    },
  };
}

const scenario = fc.record({
  candidates: fc.array(fc.constantFrom(...POOL), { maxLength: 12 }),
  behaviours: fc.record(Object.fromEntries(POOL.map((id) => [id, fc.constantFrom<Behaviour>('ok', 'server-error', 'rate-limited', 'timeout', 'bad-request')])) as Record<PoolId, fc.Arbitrary<Behaviour>>),
  durations: fc.record(Object.fromEntries(POOL.map((id) => [id, fc.integer({ min: 0, max: 100 })])) as Record<PoolId, fc.Arbitrary<number>>),
  /** Models whose circuit is open before the request. */
  down: fc.subarray([...POOL]),
  /** Models whose provider is not configured. */
  unconfigured: fc.subarray([...POOL], { maxLength: 2 }),
  maxAttempts: fc.integer({ min: 1, max: 5 }),
  /** ms after the start; undefined: no deadline. */
  deadlineMs: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
});

describe('callWithFallback (property)', () => {
  it('calls each model at most once, in candidate order, within the limits, and returns the first success', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const clock = fakeClock();
        const health = createModelHealth({ failureThreshold: 1, cooldownMs: 60_000 }, clock.now);
        for (const id of s.down) health.recordFailure(id, failure(id.split(':')[0] ?? '', 'server-error'), clock.now());
        const calls: CallRecord[] = [];
        const doubles = new Map(POOL.map((id) => [id as string, modelDouble(id, s.behaviours[id], s.durations[id], clock, calls)]));
        const resolve: ModelResolver = (provider, model) => {
          const id = `${provider}:${model}`;
          return (s.unconfigured as readonly string[]).includes(id) ? undefined : doubles.get(id);
        };
        const started = clock.now();
        const deadlineAt = s.deadlineMs === undefined ? undefined : started + s.deadlineMs;
        const options: FallbackOptions<ChatResult> = {
          maxAttempts: s.maxAttempts,
          now: clock.now,
          deadlineAt,
          health: { state: health, now: clock.now },
          measure: (result, elapsedMs) => ({ totalMs: elapsedMs, completionTokens: result.usage?.completionTokens }),
        };

        let result: Awaited<ReturnType<typeof callWithFallback<ChatResult>>> | undefined;
        let thrown: unknown;
        try {
          result = await callWithFallback(s.candidates.map(info), resolve, options, (model, _info, { signal }) => model.generate(REQUEST, { signal }));
        } catch (error) {
          thrown = error;
        }
        const attempts: readonly Attempt[] = result?.attempts ?? (thrown instanceof RoutingFailure ? thrown.attempts : assert.fail(`unexpected ${String(thrown)}`));
        const calledIds = calls.map((call) => call.id);
        const firstOccurrences = [...new Set(s.candidates)];

        // Each model at most once, no more calls than allowed, in the candidates' order.
        assert.equal(new Set(calledIds).size, calledIds.length, `a model was called twice: ${calledIds.join(', ')}`);
        assert.ok(calledIds.length <= s.maxAttempts);
        const positions = calledIds.map((id) => firstOccurrences.indexOf(id as PoolId));
        assert.deepEqual(positions, [...positions].sort((a, b) => a - b), 'calls follow the candidate order');

        // No call to a model that was unavailable or unconfigured, none at or after the deadline.
        for (const call of calls) {
          assert.ok(!(s.down as readonly string[]).includes(call.id), `${call.id} was called with its circuit open`);
          assert.ok(!(s.unconfigured as readonly string[]).includes(call.id));
          if (deadlineAt !== undefined) assert.ok(call.at < deadlineAt, 'no call starts after the deadline');
        }
        // A provider that asked to back off is not called again in the same request.
        calls.forEach((call, index) => {
          const provider = call.id.split(':')[0];
          const limitedBefore = calls.slice(0, index).some((earlier) => earlier.id.split(':')[0] === provider && s.behaviours[earlier.id as PoolId] === 'rate-limited');
          assert.ok(!limitedBefore, `${call.id} called while its provider was backing off`);
        });

        // Every candidate appears in the attempts at most once, in candidate order; the called ones as ok/failed.
        const attemptIds = attempts.map((attempt) => attempt.model);
        assert.equal(new Set(attemptIds).size, attemptIds.length, 'a candidate appears twice in the attempts');
        assert.deepEqual(attemptIds, firstOccurrences.slice(0, attemptIds.length), 'attempts follow the candidate order');
        assert.deepEqual(attempts.filter((attempt) => attempt.outcome !== 'skipped').map((attempt) => attempt.model), calledIds);

        // Only retryable failures come before the last call; the last decides the result.
        const last = calledIds.at(-1) as PoolId | undefined;
        for (const id of calledIds.slice(0, -1)) assert.ok(RETRYABLE.includes(s.behaviours[id as PoolId]), `${id} did not stop the search`);
        if (result !== undefined) {
          assert.ok(last !== undefined && s.behaviours[last] === 'ok');
          assert.equal(result.model.id, last);
          assert.equal(result.value.message.content, `answer from ${last}`);
          assert.equal(attempts.at(-1)?.outcome, 'ok');
          assert.equal(attempts.length, attemptIds.indexOf(last) + 1, 'nothing listed after the answer');
        } else if (last !== undefined && s.behaviours[last] === 'bad-request') {
          assert.ok(thrown instanceof GatewayError && thrown.status === 400, 'a non-retryable failure stops at once with its 400');
          assert.equal(attempts.at(-1)?.model, last);
        } else {
          assert.ok(thrown instanceof GatewayError && thrown.status === 503 && thrown.code === 'all_models_unavailable');
          assert.ok(Number(thrown.headers['retry-after']) >= 1);
          assert.deepEqual(attemptIds, firstOccurrences, 'a 503 lists every candidate');
        }

        // Every skip has its reason, and the reason holds.
        let callsSoFar = 0;
        for (const attempt of attempts) {
          if (attempt.outcome !== 'skipped') {
            callsSoFar += 1;
            continue;
          }
          const reason = attempt.reason ?? '';
          if (reason === 'attempt limit reached') assert.equal(callsSoFar, s.maxAttempts);
          else if (reason.startsWith('circuit open')) assert.ok((s.down as readonly string[]).includes(attempt.model));
          else if (reason.includes('asked to back off')) assert.ok(calls.some((call) => call.id.split(':')[0] === attempt.model.split(':')[0] && s.behaviours[call.id as PoolId] === 'rate-limited'));
          else if (reason.includes('not configured')) assert.ok((s.unconfigured as readonly string[]).includes(attempt.model));
          else if (reason === "the request's deadline passed") assert.ok(deadlineAt !== undefined && clock.now() >= deadlineAt);
          else assert.fail(`unexpected skip reason: ${reason}`);
        }

        // Health heard of every call: retryable failures opened circuits (threshold 1).
        for (const id of calledIds) {
          const behaviour = s.behaviours[id as PoolId];
          if (RETRYABLE.includes(behaviour)) assert.equal(health.circuit(id, clock.now()), 'open', `${id} failed retryably`);
          else assert.equal(health.circuit(id, clock.now()), 'closed');
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('callWithFallback', () => {
  const run = (
    candidates: readonly string[],
    models: Readonly<Record<string, ChatModel>>,
    options: Partial<FallbackOptions<ChatResult>> & { readonly now: () => number },
  ) =>
    callWithFallback(
      candidates.map(info),
      (provider, model) => models[`${provider}:${model}`],
      { maxAttempts: 3, ...options },
      (model, _info, { signal }) => model.generate(REQUEST, { signal }),
    );

  const rejection = async (promise: Promise<unknown>): Promise<RoutingFailure> => {
    const error = await promise.then(
      () => assert.fail('expected a routing failure'),
      (failed: unknown) => failed,
    );
    assert.ok(error instanceof RoutingFailure, String(error));
    return error;
  };

  it('never calls a model twice when the candidate list repeats it', async () => {
    const clock = fakeClock();
    const calls: CallRecord[] = [];
    const models = {
      'openai:gpt-4o-mini': modelDouble('openai:gpt-4o-mini', 'server-error', 5, clock, calls),
      'sim:small': modelDouble('sim:small', 'ok', 5, clock, calls),
    };
    const result = await run(['openai:gpt-4o-mini', 'openai:gpt-4o-mini', 'sim:small', 'openai:gpt-4o-mini'], models, { now: clock.now });
    assert.deepEqual(calls.map((call) => call.id), ['openai:gpt-4o-mini', 'sim:small']);
    assert.deepEqual(result.attempts.map(({ model, outcome }) => ({ model, outcome })), [
      { model: 'openai:gpt-4o-mini', outcome: 'failed' },
      { model: 'sim:small', outcome: 'ok' },
    ]);
  });

  it('skips a model whose circuit is open, saying so, and records what happens to the others', async () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 1, cooldownMs: 10_000 }, clock.now);
    health.recordFailure('openai:gpt-4o-mini', failure('openai', 'server-error'), clock.now());
    const calls: CallRecord[] = [];
    const models = {
      'openai:gpt-4o-mini': modelDouble('openai:gpt-4o-mini', 'ok', 5, clock, calls),
      'sim:small': modelDouble('sim:small', 'ok', 40, clock, calls),
    };
    const result = await run(['openai:gpt-4o-mini', 'sim:small'], models, {
      now: clock.now,
      health: { state: health, now: clock.now },
      measure: (answer, elapsedMs) => ({ totalMs: elapsedMs, completionTokens: answer.usage?.completionTokens }),
    });
    assert.deepEqual(calls.map((call) => call.id), ['sim:small']);
    const skipped = result.attempts[0];
    assert.equal(skipped?.outcome, 'skipped');
    assert.match(skipped?.reason ?? '', /^circuit open after repeated failures, until \d{4}-\d\d-\d\dT/);
    assert.equal(health.latency('sim:small')?.tokensPerSecond, 250, '10 tokens in 40 ms');
  });

  it('every model unavailable: 503 at once, Retry-After from the earliest one available again', async () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 1, cooldownMs: 30_000 }, clock.now);
    health.recordFailure('sim:small', failure('sim', 'server-error'), clock.now());
    clock.advance(22_500); // sim:small's circuit re-opens to a probe in 7.5 s
    health.recordFailure('openai:gpt-4o-mini', failure('openai', 'rate-limited'), clock.now()); // openai backs off for 30 s
    const calls: CallRecord[] = [];
    const models = {
      'openai:gpt-4o-mini': modelDouble('openai:gpt-4o-mini', 'ok', 5, clock, calls),
      'openai:gpt-4o': modelDouble('openai:gpt-4o', 'ok', 5, clock, calls),
      'sim:small': modelDouble('sim:small', 'ok', 5, clock, calls),
    };
    const error = await rejection(run(['openai:gpt-4o-mini', 'openai:gpt-4o', 'sim:small'], models, { now: clock.now, health: { state: health, now: clock.now } }));
    assert.equal(calls.length, 0);
    assert.equal(error.status, 503);
    assert.equal(error.code, 'all_models_unavailable');
    assert.equal(error.headers['retry-after'], '8');
    assert.deepEqual(
      error.attempts.map(({ model, outcome, reason }) => ({ model, outcome, reason: reason?.replace(/until .*/, 'until …') })),
      [
        { model: 'openai:gpt-4o-mini', outcome: 'skipped', reason: 'provider "openai" asked to back off until …' },
        { model: 'openai:gpt-4o', outcome: 'skipped', reason: 'provider "openai" asked to back off until …' },
        { model: 'sim:small', outcome: 'skipped', reason: 'circuit open after repeated failures, until …' },
      ],
    );
  });

  it('a 429 with retry-after skips the rest of that provider in the same request', async () => {
    const clock = fakeClock();
    const health = createModelHealth({}, clock.now);
    const calls: CallRecord[] = [];
    const models = {
      'openai:gpt-4o-mini': modelDouble('openai:gpt-4o-mini', 'rate-limited', 5, clock, calls),
      'openai:gpt-4o': modelDouble('openai:gpt-4o', 'ok', 5, clock, calls),
    };
    const error = await rejection(run(['openai:gpt-4o-mini', 'openai:gpt-4o'], models, { now: clock.now, health: { state: health, now: clock.now } }));
    assert.deepEqual(calls.map((call) => call.id), ['openai:gpt-4o-mini']);
    assert.equal(error.attempts[0]?.status, 429);
    assert.match(error.attempts[1]?.reason ?? '', /asked to back off/);
    assert.equal(error.headers['retry-after'], '30');
  });

  it('the deadline aborts a call still running, and the rest are skipped', async () => {
    const hanging: ChatModel = {
      provider: 'openai',
      modelId: 'gpt-4o-mini',
      generate: (_request, { signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(new UpstreamError({ provider: 'openai', kind: 'aborted', isRetryable: false, message: 'aborted' })));
        }),
      stream: () => Promise.reject(new Error('unused')),
    };
    const calls: CallRecord[] = [];
    const clock = { now: () => performance.now(), advance: () => 0 };
    const health = createModelHealth({ failureThreshold: 1 });
    const started = performance.now();
    const error = await rejection(
      run(['openai:gpt-4o-mini', 'sim:small'], { 'openai:gpt-4o-mini': hanging, 'sim:small': modelDouble('sim:small', 'ok', 0, clock, calls) }, {
        now: clock.now,
        deadlineAt: started + 30,
        health: { state: health, now: Date.now },
      }),
    );
    assert.ok(performance.now() - started < 1_000);
    assert.equal(calls.length, 0);
    assert.equal(error.status, 503);
    assert.match(error.message, /deadline passed/);
    assert.deepEqual(error.attempts.map(({ model, outcome, reason }) => ({ model, outcome, reason })), [
      { model: 'openai:gpt-4o-mini', outcome: 'failed', reason: "cut off: the request's deadline passed" },
      { model: 'sim:small', outcome: 'skipped', reason: "the request's deadline passed" },
    ]);
    assert.equal(health.circuit('openai:gpt-4o-mini', Date.now()), 'closed', 'a cut-off call is not held against the model');
  });

  it("after the call resolved, the deadline no longer aborts its signal; the client's still does", async () => {
    const client = new AbortController();
    let kept: ClientSignal | undefined;
    const result = await callWithFallback(
      [info('sim:small')],
      () => ({ provider: 'sim', modelId: 'small', generate: () => Promise.reject(new Error('unused')), stream: () => Promise.reject(new Error('unused')) }),
      { maxAttempts: 1, now: () => performance.now(), deadlineAt: performance.now() + 10, signal: client.signal },
      async (_model, _info, { signal }) => {
        kept = signal;
        return 'first part';
      },
    );
    assert.equal(result.value, 'first part');
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(kept?.aborted, false);
    client.abort();
    assert.equal(kept?.aborted, true);
  });

  it('a client that left: 499, no further model, and a probe slot given back', async () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 1, cooldownMs: 1_000 }, clock.now);
    health.recordFailure('openai:gpt-4o-mini', failure('openai', 'server-error'), clock.now());
    clock.advance(1_000);
    const client = new AbortController();
    const calls: CallRecord[] = [];
    const leaving: ChatModel = {
      provider: 'openai',
      modelId: 'gpt-4o-mini',
      async generate() {
        calls.push({ id: 'openai:gpt-4o-mini', at: clock.now() });
        client.abort();
        throw new UpstreamError({ provider: 'openai', kind: 'aborted', isRetryable: false, message: 'The client went away.' });
      },
      stream: () => Promise.reject(new Error('unused')),
    };
    const error = await rejection(
      run(['openai:gpt-4o-mini', 'sim:small'], { 'openai:gpt-4o-mini': leaving, 'sim:small': modelDouble('sim:small', 'ok', 0, clock, calls) }, {
        now: clock.now,
        signal: client.signal,
        health: { state: health, now: clock.now },
      }),
    );
    assert.equal(error.status, 499);
    assert.deepEqual(calls.map((call) => call.id), ['openai:gpt-4o-mini']);
    assert.equal(health.circuit('openai:gpt-4o-mini', clock.now()), 'half-open');
    assert.deepEqual(health.admit('openai:gpt-4o-mini', clock.now()), { available: true, probe: true });
  });

  it('an error that is not an upstream failure is thrown as is, and the probe slot given back', async () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 1, cooldownMs: 1_000 }, clock.now);
    health.recordFailure('sim:small', failure('sim', 'server-error'), clock.now());
    clock.advance(1_000);
    const broken: ChatModel = {
      provider: 'sim',
      modelId: 'small',
      generate: () => Promise.reject(new TypeError('bug')),
      stream: () => Promise.reject(new TypeError('bug')),
    };
    await assert.rejects(run(['sim:small'], { 'sim:small': broken }, { now: clock.now, health: { state: health, now: clock.now } }), TypeError);
    assert.deepEqual(health.admit('sim:small', clock.now()), { available: true, probe: true });
  });

  it('health is kept under the key the caller chooses', async () => {
    const clock = fakeClock();
    const health = createModelHealth({ failureThreshold: 1 }, clock.now);
    const calls: CallRecord[] = [];
    await rejection(
      run(['sim:small'], { 'sim:small': modelDouble('sim:small', 'server-error', 1, clock, calls) }, {
        now: clock.now,
        health: { state: health, now: clock.now, keyOf: (candidate) => `${candidate.id}|owner:usr_1` },
      }),
    );
    assert.equal(health.circuit('sim:small|owner:usr_1', clock.now()), 'open');
    assert.equal(health.circuit('sim:small', clock.now()), 'closed');
  });
});
