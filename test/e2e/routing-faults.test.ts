import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { openAIErrors, requestedModel, startFakeOpenAI, type FakeBehaviour, type FakeOpenAI, type RecordedRequest } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';

/**
 * Health and fallback end to end: a real gateway, a fault-injecting fake
 * api.openai.com, and the simulator as a model of another provider. Breakers
 * are on with small thresholds and cool-downs, so nothing here waits long; time
 * is waited for by polling, never by long sleeps.
 */

const MINI = 'openai:gpt-4o-mini';
const FOUR_O = 'openai:gpt-4o';
/** A model of another provider, dearer than both (cost_optimized tries it last). */
const SIM = 'sim:large';

/** Short enough to wait for, long enough that a loaded machine does not time out healthy calls. */
const FIRST_BYTE_TIMEOUT_MS = 1_000;

interface AttemptMeta {
  readonly model: string;
  readonly outcome: string;
  readonly reason?: string;
  readonly status?: number;
}

interface Meta {
  readonly modelUsed: string;
  readonly attempts: readonly AttemptMeta[];
}

interface ChatAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: { readonly _meta?: Meta; readonly error?: { readonly message: string; readonly code: string } };
}

function environment(fake: FakeOpenAI, extra: Record<string, string> = {}): Record<string, string> {
  return {
    OPENAI_BASE_URL: fake.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    MODELPORT_DEFAULT_RPM: '100000',
    MODELPORT_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(FIRST_BYTE_TIMEOUT_MS),
    MODELPORT_BREAKER_ENABLED: 'true',
    MODELPORT_BREAKER_FAILURE_THRESHOLD: '3',
    MODELPORT_BREAKER_COOLDOWN_MS: '600',
    MODELPORT_BREAKER_MAX_COOLDOWN_MS: '5000',
    ...extra,
  };
}

async function chat(gateway: Gateway, options: { routerId?: string; stream?: boolean } = {}): Promise<ChatAnswer> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: options.routerId ?? gateway.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: options.stream ?? false }),
  });
  const text = await response.text();
  if (options.stream === true && response.status === 200) {
    const events = sseData(text);
    const last = events.filter((data) => data !== '[DONE]').at(-1);
    return { status: response.status, headers: response.headers, body: last === undefined ? {} : (JSON.parse(last) as ChatAnswer['body']) };
  }
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as ChatAnswer['body'] };
}

