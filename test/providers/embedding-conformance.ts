import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Agent } from 'undici';
import { UpstreamError, type EmbeddingModel, type UpstreamErrorKind } from '../../src/providers/contract.js';
import { createEmbeddingModelFor, type ModelFactoryOptions } from '../../src/providers/model-factory.js';
import { fakeEmbedding } from '../support/fake-embedding-vectors.js';
import { unusedPort } from '../support/fake-openai.js';
import type { ErrorClass, ProviderCredentials } from './conformance-target.js';
import type { EmbeddingConformanceTarget, RunningEmbeddingFake, ScriptedEmbeddings, SentInput } from './embedding-conformance-target.js';

/**
 * One embeddings suite for every wire format, as provider-conformance.ts is for chat:
 * each target is run through the public factory (`createEmbeddingModelFor`), as the
 * gateway builds its embedding models, and every expected value is what the test
 * scripted into the fake (or the fake's deterministic vectors, for what was sent).
 */

type Timeouts = ModelFactoryOptions['http']['timeouts'];

const PATIENT: Timeouts = { connectMs: 1_000, firstByteMs: 5_000, idleMs: 5_000, totalMs: 20_000 };
/** Short enough that a hung upstream fails fast, long enough for a loaded machine to answer in time. */
const IMPATIENT: Timeouts = { connectMs: 1_000, firstByteMs: 300, idleMs: 300, totalMs: 10_000 };

const signal = (): AbortSignal => new AbortController().signal;

/** Whether a class is the request's fault (no other model will do better) or the upstream's. */
const RETRYABLE: Readonly<Record<ErrorClass, boolean>> = {
  'invalid-request': false,
  forbidden: true,
  'not-found': true,
  'rate-limited': true,
  'server-error': true,
  unavailable: true,
};

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

/** The inputs that reached the fake are those expected, in any order (a format that calls once per input sends them at once). */
function assertSent(actual: readonly SentInput[], expected: readonly SentInput[]): void {
  const sorted = (inputs: readonly SentInput[]) => inputs.map((input) => JSON.stringify(input)).sort();
  assert.deepEqual(sorted(actual), sorted(expected));
}

const script = (inputs: readonly string[]): ScriptedEmbeddings => ({
  inputs,
  // Not the fake's own vectors: what comes back is what was scripted.
  vectors: inputs.map((_, index) => [index + 0.5, -index - 0.25, 1 / (index + 3)]),
  promptTokens: inputs.map((_, index) => 7 + index),
});

