import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { estimateCarbon } from '../../accounting/carbon.js';
import { countPromptTokens } from '../../providers/token-counter.js';
import type { ChatRequest } from '../../providers/contract.js';
import { fakeHealth, fixtureModel, userRequest } from '../../../test/support/routing-fixtures.js';
import { BYTES_PER_TOKEN, DEFAULT_OUTPUT_TOKENS, IMAGE_TOKENS, estimateCandidate, expectedOutputTokens, profileRequest } from './estimates.js';

describe('request profile', () => {
  it('does not load the tokenizer (this test runs before any count in this file)', () => {
    profileRequest(userRequest('Hello there'));
    assert.equal(Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('gpt-tokenizer')), false);
  });

  it('sizes prompts at 4 bytes of UTF-8 a token plus the chat framing, whatever their length', () => {
    for (const text of ['Summarise the routing engine in one sentence, please.', 'word '.repeat(2000)]) {
      assert.equal(profileRequest(userRequest(text)).promptTokens, Math.ceil(text.length / BYTES_PER_TOKEN) + 3 + 3);
    }
  });

  it('counts bytes, not characters, so CJK text is sized close to its o200k count', () => {
    const text = '人工智能是计算机科学的一个分支，它企图了解智能的实质，并生产出一种新的能以人类智能相似的方式做出反应的智能机器。';
    const estimated = profileRequest(userRequest(text)).promptTokens;
    const counted = countPromptTokens(userRequest(text));
    assert.equal(estimated, Math.ceil(Buffer.byteLength(text) / BYTES_PER_TOKEN) + 3 + 3);
    assert.ok(Math.abs(estimated - counted) / counted < 0.25, `estimated ${estimated}, o200k ${counted}`);
  });

  it('counts tool definitions and asks for tools', () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    const without = profileRequest(userRequest('Weather in Lima?'));
    const withTools = profileRequest(userRequest('Weather in Lima?', { tools }));
    assert.equal(withTools.needsTools, true);
    assert.equal(without.needsTools, false);
    assert.ok(withTools.promptTokens > without.promptTokens);
  });

  it('adds a fixed size per image and asks for vision', () => {
    const request: ChatRequest = {
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }],
    };
    const profile = profileRequest(request);
    assert.equal(profile.needsVision, true);
    assert.equal(profile.promptTokens, Math.ceil('What is this?'.length / BYTES_PER_TOKEN) + 3 + 3 + IMAGE_TOKENS);
  });

  it('takes max_completion_tokens over max_tokens', () => {
    assert.equal(profileRequest(userRequest('x', { max_tokens: 50, max_completion_tokens: 70 })).maxTokens, 70);
    assert.equal(profileRequest(userRequest('x', { max_tokens: 50 })).maxTokens, 50);
  });

  it('learns the answer length from the median of earlier assistant turns', () => {
    const request: ChatRequest = {
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'x'.repeat(400) },
        { role: 'user', content: 'b' },
        { role: 'assistant', content: 'x'.repeat(4000) },
        { role: 'user', content: 'c' },
        { role: 'assistant', content: 'x'.repeat(800) },
        { role: 'user', content: 'd' },
      ],
    };
    // 100, 1000 and 200 tokens at 4 characters a token: the median is 200.
    assert.equal(profileRequest(request).historyOutputTokens, 200);
  });
});

describe('expected output tokens', () => {
  const mid = fixtureModel('acme:mid');
  const tiny = fixtureModel('acme:tiny');
  it('defaults without history, capped by max_tokens and the model', () => {
    assert.equal(expectedOutputTokens(profileRequest(userRequest('hi')), mid), DEFAULT_OUTPUT_TOKENS);
    assert.equal(expectedOutputTokens(profileRequest(userRequest('hi', { max_tokens: 40 })), mid), 40);
    const long = { ...profileRequest(userRequest('hi')), historyOutputTokens: 5_000 };
    assert.equal(expectedOutputTokens(long, mid), 5_000);
    assert.equal(expectedOutputTokens(long, tiny), tiny.maxOutputTokens);
  });
});

describe('candidate estimates', () => {
  const mid = fixtureModel('acme:mid');
  const profile = profileRequest(userRequest('Hello there', { max_tokens: 100 }));

  it('prices the prompt at the list price (no cache hit known yet) and the expected output', () => {
    const estimate = estimateCandidate(mid, profile, undefined);
    const expected = (profile.promptTokens * 0.5 + 100 * 1.5) / 1e6;
    assert.ok(Math.abs(estimate.expectedCostUsd - expected) < 1e-12);
    assert.equal(estimate.outputTokens, 100);
  });

  it('applies the long-context tier the prompt crosses', () => {
    const tiered = { ...mid, pricing: { ...mid.pricing, tiers: [{ aboveInputTokens: 1_000, inputPerMTok: 5, outputPerMTok: 20 }] } };
    const long = profileRequest(userRequest('word '.repeat(2_000), { max_tokens: 10 }));
    assert.ok(long.promptTokens > 1_000);
    const expected = (long.promptTokens * 5 + 10 * 20) / 1e6;
    assert.ok(Math.abs(estimateCandidate(tiered, long, undefined).expectedCostUsd - expected) < 1e-12);
    assert.ok(Math.abs(estimateCandidate(tiered, profile, undefined).expectedCostUsd - (profile.promptTokens * 0.5 + 100 * 1.5) / 1e6) < 1e-12);
  });

  it('uses the catalog figures until health has measured the model', () => {
    const estimate = estimateCandidate(mid, profile, fakeHealth());
    assert.equal(estimate.latencySource, 'catalog');
    assert.equal(estimate.latencySamples, 0);
    assert.equal(estimate.expectedLatencyMs, 300 + (100 / 90) * 1000);
    assert.equal(estimate.expectedCarbonGrams, estimateCarbon(mid, 100, (100 / 90) * 1000).carbonGrams);
  });

  it('uses live moving averages once measured, each half on its own', () => {
    const measured = estimateCandidate(mid, profile, fakeHealth({ latency: new Map([['acme:mid', { ttftMs: 50, tokensPerSecond: 200, samples: 12 }]]) }));
    assert.equal(measured.latencySource, 'measured');
    assert.equal(measured.latencySamples, 12);
    assert.equal(measured.expectedLatencyMs, 50 + 500);
    // Streams only so far: the speed is still the catalog's.
    const half = estimateCandidate(mid, profile, fakeHealth({ latency: new Map([['acme:mid', { ttftMs: 50, tokensPerSecond: Number.NaN, samples: 3 }]]) }));
    assert.equal(half.expectedLatencyMs, 50 + (100 / 90) * 1000);
  });

  it('reads an owner-scoped health key first, then the model id', () => {
    const health = fakeHealth({ latency: new Map([['acme:mid', { ttftMs: 1000, tokensPerSecond: 100, samples: 9 }]]) });
    assert.equal(estimateCandidate(mid, profile, health, 'acme:mid|owner:usr_1').ttftMs, 1000);
  });
});