function sseData(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

function metaOf(answer: ChatAnswer): Meta {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body._meta ?? assert.fail('no _meta');
}

const outcomes = (meta: Meta) => meta.attempts.map(({ model, outcome, status }) => ({ model, outcome, ...(status !== undefined ? { status } : {}) }));

/** A model health dropped before fallback (routing) or skipped in it is never called; if listed, it is listed as skipped. */
function assertNotCalled(meta: Meta, model: string, reason: RegExp): void {
  const attempt = meta.attempts.find((entry) => entry.model === model);
  if (attempt === undefined) return;
  assert.equal(attempt.outcome, 'skipped', JSON.stringify(meta.attempts));
  assert.match(attempt.reason ?? '', reason);
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const callsTo = (fake: FakeOpenAI, model: string) => fake.chatRequests().filter((request) => `openai:${requestedModel(request) ?? ''}` === model);

function forModel(model: string, behaviour: () => FakeBehaviour | undefined) {
  return (request: RecordedRequest): FakeBehaviour | undefined => (`openai:${requestedModel(request) ?? ''}` === model ? behaviour() : undefined);
}

describe('routing faults end to end: health and fallback against a fault-injecting upstream', () => {
  let fake: FakeOpenAI;
  let gateway: Gateway | undefined;

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test' });
  });
  after(async () => {
    await gateway?.close();
    await fake.close();
  });
  beforeEach(async () => {
    await gateway?.close();
    gateway = undefined;
    fake.reset();
  });

  const start = async (models: readonly string[], extra: Record<string, string> = {}): Promise<Gateway> => {
    gateway = await startGateway({ env: environment(fake, extra), models, strategy: 'cost_optimized' });
    return gateway;
  };

  it('500 → the next model answers; both attempts are in _meta.attempts, complete and streamed', async () => {
    const gw = await start([MINI, FOUR_O]);
    fake.setHandler(forModel(MINI, openAIErrors.serverError));
    for (const stream of [false, true]) {
      const meta = metaOf(await chat(gw, { stream }));
      assert.equal(meta.modelUsed, FOUR_O);
      assert.deepEqual(outcomes(meta), [
        { model: MINI, outcome: 'failed', status: 500 },
        { model: FOUR_O, outcome: 'ok' },
      ]);
    }
    assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini', 'gpt-4o', 'gpt-4o-mini', 'gpt-4o']);
  });

  it('429 with retry-after: falls back at once, skips the whole provider uncalled while it backs off, then uses it again', async () => {
    const gw = await start([MINI, FOUR_O, SIM]);
    // 3 s: long enough that the calls below still fall inside the back-off on a loaded machine.
    fake.enqueue(openAIErrors.rateLimited(3));
    const limitedAt = Date.now();
    const first = metaOf(await chat(gw));
    assert.equal(first.modelUsed, SIM);
    assert.deepEqual(outcomes(first), [
      { model: MINI, outcome: 'failed', status: 429 },
      { model: FOUR_O, outcome: 'skipped' },
      { model: SIM, outcome: 'ok' },
    ]);
    assert.match(first.attempts[1]?.reason ?? '', /^provider "openai" asked to back off until \d{4}-/);
    assert.equal(fake.chatRequests().length, 1);

    // Within the back-off: neither OpenAI model is called, complete or streamed.
    for (const stream of [false, true]) {
      const meta = metaOf(await chat(gw, { stream }));
      assert.equal(meta.modelUsed, SIM);
      assertNotCalled(meta, MINI, /back off/);
      assertNotCalled(meta, FOUR_O, /back off/);
    }
    assert.equal(fake.chatRequests().length, 1, 'the fake saw no call during the back-off');

    // After it, OpenAI is used again.
    const again = await waitFor('OpenAI to be used again', async () => {
      const meta = metaOf(await chat(gw));
      return meta.modelUsed === MINI ? meta : undefined;
    });
    const waited = Date.now() - limitedAt;
    assert.ok(waited >= 2900, `used again after ${waited} ms, before the 3 s retry-after`);
    assert.deepEqual(outcomes(again), [{ model: MINI, outcome: 'ok' }]);
    assert.equal(fake.chatRequests().length, 2);
  });

  it("429 with retry-after on the router's only provider: 503 with the provider's Retry-After", async () => {
    const gw = await start([MINI, FOUR_O]);
    fake.enqueue(openAIErrors.rateLimited(2));
    const answer = await chat(gw);
    assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal(answer.body.error?.code, 'all_models_unavailable');
    assert.equal(answer.headers.get('retry-after'), '2');
    assert.match(answer.body.error?.message ?? '', /openai:gpt-4o: provider "openai" asked to back off/);
    assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini']);
  });

  it('a model silent past the first-byte timeout → the next model answers', async () => {
    const timeoutMs = 300;
    const gw = await start([MINI, FOUR_O], { MODELPORT_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(timeoutMs) });
    fake.setHandler(forModel(MINI, () => ({ type: 'hang' })));
    for (const stream of [false, true]) {
      const started = performance.now();
      const meta = metaOf(await chat(gw, { stream }));
      const elapsed = performance.now() - started;
      assert.equal(meta.modelUsed, FOUR_O);
      assert.match(meta.attempts[0]?.reason ?? '', /timed out/);
      assert.ok(elapsed >= timeoutMs - 5 && elapsed < timeoutMs + 1_000, `fell back after ${Math.round(elapsed)} ms`);
    }
  });

  it('a connection reset mid-stream ends the stream with an error event and no [DONE]', async () => {
    const gw = await start([MINI, FOUR_O]);
    fake.enqueue({ type: 'answer', content: 'alpha beta gamma delta', transport: { resetAfterEvents: 3 } });
    const response = await fetch(`${gw.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: gw.router.id, messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    });
    assert.equal(response.status, 200);
    const events = sseData(await response.text());
    assert.equal(events.includes('[DONE]'), false);
    const last = JSON.parse(events.at(-1) ?? '{}') as { error?: { code?: string }; _meta?: Meta };
    assert.equal(last.error?.code, 'upstream_stream_error');
    assert.equal(last._meta?.modelUsed, MINI);
    assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini'], 'bytes were sent: no fallback');
  });

  it('the circuit opens after N failures, half-opens after the cool-down to exactly one probe, re-opens on a failed probe and closes on a good one', async () => {
    const gw = await start([MINI, FOUR_O]);
    let miniBehaviour: () => FakeBehaviour = openAIErrors.serverError;
    fake.setHandler(forModel(MINI, () => miniBehaviour()));
    const circuit = () => gw.app.health.circuit(MINI, Date.now());

    // Three failures (the threshold) open it; each request still gets its answer from gpt-4o.
    for (let index = 0; index < 3; index += 1) assert.equal(metaOf(await chat(gw)).modelUsed, FOUR_O);
    assert.equal(callsTo(fake, MINI).length, 3);
    assert.equal(circuit(), 'open');

    // Open: gpt-4o-mini is not called at all.
    for (const stream of [false, true]) {
      const meta = metaOf(await chat(gw, { stream }));
      assert.equal(meta.modelUsed, FOUR_O);
      assertNotCalled(meta, MINI, /circuit open/);
    }
    assert.equal(callsTo(fake, MINI).length, 3, 'no call while the circuit is open');

    // Half-open after the cool-down: one probe, which fails and re-opens it (for twice as long).
    await waitFor('the circuit to half-open', () => (circuit() === 'half-open' ? true : undefined));
    const probed = metaOf(await chat(gw));
    assert.deepEqual(outcomes(probed), [
      { model: MINI, outcome: 'failed', status: 500 },
      { model: FOUR_O, outcome: 'ok' },
    ]);
    assert.equal(callsTo(fake, MINI).length, 4);
    assert.equal(circuit(), 'open');
    assert.equal(metaOf(await chat(gw)).modelUsed, FOUR_O);
    assert.equal(callsTo(fake, MINI).length, 4);

    // Recovered and slow to answer: of four concurrent requests exactly one is the probe.
    miniBehaviour = () => ({ type: 'answer', content: 'back', transport: { delayBeforeHeadersMs: 150 } });
    await waitFor('the circuit to half-open again', () => (circuit() === 'half-open' ? true : undefined));
    const concurrent = await Promise.all([chat(gw), chat(gw), chat(gw), chat(gw)]);
    const metas = concurrent.map(metaOf);
    assert.equal(callsTo(fake, MINI).length, 5, 'exactly one probe');
    assert.deepEqual(metas.map((meta) => meta.modelUsed).sort(), [FOUR_O, FOUR_O, FOUR_O, MINI]);
    for (const meta of metas.filter((entry) => entry.modelUsed === FOUR_O)) assertNotCalled(meta, MINI, /probing|circuit/);

    // The probe succeeded: closed, gpt-4o-mini is first again.
    assert.equal(circuit(), 'closed');
    const closed = metaOf(await chat(gw));
    assert.deepEqual(outcomes(closed), [{ model: MINI, outcome: 'ok' }]);
    assert.equal(callsTo(fake, MINI).length, 6);
  });

  it('every circuit open: 503 at once without calling anyone, Retry-After until the first lets a probe through', async () => {
    const gw = await start([MINI, FOUR_O], { MODELPORT_BREAKER_COOLDOWN_MS: '3000' });
    fake.setHandler(() => openAIErrors.serverError());
    for (let index = 0; index < 3; index += 1) assert.equal((await chat(gw)).status, 503);
    assert.equal(fake.chatRequests().length, 6);

    const started = performance.now();
    const answer = await chat(gw);
    assert.ok(performance.now() - started < FIRST_BYTE_TIMEOUT_MS, 'fails fast, waiting for no upstream');
    assert.equal(answer.status, 503);
    assert.equal(answer.body.error?.code, 'all_models_unavailable');
    assert.match(answer.body.error?.message ?? '', /circuit open/);
    assert.equal(fake.chatRequests().length, 6, 'no upstream call');
    const retryAfter = Number(answer.headers.get('retry-after'));
    assert.ok(retryAfter >= 2 && retryAfter <= 3, `Retry-After ${retryAfter}, the circuits re-open within 3 s`);
  });

  it('the total deadline bounds a request whose models all hang, complete and streamed', async () => {
    const deadlineMs = 700;
    const gw = await start([MINI, FOUR_O, SIM], { MODELPORT_FALLBACK_DEADLINE_MS: String(deadlineMs), MODELPORT_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '450' });
    fake.setHandler(() => ({ type: 'hang' }));
    for (const stream of [false, true]) {
      fake.reset();
      fake.setHandler(() => ({ type: 'hang' }));
      const started = performance.now();
      const answer = await chat(gw, { stream });
      const elapsed = performance.now() - started;
      assert.equal(answer.status, 503, JSON.stringify(answer.body));
      assert.ok(elapsed >= deadlineMs - 50 && elapsed < deadlineMs + 500, `answered after ${Math.round(elapsed)} ms`);
      const message = answer.body.error?.message ?? '';
      assert.match(message, /deadline passed/);
      assert.match(message, /openai:gpt-4o-mini: openai timed out/);
      assert.match(message, /openai:gpt-4o: cut off: the request's deadline passed/);
      assert.match(message, /sim:large: the request's deadline passed/);
      assert.deepEqual(fake.chatRequests().map(requestedModel), ['gpt-4o-mini', 'gpt-4o']);
      for (const request of fake.chatRequests()) {
        await request.closed;
        assert.equal(request.aborted, true, 'the gateway dropped the hung upstream request');
      }
    }
  });
});