export function describeEmbeddingConformance(target: EmbeddingConformanceTarget): void {
  describe(`embedding conformance: ${target.name} (${target.preset.wireFormat} wire format)`, () => {
    let fake: RunningEmbeddingFake;
    let patient: Agent;
    let impatient: Agent;
    let model: EmbeddingModel;
    let impatientModel: EmbeddingModel;
    const provider = target.preset.name;

    const build = (credentials: ProviderCredentials, dispatcher: Agent, timeouts: Timeouts): EmbeddingModel => {
      const built = createEmbeddingModelFor(target.preset, credentials, target.modelId, { http: { dispatcher, timeouts } });
      assert.ok(built !== undefined, 'the factory builds an embedding model for these credentials');
      return built;
    };
    const agent = (timeouts: Timeouts) => new Agent({ connect: { timeout: timeouts.connectMs }, headersTimeout: timeouts.firstByteMs, bodyTimeout: timeouts.idleMs });

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

    describe('vectors', () => {
      for (const inputs of [['Grüße aus Zürich'], ['alpha', 'beta — 東京', '🎉 gamma', 'delta']]) {
        it(`${inputs.length} input(s): the vectors scripted, in input order, and the usage ${target.reportsUsage ? 'scripted' : 'undefined (the format has none)'}`, async () => {
          const scripted = script(inputs);
          fake.answer(scripted);
          const result = await model.embed({ input: inputs }, { signal: signal() });
          assert.deepEqual(result.embeddings, scripted.vectors);
          const tokens = scripted.promptTokens.reduce((sum, count) => sum + count, 0);
          assert.deepEqual(result.usage, target.reportsUsage ? { promptTokens: tokens } : undefined);
          assertSent(fake.sent(), inputs.map((input) => ({ input, dimensions: undefined })));
        });
      }

      it('dimensions: sent for every input, and the vectors come back that long', async () => {
        const inputs = ['one', 'two', 'three'];
        const result = await model.embed({ input: inputs, dimensions: target.shortDimensions }, { signal: signal() });
        assertSent(fake.sent(), inputs.map((input) => ({ input, dimensions: target.shortDimensions })));
        assert.deepEqual(result.embeddings, inputs.map((input) => fakeEmbedding(target.vectorModel, input, target.shortDimensions)));
      });

      const tokens = [[9906, 11, 1917], [15339]];
      if (target.tokenArrays) {
        it('token arrays: sent as they are, a vector for each', async () => {
          const result = await model.embed({ input: tokens }, { signal: signal() });
          assertSent(fake.sent(), tokens.map((input) => ({ input, dimensions: undefined })));
          assert.deepEqual(result.embeddings, tokens.map((input) => fakeEmbedding(target.vectorModel, input)));
        });
      } else {
        it('token arrays: refused before any call, retryable (another format may take them)', async () => {
          await assert.rejects(model.embed({ input: tokens }, { signal: signal() }), upstreamError({ provider, kind: 'http', statusCode: 400, isRetryable: true }));
          assert.deepEqual(fake.sent(), []);
        });
      }
    });

    describe('upstream errors', () => {
      for (const errorClass of Object.keys(RETRYABLE) as ErrorClass[]) {
        it(`${errorClass}: an UpstreamError with the status scripted, ${RETRYABLE[errorClass] ? '' : 'not '}retryable`, async () => {
          const scripted = fake.error(errorClass);
          const expected: ExpectedError = { provider, kind: 'http', statusCode: scripted.status, isRetryable: RETRYABLE[errorClass], retryAfterMs: scripted.retryAfterMs };
          await assert.rejects(model.embed({ input: ['x'] }, { signal: signal() }), upstreamError(expected));
        });
      }

      const refused = target.refusedCredentials;
      it('credentials the upstream refuses: retryable elsewhere, the secret not repeated', 'skip' in refused ? { skip: refused.skip } : {}, async () => {
        if ('skip' in refused || fake.wrongCredentials === undefined) return assert.fail('the target gives no wrong credentials');
        const wrong = build(fake.wrongCredentials.credentials, patient, PATIENT);
        const expected: ExpectedError = { provider, kind: 'http', statusCode: refused.status, isRetryable: true, secret: fake.wrongCredentials.secret };
        await assert.rejects(wrong.embed({ input: ['x'] }, { signal: signal() }), upstreamError(expected));
      });

      it('no response before the first-byte deadline: a retryable timeout', async () => {
        fake.hang();
        await assert.rejects(impatientModel.embed({ input: ['x'] }, { signal: signal() }), upstreamError({ provider, kind: 'timeout', isRetryable: true }));
      });

      it('connection refused: a retryable connection error', async () => {
        const nowhere = build(fake.credentialsAt(`http://127.0.0.1:${await unusedPort()}`), patient, PATIENT);
        await assert.rejects(nowhere.embed({ input: ['x'] }, { signal: signal() }), upstreamError({ provider, kind: 'connection', isRetryable: true }));
      });

      it('a 200 whose body is not this format: a retryable invalid response', async () => {
        fake.malformed();
        await assert.rejects(model.embed({ input: ['x'] }, { signal: signal() }), upstreamError({ provider, kind: 'invalid_response', isRetryable: true }));
      });

      it('a caller that has already gone: aborted, not retryable', async () => {
        const gone = new AbortController();
        gone.abort();
        await assert.rejects(model.embed({ input: ['x', 'y'] }, { signal: gone.signal }), upstreamError({ provider, kind: 'aborted', isRetryable: false }));
      });
    });
  });
}
