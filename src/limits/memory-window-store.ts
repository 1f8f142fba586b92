import { SubjectLog } from './subject-log.js';
import type { WindowAdmission, WindowCheck, WindowEntry, WindowResult, WindowStore } from './window-store.js';

/** The in-process store (synchronous), with what the fleet store needs besides (mirroring and replay). */
export interface MemoryWindowStore extends WindowStore {
  admit(id: string, checks: readonly WindowCheck[], now: number): WindowAdmission;
  release(id: string, subjects: readonly string[], at?: number): void;
  adjust(id: string, subject: string, weight: number, at?: number): void;
  /** Adds the entry to every subject without checking (this instance's admissions made through Redis, kept for replay). */
  record(id: string, checks: readonly WindowCheck[], now: number): void;
  /** Every entry still inside its window: what this instance admitted, to replay into Redis. */
  entries(now: number): WindowEntry[];
  dropExpired(now: number): number | undefined;
}

/** Sweep every subject for emptied logs once per this many admissions, so idle subjects do not pile up. */
const SWEEP_EVERY = 10_000;
/** Fewer entries than this left after dropExpired are not worth another collection once they expire. */
const WORTH_COLLECTING = 10_000;

/**
 * Sliding logs in this process's memory: the embedded default (no REDIS_URL),
 * and each instance's own record of its admissions for Redis outages.
 * Synchronous, so an admission is atomic and costs no promise. An admission is O(1) amortised in the log's length;
 * a release or a correction O(log n) when given the admission time (O(n) without); an out-of-order insert O(n).
 * Each entry is an id and three numbers (subject-log.ts).
 */
export function createMemoryWindowStore(): MemoryWindowStore {
  const logs = new Map<string, SubjectLog>();
  let admissions = 0;

  /** Drops the subject's expired entries; undefined when nothing is left. */
  const live = (subject: string, now: number): SubjectLog | undefined => {
    const log = logs.get(subject);
    if (log === undefined) return undefined;
    log.expire(now);
    if (log.size > 0) return log;
    logs.delete(subject);
    return undefined;
  };

  const insert = (subject: string, id: string, check: WindowCheck, now: number): void => {
    let log = logs.get(subject);
    if (log === undefined) {
      log = new SubjectLog();
      logs.set(subject, log);
    }
    log.add(id, now, check.weight, check.windowMs);
  };

  const sweep = (now: number): void => {
    for (const subject of [...logs.keys()]) live(subject, now);
  };

  /** The sweep, and every log compacted (expiry leaves up to 1,024 dropped entries at the front), its storage shrunk. */
  const dropExpired = (now: number): number | undefined => {
    sweep(now);
    let held = 0;
    let until = now;
    for (const log of logs.values()) {
      log.compact();
      held += log.size;
      until = Math.max(until, log.newestExpiry());
    }
    return held < WORTH_COLLECTING ? undefined : until - now;
  };

  const admitNow = (id: string, checks: readonly WindowCheck[], now: number): WindowAdmission => {
    admissions += 1;
    if (admissions % SWEEP_EVERY === 0) sweep(now);
    const results = checks.map((check) => evaluate(check, live(check.subject, now), now));
    const allowed = results.every((result) => result.allowed);
    if (!allowed) return { allowed, results };
    for (const check of checks) insert(check.subject, id, check, now);
    return { allowed, results };
  };

  return {
    admit: admitNow,
    dropExpired,
    release(id, subjects, at) {
      for (const subject of subjects) {
        const log = logs.get(subject);
        const index = log?.find(id, at) ?? -1;
        if (log === undefined || index < 0) continue;
        log.remove(index);
        if (log.size === 0) logs.delete(subject);
      }
    },
    adjust(id, subject, weight, at) {
      const log = logs.get(subject);
      const index = log?.find(id, at) ?? -1;
      if (log !== undefined && index >= 0) log.reweigh(index, weight);
    },
    record(id, checks, now) {
      for (const check of checks) insert(check.subject, id, check, now);
    },
    entries(now) {
      const all: WindowEntry[] = [];
      for (const [subject, log] of logs) for (const entry of log.live(now)) all.push({ subject, ...entry });
      return all;
    },
  };
}

/** The check against a subject's live log. */
function evaluate(check: WindowCheck, log: SubjectLog | undefined, now: number): WindowResult {
  const used = log?.total ?? 0;
  const allowed = used + check.weight <= check.limit;
  if (allowed) {
    return { subject: check.subject, limit: check.limit, used: used + check.weight, resetMs: check.windowMs, retryAfterMs: 0, allowed };
  }
  // Refused: an empty log admits any weight within the limit, and a heavier one has no retry.
  const { retryAfterMs, resetMs } = log === undefined ? { retryAfterMs: Number.POSITIVE_INFINITY, resetMs: 0 } : log.waits(check.weight, check.limit, check.windowMs, now);
  return { subject: check.subject, limit: check.limit, used, resetMs, retryAfterMs, allowed };
}
