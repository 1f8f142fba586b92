import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeCostUsd } from './cost.js';

const gpt4oMini = { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 };

describe('computeCostUsd', () => {
  it('prices prompt and completion tokens at list prices', () => {
    // 1,000 prompt tokens at $0.15/M + 500 completion tokens at $0.60/M = $0.00015 + $0.0003
    assert.equal(computeCostUsd({ promptTokens: 1000, completionTokens: 500, estimated: false }, gpt4oMini), 0.00045);
  });

  it('bills cached prompt tokens at the cached rate', () => {
    const cost = computeCostUsd({ promptTokens: 1000, completionTokens: 0, cachedPromptTokens: 400, estimated: false }, gpt4oMini);
    // 600 × 0.15 + 400 × 0.075 = 90 + 30 = 120 micro-dollars
    assert.equal(cost, 0.00012);
  });

  it('falls back to the input price when no cached price is listed', () => {
    const cost = computeCostUsd({ promptTokens: 1000, completionTokens: 0, cachedPromptTokens: 400, estimated: false }, { inputPerMTok: 1, outputPerMTok: 2 });
    assert.equal(cost, 0.001);
  });

  it('never counts more cached tokens than prompt tokens', () => {
    const cost = computeCostUsd({ promptTokens: 10, completionTokens: 0, cachedPromptTokens: 50, estimated: false }, gpt4oMini);
    assert.equal(cost, 10 * 0.075e-6);
  });

  it('is zero for zero tokens and has no float noise', () => {
    assert.equal(computeCostUsd({ promptTokens: 0, completionTokens: 0, estimated: false }, gpt4oMini), 0);
    assert.equal(computeCostUsd({ promptTokens: 3, completionTokens: 7, estimated: false }, { inputPerMTok: 0.1, outputPerMTok: 0.2 }), 0.0000017);
  });
});
