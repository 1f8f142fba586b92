import { errors } from '../lib/errors.js';
import type { LimiterRejections } from '../observability/metrics.js';
import { thenMaybe, type MaybePromise } from '../lib/maybe-promise.js';
import { createPromiseCache } from '../lib/promise-cache.js';
import { formatUsd } from '../lib/money.js';
import type { BudgetRecord, BudgetsRepository, BudgetSubjectKind } from '../storage/budgets-repository.js';
import { periodEnd } from './budget-period.js';
import type { SpendStore } from './budget-spend-store.js';

/** The key and router a request spends on. */
export interface BudgetSubjects {
  readonly keyId: string;
  readonly routerId: string;
}

export interface BudgetGuard {
  /**
   * Before the call: throws 429 `insufficient_quota` when the key's or the router's budget for the period is spent.
   * Synchronous (no promise) when neither has a budget and both lookups are cached: the common request.
   */
  check(subjects: BudgetSubjects): MaybePromise<void>;
  /** After the call: adds its real cost to the key's and the router's budgets (those that have one); synchronous like `check` when there are none. */
  charge(keyId: string | null, routerId: string | null, costUsd: number): MaybePromise<void>;
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
  type Budgets = readonly [BudgetRecord | undefined, BudgetRecord | undefined];
  /** The key's and the router's budgets: a pair now when both are cached, a promise of it otherwise. */
  const budgetsOf = (keyId: string | null, routerId: string | null): MaybePromise<Budgets> => {
    const keyBudget = keyId === null ? undefined : budgetOf('key', keyId);
    const routerBudget = routerId === null ? undefined : budgetOf('router', routerId);
    return keyBudget instanceof Promise || routerBudget instanceof Promise ? Promise.all([keyBudget, routerBudget]) : [keyBudget, routerBudget];
  };

  const checkOne = async (budget: BudgetRecord | undefined, at: number): Promise<void> => {
    if (budget === undefined) return;
    const subject = { kind: budget.subjectKind, id: budget.subjectId };
    const spent = await spend.spent(subject, budget.period, at);
    if (spent < budget.amountUsd) return;
    options.rejections?.rejected('budget', budget.subjectKind);
    const resetsAt = periodEnd(budget.period, at);
    const who = budget.subjectKind === 'key' ? 'this API key' : `router ${budget.subjectId}`;
    throw errors.budgetExceeded(
      `Budget exceeded for ${who}: ${formatUsd(budget.amountUsd)} per ${budget.period} (UTC), ${formatUsd(spent)} spent. ` +
        `It resets at ${new Date(resetsAt).toISOString()}.`,
      { 'retry-after': String(Math.max(1, Math.ceil((resetsAt - at) / 1000))) },
    );
  };

  const checkBoth = async (keyBudget: BudgetRecord | undefined, routerBudget: BudgetRecord | undefined, at: number): Promise<void> => {
    await checkOne(keyBudget, at);
    await checkOne(routerBudget, at);
  };

  return {
    check({ keyId, routerId }) {
      return thenMaybe(budgetsOf(keyId, routerId), ([keyBudget, routerBudget]) =>
        keyBudget === undefined && routerBudget === undefined ? undefined : checkBoth(keyBudget, routerBudget, now()),
      );
    },
    charge(keyId, routerId, costUsd) {
      if (!(costUsd > 0)) return;
      const at = now();
      return thenMaybe(budgetsOf(keyId, routerId), (owed) => {
        const charges = owed.flatMap((budget) => (budget === undefined ? [] : [spend.charge({ kind: budget.subjectKind, id: budget.subjectId }, budget.period, costUsd, at)]));
        return charges.length === 0 ? undefined : Promise.all(charges).then(() => undefined);
      });
    },
    invalidate: () => cache.clear(),
  };
}

/**
 * Charges a finished call's cost and never throws: a charge that fails is
 * reported and the request still completes (its usage record re-seeds counters).
 * A promise only when there is something to wait for (a budget to charge, or a lookup not yet cached).
 */
export function chargeQuietly(guard: BudgetGuard | undefined, keyId: string | undefined, routerId: string | undefined, costUsd: number, onError: (error: unknown) => void): MaybePromise<void> {
  if (guard === undefined || !(costUsd > 0)) return;
  try {
    const charged = guard.charge(keyId ?? null, routerId ?? null, costUsd);
    return charged instanceof Promise ? charged.catch(onError) : undefined;
  } catch (error) {
    onError(error);
    return undefined;
  }
}
