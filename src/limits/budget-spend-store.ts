import type { Redis } from 'ioredis';
import type { BudgetPeriod, BudgetSubjectKind } from '../storage/budgets-repository.js';
import { periodEnd, periodStart } from './budget-period.js';

/** A key or a router whose spend is counted. */
export interface SpendSubject {
  readonly kind: BudgetSubjectKind;
  readonly id: string;
}

/** What a subject has spent in the current period, shared by every instance that uses the same store. */
export interface SpendStore {
  /** USD spent by `subject` in the period of `period` that holds `now`. */
  spent(subject: SpendSubject, period: BudgetPeriod, now: number): Promise<number>;
  /** Adds a request's real cost to the subject's current period. */
  charge(subject: SpendSubject, period: BudgetPeriod, amountUsd: number, now: number): Promise<void>;
}

/** Rebuilds a period's spend from the usage records in the database (usage-repository `spentSince`). */
export type SpendSource = (subject: SpendSubject, since: number) => Promise<number>;

/** The most period counters one process keeps before it starts over (each is re-seeded from the database). */
const MAX_LOCAL_COUNTERS = 100_000;

/**
 * Spend counted in this process, seeded once per period from the usage records
 * already in the database. Right for one instance; several instances without
 * Redis each see the database plus their own charges (docs/limits.md).
 */
export function createInProcessSpendStore(source: SpendSource): SpendStore {
  const counters = new Map<string, Promise<{ value: number }>>();
  const counter = (subject: SpendSubject, period: BudgetPeriod, now: number) => {
    const since = periodStart(period, now);
    const name = `${subject.kind}:${subject.id}:${period}:${since}`;
    let entry = counters.get(name);
    if (entry === undefined) {
      if (counters.size >= MAX_LOCAL_COUNTERS) counters.clear();
      entry = source(subject, since).then((value) => ({ value }));
      counters.set(name, entry);
      entry.catch(() => counters.delete(name));
    }
    return entry;
  };
  return {
    async spent(subject, period, now) {
      return (await counter(subject, period, now)).value;
    },
    async charge(subject, period, amountUsd, now) {
      (await counter(subject, period, now)).value += amountUsd;
    },
  };
}

/** Adds to a counter only if it exists, so a counter Redis lost is re-seeded rather than restarted at zero. */
const INCREMENT_IF_EXISTS = `if redis.call('exists', KEYS[1]) == 1 then return redis.call('incrbyfloat', KEYS[1], ARGV[1]) else return false end`;

export interface RedisSpendStoreOptions {
  readonly redis: Redis;
  /** Prefix of every key this store writes, e.g. `modelport:`. */
  readonly keyPrefix: string;
  readonly source: SpendSource;
}

/**
 * Spend shared by every instance through Redis: one counter per subject and
 * period (INCRBYFLOAT), created from the usage records in the database when it
 * is missing (first use in a period, or Redis lost it) and expiring a day after
 * its period ends.
 */
export function createRedisSpendStore(options: RedisSpendStoreOptions): SpendStore {
  const { redis, keyPrefix, source } = options;
  const keyOf = (subject: SpendSubject, period: BudgetPeriod, now: number) =>
    `${keyPrefix}budget:${subject.kind}:${subject.id}:${period}:${periodStart(period, now)}`;
  const seed = async (key: string, subject: SpendSubject, period: BudgetPeriod, now: number): Promise<void> => {
    const spent = await source(subject, periodStart(period, now));
    const ttlMs = periodEnd(period, now) - now + 86_400_000;
    // NX: when instances seed together, the first write wins and the rest keep it.
    await redis.set(key, String(spent), 'PX', ttlMs, 'NX');
  };
  return {
    async spent(subject, period, now) {
      const key = keyOf(subject, period, now);
      let value = await redis.get(key);
      if (value === null) {
        await seed(key, subject, period, now);
        value = await redis.get(key);
      }
      return Number(value ?? 0);
    },
    async charge(subject, period, amountUsd, now) {
      const key = keyOf(subject, period, now);
      const increment = () => redis.eval(INCREMENT_IF_EXISTS, 1, key, String(amountUsd));
      if ((await increment()) !== null) return;
      await seed(key, subject, period, now);
      await increment();
    },
  };
}

/**
 * The shared store while it answers, this process's own count when it does not
 * (Redis down or slow): a request never waits on Redis past its command timeout,
 * and spend charged meanwhile is still in the usage records the next seed reads.
 */
export function createFallbackSpendStore(primary: SpendStore, fallback: SpendStore, onError: (error: unknown) => void): SpendStore {
  return {
    async spent(subject, period, now) {
      try {
        return await primary.spent(subject, period, now);
      } catch (error) {
        onError(error);
        return fallback.spent(subject, period, now);
      }
    },
    async charge(subject, period, amountUsd, now) {
      await fallback.charge(subject, period, amountUsd, now);
      try {
        await primary.charge(subject, period, amountUsd, now);
      } catch (error) {
        onError(error);
      }
    },
  };
}
