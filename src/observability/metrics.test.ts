import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NewUsageRecord } from '../storage/schema.js';
import { createMetrics } from './metrics.js';

function record(model: string | null, status: number, tokens: [number, number], cost: number, carbon: number, routerId = 'rt_1'): NewUsageRecord {
  return {
    id: `req_${Math.random()}`,
    created_at: 0,
    owner_id: 'usr_1',
    key_id: 'key_1',
    router_id: routerId,
    model,
    status,
    error_code: null,
    streamed: 0,
    prompt_tokens: tokens[0],
    completion_tokens: tokens[1],
    total_tokens: tokens[0] + tokens[1],
    cost_usd: cost,
    latency_ms: 120,
    carbon_grams: carbon,
    // Energy and carbon are kept apart: a grid of 250 g/kWh, so that the two totals differ.
    energy_wh: (carbon / 250) * 1000,
    attempts: 1,
  };
}

/** The value of the sample named `name` whose labels are exactly `labels`, from the text exposition. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test('requests, tokens, cost and carbon add up per label set, and a second scrape reads the same totals', async () => {
  const metrics = createMetrics({ usageQueue: () => ({ queued: 0, dropped: 0 }), processMetrics: false, routerLabels: true });
  metrics.observeRequest(record('openai:gpt-4o-mini', 200, [10, 5], 0.25, 1.5));
  metrics.observeRequest(record('openai:gpt-4o-mini', 200, [7, 3], 0.5, 0.5));
  metrics.observeRequest(record('openai:gpt-4o-mini', 502, [0, 0], 0, 0));
  metrics.observeRequest(record(null, 429, [0, 0], 0, 0));
  for (let scrape = 0; scrape < 2; scrape += 1) {
    const text = await metrics.render();
    const model = 'router="rt_1",model="openai:gpt-4o-mini"';
    assert.equal(sample(text, 'modelport_requests_total', `${model},status="200"`), 2);
    assert.equal(sample(text, 'modelport_requests_total', `${model},status="502"`), 1);
    assert.equal(sample(text, 'modelport_requests_total', 'router="rt_1",model="none",status="429"'), 1);
    assert.equal(sample(text, 'modelport_request_duration_seconds_count', `${model},status="200"`), 2);
    assert.equal(sample(text, 'modelport_tokens_total', `${model},kind="prompt"`), 17);
    assert.equal(sample(text, 'modelport_tokens_total', `${model},kind="completion"`), 8);
    assert.equal(sample(text, 'modelport_cost_usd_total', model), 0.75);
    assert.equal(sample(text, 'modelport_carbon_grams_total', model), 2);
    assert.equal(sample(text, 'modelport_energy_wh_total', model), 8);
    // A request without a model counts no tokens, cost or carbon.
    assert.equal(sample(text, 'modelport_cost_usd_total', 'router="rt_1",model="none"'), undefined);
  }
});

test('router ids are in no label unless the operator allows them: the series add up every router', async () => {
  const metrics = createMetrics({ usageQueue: () => ({ queued: 0, dropped: 0 }), processMetrics: false });
  metrics.observeRequest(record('openai:gpt-4o-mini', 200, [10, 5], 0.25, 1.5, 'rt_alice'));
  metrics.observeRequest(record('openai:gpt-4o-mini', 200, [7, 3], 0.5, 0.5, 'rt_bob'));
  metrics.observeRequest(record(null, 429, [0, 0], 0, 0, 'rt_bob'));
  const text = await metrics.render();
  for (const routerId of ['rt_alice', 'rt_bob']) assert.ok(!text.includes(routerId), `${routerId} is in the metrics`);
  assert.doesNotMatch(text, /router=/);
  const model = 'model="openai:gpt-4o-mini"';
  assert.equal(sample(text, 'modelport_requests_total', `${model},status="200"`), 2);
  assert.equal(sample(text, 'modelport_requests_total', 'model="none",status="429"'), 1);
  assert.equal(sample(text, 'modelport_request_duration_seconds_count', `${model},status="200"`), 2);
  assert.equal(sample(text, 'modelport_tokens_total', `${model},kind="prompt"`), 17);
  assert.equal(sample(text, 'modelport_cost_usd_total', model), 0.75);
  assert.equal(sample(text, 'modelport_carbon_grams_total', model), 2);
});
