import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { loadShippedCatalog } from '../catalog/catalog.js';
import { shippedCatalogOnly } from '../catalog/owner-catalog.js';
import { createBudgetGuard } from '../limits/budget-guard.js';
import { createInProcessSpendStore } from '../limits/budget-spend-store.js';
import { createInProcessRateLimiter } from '../limits/request-rate-limiter.js';
import { ClientAbort } from '../lib/client-abort.js';
import { GatewayError } from '../lib/errors.js';
import { UpstreamError, type ChatModel, type ChatRequest, type ChatResult, type StreamPart, type Usage } from '../providers/contract.js';
import { migrateToLatest, openStorage, type Storage } from '../storage/database.js';
import { createRepositories } from '../storage/repositories.js';
import type { NewUsageRecord } from '../storage/schema.js';
import type { ApiKeyRecord } from '../storage/api-keys-repository.js';
import type { RouterRecord } from '../storage/routers-repository.js';
import { releaseCall, settleCall } from './call-settlement.js';
import { createCallState, type CallState } from './call-state.js';
import { admitKey, completeCall, prepareCall, runCall, type PipelineDependencies, type PreparedCall } from './routed-call.js';
import { finishCallStream, openCallStream, type RelayedStream } from './routed-stream.js';

/**
 * The settle-up (usage record, budget charge, rate-limit release) happens exactly once per call, whatever ends it.
 * Real rate limits, real budgets over a real SQLite database, the shipped catalog; the models are scripted
 * implementations of the provider contract (a provider fake, not a stand-in for any pipeline function).
 */

const key: ApiKeyRecord = {
  id: 'key_pipeline',
  ownerId: 'usr_pipeline',
  name: 'pipeline test',
  displayPrefix: 'mp_test',
  routerIds: undefined,
  rpmLimit: 1000,
  maxConcurrency: 1,
  createdAt: 0,
  lastUsedAt: undefined,
  expiresAt: undefined,
  revokedAt: undefined,
};
const router: RouterRecord = { id: 'rt_pipeline', ownerId: key.ownerId, name: 'pipeline', strategy: 'cost_optimized', models: ['sim:small'], settings: {}, createdAt: 0, updatedAt: 0 };
const request: ChatRequest = { messages: [{ role: 'user', content: 'Count to three.' }] } as ChatRequest;
const usage: Usage = { promptTokens: 1200, completionTokens: 800, estimated: false };

/** How the scripted model answers. */
type Script =
  | { kind: 'answer' }
  | { kind: 'fail'; status: number }
  | { kind: 'hang' }
  | { kind: 'stream'; texts: readonly string[]; then: 'finish' | 'drop' };

function scriptedModel(script: () => Script): ChatModel {
  const waitForAbort = (signal: { addEventListener(type: 'abort', listener: () => void): void }) =>
    new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(new UpstreamError({ provider: 'sim', kind: 'aborted', message: 'aborted', isRetryable: false }))));
  return {
    provider: 'sim',
    modelId: 'small',
    async generate(_request, { signal }): Promise<ChatResult> {
      const now = script();
      if (now.kind === 'fail') throw new UpstreamError({ provider: 'sim', kind: 'http', statusCode: now.status, message: `upstream ${now.status}`, isRetryable: now.status >= 500 });
      if (now.kind === 'hang') return waitForAbort(signal as never);
      return { message: { content: 'one two three' }, finishReason: 'stop', usage };
    },
    async stream(_request, { signal }) {
      const now = script();
      if (now.kind !== 'stream') throw new Error('this script does not stream');
      async function* parts(): AsyncGenerator<StreamPart> {
        for (const text of now.kind === 'stream' ? now.texts : []) yield { type: 'text-delta', text };
        if (now.kind === 'stream' && now.then === 'drop') throw new UpstreamError({ provider: 'sim', kind: 'connection', message: 'socket hang up', isRetryable: true });
        yield { type: 'finish', finishReason: 'stop' };
        yield { type: 'usage', usage };
      }
      void signal;
      return parts();
    },
  };
}

