import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { Redis } from 'ioredis';
import { openAIErrors, startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai.js';
import { startGateway, type Gateway } from '../support/gateway-harness.js';
import { redisAnswers, TEST_REDIS_URL } from '../support/redis.js';

/**
 * Model health shared between instances (docs/routing.md, "Shared health"):
 * two in-process gateways on one Redis under a test-unique prefix, one fake
 * api.openai.com. What instance A learns from the upstream, instance B honours
 * without calling the upstream itself.
 */

const REDIS_URL = TEST_REDIS_URL;

interface Meta {
  readonly modelUsed: string;
  readonly attempts: ReadonlyArray<{ readonly model: string; readonly outcome: string }>;
  readonly routing: {
    readonly candidates: ReadonlyArray<{ readonly model: string; readonly reason: string }>;
    readonly dropped: ReadonlyArray<{ readonly model: string; readonly reason: string }>;
  };
}

async function chat(gateway: Gateway, routerId: string, stream = false): Promise<Meta> {
  const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gateway.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: routerId, stream, messages: [{ role: 'user', content: 'Hi' }] }),
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const payloads = stream ? text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => line.slice(6)) : [text];
  const meta = payloads.map((payload) => (JSON.parse(payload) as { _meta?: Meta })._meta).filter((entry) => entry !== undefined).at(-1);
  return meta ?? assert.fail('no _meta');
}

async function waitFor(what: string, probe: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('model health shared through Redis by two gateways', async () => {
  const skip = (await redisAnswers()) ? false : `no Redis at ${REDIS_URL}`;
  const prefixes: string[] = [];
  let fake: FakeOpenAI;
  let gateways: Gateway[] = [];

  /** Two gateways sharing a fresh prefix, each with a router over `models`. */
  const pair = async (models: readonly string[], strategy = 'cost_optimized') => {
    const prefix = `mp-test-${randomBytes(6).toString('hex')}:`;
    prefixes.push(prefix);
    const env = {
      REDIS_URL,
      MODELPORT_REDIS_PREFIX: prefix,
      MODELPORT_REDIS_TIMEOUT_MS: '1000',
      OPENAI_BASE_URL: fake.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      MODELPORT_DEFAULT_RPM: '100000',
      MODELPORT_BREAKER_ENABLED: 'true',
      MODELPORT_BREAKER_FAILURE_THRESHOLD: '2',
      MODELPORT_BREAKER_COOLDOWN_MS: '30000',
    };
    gateways = await Promise.all([startGateway({ env, models, strategy }), startGateway({ env, models, strategy })]);
    const [a, b] = gateways as [Gateway, Gateway];
    return { a, b };
  };

  before(async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-test' });
  });
  afterEach(async () => {
    await Promise.all(gateways.map((gateway) => gateway.close()));
    gateways = [];
    fake.reset();
  });
  after(async () => {
    await fake?.close();
    if (skip !== false) return;
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 0 });
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    }
    redis.disconnect();
  });

  it('a 429 with retry-after on A: within 1 s B drops that provider (backing off) without calling it', { skip }, async () => {
    const { a, b } = await pair(['openai:gpt-4o-mini', 'sim:large']);
    fake.enqueue(openAIErrors.rateLimited(30));
    const onA = await chat(a, a.router.id);
    assert.deepEqual(
      onA.attempts.map(({ model, outcome }) => [model, outcome]),
      [
        ['openai:gpt-4o-mini', 'failed'],
        ['sim:large', 'ok'],
      ],
    );
    await waitFor("B's adoption of the back-off", () => b.app.health.backoffUntil('openai', Date.now()) !== undefined, 1000);
    const calls = fake.chatRequests().length;
    const onB = await chat(b, b.router.id);
    assert.equal(onB.modelUsed, 'sim:large');
    assert.match(onB.routing.dropped.find((entry) => entry.model === 'openai:gpt-4o-mini')?.reason ?? '', /provider backing off \(429\)/);
    assert.equal(fake.chatRequests().length, calls, 'B never called the provider');
  });

  it('a circuit opened on A is open on B until the same time', { skip }, async () => {
    const { a, b } = await pair(['openai:gpt-4o', 'sim:large']);
    fake.enqueue(openAIErrors.serverError(), openAIErrors.serverError());
    await chat(a, a.router.id);
    await chat(a, a.router.id);
    const now = Date.now();
    assert.equal(a.app.health.circuit('openai:gpt-4o', now), 'open');
    await waitFor("B's adoption of the opening", () => b.app.health.circuit('openai:gpt-4o', Date.now()) === 'open', 1000);
    const openOnA = a.app.health.snapshot().find((entry) => entry.key === 'openai:gpt-4o')?.openUntil;
    const openOnB = b.app.health.snapshot().find((entry) => entry.key === 'openai:gpt-4o')?.openUntil;
    assert.ok(openOnA !== undefined && openOnA === openOnB, `open until ${openOnA} on A, ${openOnB} on B`);
    const calls = fake.chatRequests().length;
    const onB = await chat(b, b.router.id);
    assert.match(onB.routing.dropped.find((entry) => entry.model === 'openai:gpt-4o')?.reason ?? '', /circuit open/);
    assert.equal(fake.chatRequests().length, calls, 'B never called the model');
  });

  it('latency measured on A ranks the model as measured on B', { skip }, async () => {
    const { a, b } = await pair(['openai:gpt-4o-mini'], 'latency_optimized');
    for (let call = 0; call < 3; call += 1) await chat(a, a.router.id, call % 2 === 0);
    const measuredOnA = a.app.health.latency('openai:gpt-4o-mini');
    assert.equal(measuredOnA?.samples, 3);
    // B has called nothing: whatever it knows of the model came from A. A publishes its averages
    // every second, so on a slow run B may already hold an earlier table of A's (fewer samples).
    assert.equal(fake.chatRequests().length, 3, 'only A called the upstream');
    const early = b.app.health.latency('openai:gpt-4o-mini');
    assert.ok(early === undefined || early.samples <= 3, `B holds no samples of its own: ${JSON.stringify(early)}`);
    await waitFor("A's averages on B", () => isDeepStrictEqual(b.app.health.latency('openai:gpt-4o-mini'), measuredOnA), 3000);
    const onB = await chat(b, b.router.id);
    assert.match(onB.routing.candidates[0]?.reason ?? '', /\(measured, 3 samples\)/);
  });
});
