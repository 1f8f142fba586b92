/**
 * Money in USD, one rule per purpose: amounts kept as data (a call's cost, the
 * sums of a report), amounts written for people (messages, CLI tables) and
 * estimates written for people (routing reasons). The dashboard's screen format,
 * in the reader's locale, is web/src/components/format.ts.
 */

/** An amount kept as data: rounded to 1e-10 USD, so float noise never shows up in totals. */
export function roundUsd(amount: number): number {
  return Math.round(amount * 1e10) / 1e10;
}

/** An amount's digits for people: two decimals from $1 up, at most six below it without trailing zeros (12.50, 0.5, 0.000123). */
export function usdDigits(amount: number): string {
  return amount >= 1 ? amount.toFixed(2) : amount.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}

/** An amount for people: `$` and `usdDigits` ($12.50, $0.5, $0.000123). */
export function formatUsd(amount: number): string {
  return `$${usdDigits(amount)}`;
}

/** An estimate for people: two significant digits and no exponent ($0.00012, $0.031, $1.20). */
export function formatUsdEstimate(amount: number): string {
  if (amount <= 0) return '$0';
  const decimals = Math.max(2, 1 - Math.floor(Math.log10(amount)));
  return `$${amount.toFixed(Math.min(decimals, 12))}`;
}