describe('the pipeline settles every call exactly once', () => {
  let storage: Storage;
  let deps: PipelineDependencies;
  let records: NewUsageRecord[];
  let releases: number[];
  let script: Script;
  let charged: () => Promise<number>;

  before(async () => {
    storage = openStorage('sqlite::memory:');
    await migrateToLatest(storage);
  });
  after(async () => {
    await storage.close();
  });

  beforeEach(async () => {
    const repositories = createRepositories(storage);
    // A budget on the key, so every charge is counted by the real spend store.
    await repositories.budgets.set('key', key.id, 1000, 'day');
    const spend = createInProcessSpendStore(async () => 0);
    const budgets = createBudgetGuard({ budgets: repositories.budgets, spend, now: Date.now, onError: (error) => assert.fail(String(error)) });
    charged = () => spend.spent({ kind: 'key', id: key.id }, 'day', Date.now());
    const limiter = createInProcessRateLimiter({ defaultRpm: 1000 });
    records = [];
    releases = [];
    script = { kind: 'answer' };
    const model = scriptedModel(() => script);
    const catalog = loadShippedCatalog();
    deps = {
      rateLimiter: { ...limiter, finish: (ticket, used) => (releases.push(used ?? -1), limiter.finish(ticket, used)) },
      routers: { find: (id) => (id === router.id ? router : undefined) },
      usage: { record: (record) => void records.push(record) },
      budgets,
      ownerCatalogs: shippedCatalogOnly(catalog),
      providers: {
        forOwner: () => (provider, modelId) => (provider === 'sim' && modelId === 'small' ? model : undefined),
        embeddingsForOwner: () => () => undefined,
        invalidate: () => undefined,
      },
      now: Date.now,
      settings: { maxAttempts: 2 },
    };
  });

  const headers = { header: () => undefined, headers: () => undefined };
  const log = { warn: (details: object) => assert.fail(JSON.stringify(details)) };

  async function admitted(signal = new ClientAbort()): Promise<{ call: CallState; prepared: PreparedCall; signal: ClientAbort }> {
    const call = createCallState(`req_${Math.random().toString(36).slice(2)}`, performance.now());
    call.key = key;
    await admitKey(call, key, deps, headers);
    const prepared = await prepareCall(call, { chatRequest: request, target: router.id, idPrefix: 'chatcmpl-', signal, sink: headers, log }, deps);
    return { call, prepared, signal };
  }

  /** What a surface does when its answer was written and its connection closed. */
  function answerWritten(call: CallState, status: number): void {
    settleCall(call, status, call.errorCode, deps);
    releaseCall(call, deps);
  }

  it('a whole answer: one record with its tokens and cost, one charge, one release with the tokens used', async () => {
    const { call, prepared } = await admitted();
    const answer = await runCall(call, prepared, deps, () => completeCall(call, prepared, deps));
    answerWritten(call, 200);
    // Whatever else tries to end it again changes nothing.
    answerWritten(call, 500);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.status, 200);
    assert.equal(records[0]?.prompt_tokens, usage.promptTokens);
    assert.equal(records[0]?.completion_tokens, usage.completionTokens);
    assert.ok(answer.meta.cost > 0);
    assert.equal(records[0]?.cost_usd, answer.meta.cost);
    assert.equal(await charged(), answer.meta.cost);
    assert.deepEqual(releases, [usage.promptTokens + usage.completionTokens]);
    assert.equal(answer.meta.routerId, router.id);
    assert.equal(prepared.completionId, `chatcmpl-${call.requestId.slice(call.requestId.indexOf('_') + 1)}`);
  });

  it('an error: one record with the error status and attempts, nothing charged, one release', async () => {
    script = { kind: 'fail', status: 503 };
    const { call, prepared } = await admitted();
    const failure = await runCall(call, prepared, deps, () => completeCall(call, prepared, deps)).then(
      () => assert.fail('the call should fail'),
      (error: unknown) => error,
    );
    assert.ok(failure instanceof GatewayError);
    call.errorCode = failure.code;
    answerWritten(call, failure.status);
    answerWritten(call, 200);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.status, failure.status);
    assert.equal(records[0]?.error_code, failure.code);
    assert.equal(records[0]?.attempts, 1);
    assert.equal(await charged(), 0);
    assert.deepEqual(releases, [0]);
  });

  it('a client that left: settled with the error it ended on, before any answer could be written; the later hooks change nothing', async () => {
    script = { kind: 'hang' };
    const { call, prepared, signal } = await admitted();
    const running = runCall(call, prepared, deps, () => completeCall(call, prepared, deps));
    setImmediate(() => {
      // The connection closes: the limits are freed at once, the upstream call is aborted.
      releaseCall(call, deps);
      signal.abort();
    });
    await assert.rejects(running, GatewayError);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.status, 499);
    // Fastify's onResponse and the close event may still come: nothing more is recorded or released.
    answerWritten(call, 500);
    assert.equal(records.length, 1);
    assert.deepEqual(releases, [0]);
    assert.equal(await charged(), 0);
  });

  /** What a surface's relay does: takes every part, notes how the stream ended. */
  async function relay(prepared: PreparedCall, call: CallState): Promise<{ relayed: RelayedStream; started: Awaited<ReturnType<typeof openCallStream>> }> {
    const started = await openCallStream(call, prepared, deps);
    let generated = '';
    let streamUsage: Usage | undefined;
    let failure: GatewayError | undefined;
    try {
      for await (const part of started.parts) {
        if (part.type === 'text-delta') generated += part.text;
        if (part.type === 'usage') streamUsage = part.usage;
      }
    } catch (error) {
      failure = new GatewayError(502, 'upstream_error', 'upstream_stream_error', String(error));
    }
    return { started, relayed: { generated, finishReason: 'stop', usage: streamUsage, failure } };
  }

  it('a stream that ends: settled once as streamed, charged once, the late close frees the limits once', async () => {
    script = { kind: 'stream', texts: ['one', ' two', ' three'], then: 'finish' };
    const { call, prepared } = await admitted();
    const { started, relayed } = await relay(prepared, call);
    const end = await finishCallStream(call, prepared, started, relayed, deps);
    answerWritten(call, 200);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.status, 200);
    assert.equal(records[0]?.streamed, 1);
    assert.equal(records[0]?.completion_tokens, usage.completionTokens);
    assert.equal(await charged(), end.meta.cost);
    assert.ok(end.meta.timeToFirstTokenMs !== undefined);
    assert.deepEqual(releases, [usage.promptTokens + usage.completionTokens]);
  });

  it('a stream cut mid-way: settled once with the break, charged for what was generated (counted, the provider sent no usage)', async () => {
    script = { kind: 'stream', texts: ['one', ' two'], then: 'drop' };
    const { call, prepared } = await admitted();
    const { started, relayed } = await relay(prepared, call);
    assert.ok(relayed.failure !== undefined);
    const end = await finishCallStream(call, prepared, started, relayed, deps);
    answerWritten(call, 200);
    assert.equal(records.length, 1);
    assert.equal(records[0]?.status, 502);
    assert.equal(records[0]?.error_code, 'upstream_stream_error');
    assert.ok(end.usage.estimated, 'the tokens of a broken stream are counted');
    assert.ok((records[0]?.completion_tokens ?? 0) > 0);
    assert.ok(end.meta.cost > 0);
    assert.equal(await charged(), end.meta.cost);
    assert.equal(releases.length, 1);
  });

  it('a call refused at admission (the key has one request in flight): nothing to settle beyond its own record', async () => {
    const first = await admitted();
    const second = createCallState('req_second', performance.now());
    second.key = key;
    await assert.rejects(async () => admitKey(second, key, deps, headers), (error: unknown) => error instanceof GatewayError && error.status === 429);
    answerWritten(second, 429);
    answerWritten(first.call, 499);
    assert.deepEqual(records.map((record) => record.status).sort(), [429, 499]);
    // The refused call held no slot: only the admitted one is released.
    assert.equal(releases.length, 1);
  });
});
