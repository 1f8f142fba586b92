import type { Kysely } from 'kysely';
import { bumpChangeCounter } from './changes-repository.js';
import type { BudgetRow, Database } from './schema.js';

export type BudgetSubjectKind = 'key' | 'router';
export type BudgetPeriod = 'day' | 'month';

/** A spend cap in USD over a UTC calendar day or month. */
export interface BudgetRecord {
  readonly subjectKind: BudgetSubjectKind;
  readonly subjectId: string;
  readonly amountUsd: number;
  readonly period: BudgetPeriod;
  readonly updatedAt: number;
}

function toRecord(row: BudgetRow): BudgetRecord {
  return {
    subjectKind: row.subject_kind === 'router' ? 'router' : 'key',
    subjectId: row.subject_id,
    amountUsd: row.amount_usd,
    period: row.period === 'month' ? 'month' : 'day',
    updatedAt: row.updated_at,
  };
}

/** Budgets of keys and routers. Every write bumps the change counter, so running servers reload them. */
export function createBudgetsRepository(db: Kysely<Database>, now: () => number) {
  return {
    async list(): Promise<BudgetRecord[]> {
      return (await db.selectFrom('budgets').selectAll().execute()).map(toRecord);
    },
    async find(kind: BudgetSubjectKind, id: string): Promise<BudgetRecord | undefined> {
      const row = await db.selectFrom('budgets').selectAll().where('subject_kind', '=', kind).where('subject_id', '=', id).executeTakeFirst();
      return row === undefined ? undefined : toRecord(row);
    },
    /** Sets (or replaces) the budget of a key or router. */
    async set(kind: BudgetSubjectKind, id: string, amountUsd: number, period: BudgetPeriod): Promise<BudgetRecord> {
      const time = now();
      await db.transaction().execute(async (trx) => {
        await trx
          .insertInto('budgets')
          .values({ subject_kind: kind, subject_id: id, amount_usd: amountUsd, period, created_at: time, updated_at: time })
          .onConflict((conflict) => conflict.columns(['subject_kind', 'subject_id']).doUpdateSet({ amount_usd: amountUsd, period, updated_at: time }))
          .execute();
        await bumpChangeCounter(trx);
      });
      return { subjectKind: kind, subjectId: id, amountUsd, period, updatedAt: time };
    },
    /** Removes a budget; true when there was one. */
    async remove(kind: BudgetSubjectKind, id: string): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        const result = await trx.deleteFrom('budgets').where('subject_kind', '=', kind).where('subject_id', '=', id).executeTakeFirst();
        await bumpChangeCounter(trx);
        return Number(result.numDeletedRows) > 0;
      });
    },
  };
}

export type BudgetsRepository = ReturnType<typeof createBudgetsRepository>;
