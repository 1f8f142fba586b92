import type { BudgetPeriod } from '../storage/budgets-repository.js';

/** Start of the UTC calendar day or month that holds `at` (epoch ms). */
export function periodStart(period: BudgetPeriod, at: number): number {
  const date = new Date(at);
  return period === 'day'
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate())
    : Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** Start of the next UTC day or month: when a budget of that period resets. */
export function periodEnd(period: BudgetPeriod, at: number): number {
  const date = new Date(at);
  return period === 'day'
    ? Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate() + 1)
    : Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}
