import type { WindowAdmission, WindowCheck, WindowEntry, WindowResult, WindowStore } from './window-store.js';

interface LogEntry {
  readonly id: string;
  readonly at: number;
  weight: number;
  readonly windowMs: number;
}

/** The in-process store, with what the fleet store needs besides (mirroring and replay). */
export interface MemoryWindowStore extends WindowStore {
  /** Adds the entry to every subject without checking (this instance's admissions made through Redis, kept for replay). */
  record(id: string, checks: readonly WindowCheck[], now: number): void;
  /** Every entry still inside its window: what this instance admitted, to replay into Redis. */
  entries(now: number): WindowEntry[];
}

/** Sweep every subject for emptied logs once per this many admissions, so idle subjects do not pile up. */
const SWEEP_EVERY = 10_000;

/**
 * Sliding logs in this process's memory: the embedded default (no REDIS_URL),
 * and each instance's own record of its admissions for Redis outages.
 * Synchronous inside, so an admission is atomic.
 */
export function createMemoryWindowStore(): MemoryWindowStore {
  const logs = new Map<string, LogEntry[]>();
  let admissions = 0;

  const live = (subject: string, now: number): LogEntry[] => {
    const log = logs.get(subject);
    if (log === undefined) return [];
    let expired = 0;
    // An entry at t is inside the window (now - windowMs, now] until now = t + windowMs.
    while (expired < log.length && (log[expired] as LogEntry).at <= now - (log[expired] as LogEntry).windowMs) expired += 1;
    if (expired > 0) log.splice(0, expired);
    if (log.length === 0) logs.delete(subject);
    return log;
  };

  const insert = (subject: string, entry: LogEntry): void => {
    let log = logs.get(subject);
    if (log === undefined) {
      log = [];
      logs.set(subject, log);
    }
    const existing = log.findIndex((candidate) => candidate.id === entry.id);
    if (existing >= 0) log.splice(existing, 1);
    // Kept in time order; an injected clock may step back, so insert in place.
    let index = log.length;
    while (index > 0 && (log[index - 1] as LogEntry).at > entry.at) index -= 1;
    log.splice(index, 0, entry);
  };

  const sweep = (now: number): void => {
    for (const subject of [...logs.keys()]) live(subject, now);
  };

  return {
    async admit(id: string, checks: readonly WindowCheck[], now: number): Promise<WindowAdmission> {
      admissions += 1;
      if (admissions % SWEEP_EVERY === 0) sweep(now);
      const results = checks.map((check) => evaluate(check, live(check.subject, now), now));
      const allowed = results.every((result) => result.allowed);
      if (!allowed) return { allowed, results };
      for (const check of checks) insert(check.subject, { id, at: now, weight: check.weight, windowMs: check.windowMs });
      return { allowed, results };
    },
    async release(id, subjects) {
      for (const subject of subjects) {
        const log = logs.get(subject);
        const index = log?.findIndex((entry) => entry.id === id) ?? -1;
        if (log !== undefined && index >= 0) log.splice(index, 1);
        if (log?.length === 0) logs.delete(subject);
      }
    },
    async adjust(id, subject, weight) {
      const entry = logs.get(subject)?.find((candidate) => candidate.id === id);
      if (entry !== undefined) entry.weight = weight;
    },
    record(id, checks, now) {
      for (const check of checks) insert(check.subject, { id, at: now, weight: check.weight, windowMs: check.windowMs });
    },
    entries(now) {
      const all: WindowEntry[] = [];
      for (const [subject, log] of logs) {
      for (const entry of log) if (entry.at > now - entry.windowMs) all.push({ subject, id: entry.id, at: entry.at, weight: entry.weight, windowMs: entry.windowMs });
      }
      return all;
    },
  };
}

/** The check against a subject's live log (oldest first). */
function evaluate(check: WindowCheck, log: readonly LogEntry[], now: number): WindowResult {
  const used = log.reduce((sum, entry) => sum + entry.weight, 0);
  const allowed = used + check.weight <= check.limit;
  const newest = log[log.length - 1];
  if (allowed) {
    return { subject: check.subject, limit: check.limit, used: used + check.weight, resetMs: check.windowMs, retryAfterMs: 0, allowed };
  }
  let retryAfterMs = Number.POSITIVE_INFINITY;
  if (check.weight <= check.limit) {
    let freed = 0;
    for (const entry of log) {
      freed += entry.weight;
      if (used - freed + check.weight <= check.limit) {
        retryAfterMs = entry.at + check.windowMs - now;
        break;
      }
    }
  }
  const resetMs = newest === undefined ? 0 : newest.at + check.windowMs - now;
  return { subject: check.subject, limit: check.limit, used, resetMs, retryAfterMs, allowed };
}
