import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatUsd, formatUsdEstimate, roundUsd, usdDigits } from './money.js';

describe('money', () => {
  it('roundUsd keeps 1e-10 USD and drops float noise', () => {
    assert.equal(roundUsd(0.1 + 0.2), 0.3);
    assert.equal(roundUsd(0.00000000012345), 0.0000000001);
    assert.equal(roundUsd(2.00000000004), 2);
    assert.equal(roundUsd(2.00000000006), 2.0000000001);
    assert.equal(roundUsd(0), 0);
  });

  it('usdDigits and formatUsd: two decimals from $1, at most six below without trailing zeros', () => {
    assert.equal(usdDigits(12.5), '12.50');
    assert.equal(usdDigits(1), '1.00');
    assert.equal(usdDigits(0.5), '0.5');
    assert.equal(usdDigits(0.000123456), '0.000123');
    assert.equal(usdDigits(0.0000001), '0');
    assert.equal(usdDigits(0), '0');
    assert.equal(formatUsd(0.25), '$0.25');
    assert.equal(formatUsd(1500), '$1500.00');
  });

  it('formatUsdEstimate shows two significant digits without an exponent', () => {
    assert.equal(formatUsdEstimate(0.000123), '$0.00012');
    assert.equal(formatUsdEstimate(0.0312), '$0.031');
    assert.equal(formatUsdEstimate(1.2), '$1.20');
    assert.equal(formatUsdEstimate(0), '$0');
    assert.equal(formatUsdEstimate(1e-9), '$0.0000000010');
  });
});
