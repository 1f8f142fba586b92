import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { UsageRecordRow } from '../storage/schema.js';
import { toUsageRow } from './usage-row.js';

const RECORD: UsageRecordRow = {
  id: 'req_0abc',
  created_at: Date.parse('2026-06-01T12:00:00Z'),
  owner_id: 'usr_1',
  key_id: 'key_1',
  router_id: 'rt_1',
  model: 'openai:gpt-4o-mini',
  status: 200,
  error_code: null,
  streamed: 1,
  prompt_tokens: 19,
  completion_tokens: 9,
  total_tokens: 28,
  cost_usd: 0.0000082,
  latency_ms: 312.5,
  carbon_grams: 0.0123,
  attempts: 2,
  counterfactual_cost_usd: 0.0000412,
  energy_wh: 0.0301,
  cached_prompt_tokens: 4,
  cache_write_prompt_tokens: 2,
  reasoning_tokens: 3,
};

describe('toUsageRow', () => {
  it('names every column of the record in camelCase, times in epoch ms', () => {
    assert.deepEqual(toUsageRow(RECORD), {
      id: 'req_0abc',
      createdAt: RECORD.created_at,
      ownerId: 'usr_1',
      keyId: 'key_1',
      routerId: 'rt_1',
      model: 'openai:gpt-4o-mini',
      status: 200,
      errorCode: null,
      streamed: true,
      promptTokens: 19,
      completionTokens: 9,
      totalTokens: 28,
      costUsd: 0.0000082,
      latencyMs: 312.5,
      carbonGrams: 0.0123,
      energyWh: 0.0301,
      cachedPromptTokens: 4,
      cacheWritePromptTokens: 2,
      reasoningTokens: 3,
      attempts: 2,
      counterfactualCostUsd: 0.0000412,
    });
  });

  it('keeps a refusal before routing: no router, model or key, its error code, not streamed', () => {
    const row = toUsageRow({ ...RECORD, key_id: null, router_id: null, model: null, status: 429, error_code: 'rate_limit_exceeded', streamed: 0 });
    assert.equal(row.keyId, null);
    assert.equal(row.routerId, null);
    assert.equal(row.model, null);
    assert.equal(row.errorCode, 'rate_limit_exceeded');
    assert.equal(row.streamed, false);
  });
});
