/** Display helpers: money, counts, times, in the user's locale. */

const toDate = (value: number | string): Date => new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  if (value === 0) return '$0';
  if (Math.abs(value) < 0.01) return `$${value.toPrecision(2)}`;
  return new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: 2 }).format(value);
}

/** Price per million tokens, e.g. `$0.15`. */
export function formatPrice(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return `$${value < 1 ? value.toFixed(3).replace(/0$/, '') : value.toFixed(2)}`;
}

export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return new Intl.NumberFormat(undefined, { notation: value >= 100_000 ? 'compact' : 'standard', maximumFractionDigits: 1 }).format(value);
}

/** A count with its noun, singular for exactly one: `1 error`, `3 errors`, `1.2M requests`. */
export function formatCountOf(value: number | null | undefined, singular: string, plural = `${singular}s`): string {
  return `${formatCount(value)} ${value === 1 ? singular : plural}`;
}

export function formatGrams(value: number | null | undefined): string {
  return withUnit(value, [[1000, 'kg'], [1, 'g'], [1e-3, 'mg'], [1e-6, 'µg']]);
}

/** Watt-hours with the unit that keeps them readable: 1.23 kWh, 4.5 Wh, 12 mWh. */
export function formatEnergy(value: number | null | undefined): string {
  return withUnit(value, [[1000, 'kWh'], [1, 'Wh'], [1e-3, 'mWh'], [1e-6, 'µWh']]);
}

/** Three significant digits in the largest unit the value reaches (the smallest unit below that). */
function withUnit(value: number | null | undefined, units: readonly (readonly [number, string])[]): string {
  if (value === null || value === undefined) return '—';
  if (value === 0) return `0 ${units.find(([scale]) => scale === 1)?.[1] ?? ''}`.trim();
  const [scale, unit] = units.find(([factor]) => Math.abs(value) >= factor) ?? units[units.length - 1] ?? [1, ''];
  return `${Number((value / scale).toPrecision(3))} ${unit}`;
}

export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}

export function formatTokens(value: number | null | undefined): string {
  if (value === null || value === undefined) return '—';
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(value % 1_000_000 === 0 ? 0 : 1)}M`;
  if (value >= 1000) return `${Math.round(value / 1000)}k`;
  return String(value);
}

export function formatDateTime(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return toDate(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDate(value: number | string | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return toDate(value).toLocaleDateString(undefined, { dateStyle: 'medium' });
}

/** "3 minutes ago", "in 5 days". */
export function formatRelative(value: number | string | null | undefined, now: number = Date.now()): string {
  if (value === null || value === undefined) return 'never';
  const seconds = Math.round((toDate(value).getTime() - now) / 1000);
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const units: readonly [Intl.RelativeTimeFormatUnit, number][] = [
    ['year', 31_536_000],
    ['month', 2_592_000],
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return format.format(seconds, 'second');
}

export const toEpochMs = (value: number | string): number => toDate(value).getTime();
