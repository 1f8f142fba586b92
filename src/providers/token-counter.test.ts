import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countTokens } from 'gpt-tokenizer';
import { countTextTokens } from './token-counter.js';

describe('countTextTokens', () => {
  it('matches the tokenizer exactly on ordinary text, however long', () => {
    for (const text of ['', 'Hello', 'Hello there, how are you today?', 'The quick brown fox jumps over the lazy dog. '.repeat(500), 'emoji 👋 and ünïcödé '.repeat(300)]) {
      assert.equal(countTextTokens(text), text === '' ? 0 : countTokens(text));
    }
  });

  it('counts a long unbroken run in slices of at most 1,024 characters (linear; the tokenizer alone is quadratic: seconds for 50 KB)', { timeout: 60_000 }, () => {
    // The count is the sum over 1,024-character slices: what bounds the work. Without the slices the tokenizer would
    // run for hours on these and the watchdog timeout would end the test.
    for (const text of ['a'.repeat(500_000), '.'.repeat(500_000), 'é'.repeat(200_000)]) {
      let sliced = 0;
      for (let start = 0; start < text.length; start += 1024) sliced += countTokens(text.slice(start, start + 1024));
      assert.equal(countTextTokens(text), sliced);
    }
  });

  it('never splits a surrogate pair', () => {
    // 1023 ASCII characters then emoji: a naive cut at 1024 would split the first pair into two lone halves.
    const text = `${'a'.repeat(1023)}${'👋'.repeat(600)}`;
    assert.equal(countTextTokens(text), countTokens('a'.repeat(1023)) + countTokens('👋'.repeat(512)) + countTokens('👋'.repeat(88)));
  });
});
