import { errors } from '../lib/errors.js';
import type { LimiterRejections } from '../observability/metrics.js';
import { createPromiseCache } from '../lib/promise-cache.js';
import type { BudgetRecord, BudgetsRepository, BudgetSubjectKind } from '../storage/budgets-repository.js';
import { periodEnd } from './budget-period.js';
import type { SpendStore } from './budget-spend-store.js';

/** The key and router a request spends on. */
export interface BudgetSubjects {
  readonly keyId: string;
  readonly routerId: string;
}

export interface BudgetGuard {
  /** Before the call: throws 429 `insufficient_quota` when the key's or the router's budget for the period is spent. */
  check(subjects: BudgetSubjects): Promise<void>;
  /** After the call: adds its real cost to the key's and the router's budgets (those that have one). */
  charge(keyId: string | null, routerId: string | null, costUsd: number): Promise<void>;
  /** Forgets cached budgets (the change watcher calls it). */
  invalidate(): void;
}

export interface BudgetGuardOptions {
  readonly budgets: BudgetsRepository;
  readonly spend: SpendStore;
  readonly now: () => number;
  /** A charge that could not be counted (it is still in the usage record, which re-seeds the counter). */
  readonly onError: (error: unknown) => void;
  /** Counts refusals (metrics). */
  readonly rejections?: LimiterRejections | undefined;
}

/**
 * Spend caps per key and per router, per UTC day or month. The check is made
 * before the call against the spend so far; the charge is the call's real cost
 * (streams included) once it is known. A request admitted under the cap always
 * completes, so concurrent requests admitted together can overshoot a budget by
 * at most their own cost (docs/limits.md).
 */
export function createBudgetGuard(options: BudgetGuardOptions): BudgetGuard {
  const { budgets, spend, now } = options;
  const cache = createPromiseCache<string, BudgetRecord | undefined>(100_000, (name) => {
    const [kind, id] = name.split('\u0000') as [BudgetSubjectKind, string];
    return budgets.find(kind, id);
  });
  const budgetOf = (kind: BudgetSubjectKind, id: string) => cache.get(`${kind}\u0000${id}`);

  const checkOne = async (budget: BudgetRecord | undefined, at: number): Promise<void> => {
    if (budget === undefined) return;
    const subject = { kind: budget.subjectKind, id: budget.subjectId };
    const spent = await spend.spent(subject, budget.period, at);
    if (spent < budget.amountUsd) return;
    options.rejections?.rejected('budget', budget.subjectKind);
    const resetsAt = periodEnd(budget.period, at);
    const who = budget.subjectKind === 'key' ? 'this API key' : `router ${budget.subjectId}`;
    throw errors.budgetExceeded(
      `Budget exceeded for ${who}: $${formatUsd(budget.amountUsd)} per ${budget.period} (UTC), $${formatUsd(spent)} spent. ` +
        `It resets at ${new Date(resetsAt).toISOString()}.`,
      { 'retry-after': String(Math.max(1, Math.ceil((resetsAt - at) / 1000))) },
    );
  };

  return {
    async check({ keyId, routerId }) {
      const [keyBudget, routerBudget] = await Promise.all([budgetOf('key', keyId), budgetOf('router', routerId)]);
      if (keyBudget === undefined && routerBudget === undefined) return;
      const at = now();
      await checkOne(keyBudget, at);
      await checkOne(routerBudget, at);
    },
    async charge(keyId, routerId, costUsd) {
      if (!(costUsd > 0)) return;
      const at = now();
      const owed = await Promise.all([keyId === null ? undefined : budgetOf('key', keyId), routerId === null ? undefined : budgetOf('router', routerId)]);
      await Promise.all(
        owed.map((budget) => (budget === undefined ? undefined : spend.charge({ kind: budget.subjectKind, id: budget.subjectId }, budget.period, costUsd, at))),
      );
    },
    invalidate: () => cache.clear(),
  };
}

function formatUsd(amount: number): string {
  return amount >= 1 ? amount.toFixed(2) : amount.toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * Charges a finished call's cost and never throws: a charge that fails is
 * reported and the request still completes (its usage record re-seeds counters).
 */
export async function chargeQuietly(guard: BudgetGuard | undefined, keyId: string | undefined, routerId: string | undefined, costUsd: number, onError: (error: unknown) => void): Promise<void> {
  if (guard === undefined || !(costUsd > 0)) return;
  try {
    await guard.charge(keyId ?? null, routerId ?? null, costUsd);
  } catch (error) {
    onError(error);
  }
}
