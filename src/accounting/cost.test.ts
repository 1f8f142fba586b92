import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadShippedCatalog } from '../catalog/catalog.js';
import { computeCostUsd, pricesForPrompt } from './cost.js';

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

  it('bills cache writes at the cache-write rate, reads at the cached rate and the rest at the input price', () => {
    // Claude Sonnet 4.5's list prices: $3 input, $3.75 cache write, $0.30 cache read, $15 output per million.
    const sonnet = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3, cacheWritePerMTok: 3.75 };
    const usage = { promptTokens: 10_000, completionTokens: 100, cachedPromptTokens: 2_000, cacheWritePromptTokens: 6_000, estimated: false };
    const expected = (2_000 * 3 + 2_000 * 0.3 + 6_000 * 3.75 + 100 * 15) / 1e6;
    assert.ok(Math.abs(computeCostUsd(usage, sonnet) - expected) < 1e-12);
    // Without a cache-write price, writes cost what input costs.
    const noWritePrice = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 };
    assert.ok(Math.abs(computeCostUsd(usage, noWritePrice) - (8_000 * 3 + 2_000 * 0.3 + 100 * 15) / 1e6) < 1e-12);
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

describe('computeCostUsd with long-context tiers', () => {
  // Gemini 2.5 Pro's shape: prompts over 200k tokens pay the higher rates for the whole call.
  const tiered = {
    inputPerMTok: 1.25,
    outputPerMTok: 10,
    cachedInputPerMTok: 0.125,
    tiers: [{ aboveInputTokens: 200_000, inputPerMTok: 2.5, outputPerMTok: 15, cachedInputPerMTok: 0.25 }],
  };

  it('uses the base prices up to the threshold, the threshold included', () => {
    // 200,000 × 1.25 + 1,000 × 10 = 250,000 + 10,000 micro-dollars
    assert.equal(computeCostUsd({ promptTokens: 200_000, completionTokens: 1000, estimated: false }, tiered), 0.26);
  });

  it('prices the whole call at the tier once the prompt exceeds the threshold', () => {
    // 200,001 × 2.5 + 1,000 × 15 = 500,002.5 + 15,000 micro-dollars
    assert.equal(computeCostUsd({ promptTokens: 200_001, completionTokens: 1000, estimated: false }, tiered), 0.5150025);
  });

  it('chooses the tier by all prompt tokens, cached ones included, and bills those at the tier cached rate', () => {
    const usage = { promptTokens: 250_000, completionTokens: 0, cachedPromptTokens: 100_000, estimated: false };
    // 150,000 × 2.5 + 100,000 × 0.25 = 375,000 + 25,000 micro-dollars
    assert.equal(computeCostUsd(usage, tiered), 0.4);
  });

  it('applies the highest tier crossed, whatever the order tiers are listed in', () => {
    const pricing = {
      inputPerMTok: 1,
      outputPerMTok: 1,
      tiers: [
        { aboveInputTokens: 500_000, inputPerMTok: 4, outputPerMTok: 4 },
        { aboveInputTokens: 100_000, inputPerMTok: 2, outputPerMTok: 2 },
      ],
    };
    assert.equal(pricesForPrompt(pricing, 100_000).inputPerMTok, 1);
    assert.equal(pricesForPrompt(pricing, 300_000).inputPerMTok, 2);
    assert.equal(pricesForPrompt(pricing, 600_000).inputPerMTok, 4);
  });

  it('falls back to the tier input price when the tier lists no cached price', () => {
    const pricing = { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.1, tiers: [{ aboveInputTokens: 10, inputPerMTok: 3, outputPerMTok: 4 }] };
    assert.deepEqual(pricesForPrompt(pricing, 11), { inputPerMTok: 3, outputPerMTok: 4, cachedInputPerMTok: 3, cacheWritePerMTok: 3 });
    assert.deepEqual(pricesForPrompt(pricing, 10), { inputPerMTok: 1, outputPerMTok: 2, cachedInputPerMTok: 0.1, cacheWritePerMTok: 1 });
  });

  it('prices a shipped tiered model by its tier', () => {
    const model = loadShippedCatalog().get('gemini:gemini-2.5-pro');
    assert.ok(model?.pricing.tiers !== undefined && model.pricing.tiers.length > 0, 'gemini-2.5-pro has a long-context tier');
    const short = computeCostUsd({ promptTokens: 100_000, completionTokens: 0, estimated: false }, model.pricing);
    const long = computeCostUsd({ promptTokens: 300_000, completionTokens: 0, estimated: false }, model.pricing);
    assert.ok(long / 300_000 > short / 100_000, 'a long prompt costs more per token');
  });
});
