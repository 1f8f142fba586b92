import { checkBudgetAmount, parseBudgetPeriod, type BudgetInput } from '../admin/budget-admin.js';
import type { BudgetRecord } from '../storage/budgets-repository.js';
import type { BudgetView } from './dashboard-api-types.js';

/** A budget as the dashboard API takes it: `{usd, period?}` sets it, `null` removes it. */
export interface BudgetBody {
  readonly usd: number;
  readonly period?: string | undefined;
}

/**
 * A budget from the dashboard, checked by the CLI's own rules and messages (src/admin/budget-admin.ts) before
 * anything is written, so a refused budget never leaves a half-made key or router behind. Undefined: not given.
 */
export function budgetInput(body: BudgetBody | null | undefined): BudgetInput | undefined {
  if (body === undefined) return undefined;
  if (body === null) return { amountUsd: null };
  return { amountUsd: checkBudgetAmount(body.usd), period: body.period === undefined ? undefined : parseBudgetPeriod(body.period) };
}

export function budgetView(budget: BudgetRecord | undefined): BudgetView | null {
  return budget === undefined ? null : { usd: budget.amountUsd, period: budget.period };
}
