import type { BudgetPeriod, BudgetRecord, BudgetSubjectKind } from '../storage/budgets-repository.js';
import type { Repositories } from '../storage/repositories.js';
import type { UserRow } from '../storage/schema.js';
import { AdminInputError } from './admin-errors.js';

/** A budget as given by a person: an amount in USD and a period; `null` amount removes it. */
export interface BudgetInput {
  readonly amountUsd: number | null;
  /** @default "month" */
  readonly period?: BudgetPeriod | undefined;
}

/** The largest budget accepted: beyond it a cap is no cap. */
const MAX_BUDGET_USD = 1_000_000_000;

/**
 * `--budget-usd X` and `--budget-period day|month` as typed: "none" removes the
 * budget; the period alone is a mistake. Undefined when neither flag was given.
 */
export function parseBudgetFlags(amountText: string | undefined, periodText: string | undefined): BudgetInput | undefined {
  if (amountText === undefined) {
    if (periodText !== undefined) throw new AdminInputError('--budget-period needs --budget-usd.');
    return undefined;
  }
  const period = periodText === undefined ? undefined : parseBudgetPeriod(periodText);
  if (amountText.trim().toLowerCase() === 'none') return { amountUsd: null, period };
  const amount = /^\d+(\.\d+)?$/.test(amountText.trim()) ? Number(amountText.trim()) : Number.NaN;
  return { amountUsd: checkBudgetAmount(amount), period };
}

export function parseBudgetPeriod(text: string): BudgetPeriod {
  const period = text.trim().toLowerCase();
  if (period !== 'day' && period !== 'month') throw new AdminInputError(`--budget-period must be "day" or "month" (UTC calendar periods), not "${text}".`);
  return period;
}

export function checkBudgetAmount(amount: number): number {
  if (!Number.isFinite(amount) || amount <= 0 || amount > MAX_BUDGET_USD) {
    throw new AdminInputError(`A budget is an amount in USD above 0 and at most ${MAX_BUDGET_USD} (e.g. --budget-usd 25 or 0.50), or "none" to remove it.`);
  }
  return amount;
}

/** Setting and reading the spend caps of an owner's keys and routers. */
export function createBudgetAdmin(repositories: Repositories, ownerByEmail: (email: string) => Promise<UserRow>) {
  const checkOwned = async (ownerEmail: string, kind: BudgetSubjectKind, id: string): Promise<void> => {
    const owner = await ownerByEmail(ownerEmail);
    const owned =
      kind === 'key'
        ? (await repositories.apiKeys.listByOwner(owner.id)).some((key) => key.id === id)
        : (await repositories.routers.findById(id))?.ownerId === owner.id;
    if (!owned) throw new AdminInputError(`No ${kind} ${id} belongs to ${ownerEmail}.`);
  };

  return {
    /** Sets, replaces or (amount null) removes the budget of a key or router; returns what is in force. */
    async setBudget(ownerEmail: string, kind: BudgetSubjectKind, id: string, input: BudgetInput): Promise<BudgetRecord | undefined> {
      await checkOwned(ownerEmail, kind, id);
      if (input.amountUsd === null) {
        await repositories.budgets.remove(kind, id);
        return undefined;
      }
      const current = await repositories.budgets.find(kind, id);
      return repositories.budgets.set(kind, id, checkBudgetAmount(input.amountUsd), input.period ?? current?.period ?? 'month');
    },
    async findBudget(kind: BudgetSubjectKind, id: string): Promise<BudgetRecord | undefined> {
      return repositories.budgets.find(kind, id);
    },
  };
}

/** "$25 per month (UTC)", for summaries. */
export function describeBudget(budget: BudgetRecord | undefined): string {
  return budget === undefined ? 'no budget' : `budget $${budget.amountUsd} per ${budget.period} (UTC)`;
}
