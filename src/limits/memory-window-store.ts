import type { WindowAdmission, WindowCheck, WindowEntry, WindowResult, WindowStore } from './window-store.js';

interface LogEntry {
  readonly id: string;
  readonly at: number;
  weight: number;
  readonly windowMs: number;
}

/**
 * One subject's sliding log. Every request of a busy key is an entry for a
 * whole window (120,000 at 2,000 req/s), so nothing per admission may walk the
 * log: the live entries are `entries[head…]` in time order (expiry moves `head`,
 * and the array is compacted now and then), their weights are summed in `total`,
 * and `byId` finds an entry to release or correct without a search.
 */
interface SubjectLog {
  entries: LogEntry[];
  head: number;
  total: number;
  readonly byId: Map<string, LogEntry>;
}

/** The in-process store (synchronous), with what the fleet store needs besides (mirroring and replay). */
export interface MemoryWindowStore extends WindowStore {
  admit(id: string, checks: readonly WindowCheck[], now: number): WindowAdmission;
  release(id: string, subjects: readonly string[]): void;
  adjust(id: string, subject: string, weight: number): void;
  /** Adds the entry to every subject without checking (this instance's admissions made through Redis, kept for replay). */
  record(id: string, checks: readonly WindowCheck[], now: number): void;
  /** Every entry still inside its window: what this instance admitted, to replay into Redis. */
  entries(now: number): WindowEntry[];
  dropExpired(now: number): void;
}

/** Sweep every subject for emptied logs once per this many admissions, so idle subjects do not pile up. */
const SWEEP_EVERY = 10_000;
/** Expired entries are dropped from the front of a log's array once this many have piled up (and at least half of it). */
const COMPACT_AFTER = 1_024;

/**
 * Sliding logs in this process's memory: the embedded default (no REDIS_URL),
 * and each instance's own record of its admissions for Redis outages.
 * Synchronous, so an admission is atomic and costs no promise; every operation is O(1)
 * amortised in the log's length, except a release or an out-of-order insert.
 */
export function createMemoryWindowStore(): MemoryWindowStore {
  const logs = new Map<string, SubjectLog>();
  let admissions = 0;

  /** Drops the subject's expired entries; undefined when nothing is left. */
  const live = (subject: string, now: number): SubjectLog | undefined => {
    const log = logs.get(subject);
    if (log === undefined) return undefined;
    const { entries } = log;
    // An entry at t is inside the window (now - windowMs, now] until now = t + windowMs.
    while (log.head < entries.length) {
      const entry = entries[log.head] as LogEntry;
      if (entry.at > now - entry.windowMs) break;
      log.total -= entry.weight;
      log.byId.delete(entry.id);
      log.head += 1;
    }
    if (log.head === entries.length) {
      logs.delete(subject);
      return undefined;
    }
    if (log.head >= COMPACT_AFTER && log.head * 2 >= entries.length) {
      log.entries = entries.slice(log.head);
      log.head = 0;
    }
    return log;
  };

  const remove = (log: SubjectLog, entry: LogEntry): void => {
    log.byId.delete(entry.id);
    log.total -= entry.weight;
    const index = log.entries.lastIndexOf(entry);
    if (index >= log.head) log.entries.splice(index, 1);
  };

  const insert = (subject: string, entry: LogEntry): void => {
    let log = logs.get(subject);
    if (log === undefined) {
      log = { entries: [], head: 0, total: 0, byId: new Map() };
      logs.set(subject, log);
    }
    const existing = log.byId.get(entry.id);
    if (existing !== undefined) remove(log, existing);
    log.byId.set(entry.id, entry);
    log.total += entry.weight;
    const { entries } = log;
    // Kept in time order; an injected clock may step back, so insert in place.
    let index = entries.length;
    while (index > log.head && (entries[index - 1] as LogEntry).at > entry.at) index -= 1;
    if (index === entries.length) entries.push(entry);
    else entries.splice(index, 0, entry);
  };

  const sweep = (now: number): void => {
    for (const subject of [...logs.keys()]) live(subject, now);
  };

  /** The sweep, and every log's expired entries let go of (`live` slices them off only once 1,024 have piled up). */
  const dropExpired = (now: number): void => {
    sweep(now);
    for (const log of logs.values()) {
      if (log.head === 0) continue;
      log.entries = log.entries.slice(log.head);
      log.head = 0;
    }
  };

  const admitNow = (id: string, checks: readonly WindowCheck[], now: number): WindowAdmission => {
    admissions += 1;
    if (admissions % SWEEP_EVERY === 0) sweep(now);
    const results = checks.map((check) => evaluate(check, live(check.subject, now), now));
    const allowed = results.every((result) => result.allowed);
    if (!allowed) return { allowed, results };
    for (const check of checks) insert(check.subject, { id, at: now, weight: check.weight, windowMs: check.windowMs });
    return { allowed, results };
  };

  return {
    admit: admitNow,
    dropExpired,
    release(id, subjects) {
      for (const subject of subjects) {
        const log = logs.get(subject);
        const entry = log?.byId.get(id);
        if (log === undefined || entry === undefined) continue;
        remove(log, entry);
        if (log.byId.size === 0) logs.delete(subject);
      }
    },
    adjust(id, subject, weight) {
      const log = logs.get(subject);
      const entry = log?.byId.get(id);
      if (log === undefined || entry === undefined) return;
      log.total += weight - entry.weight;
      entry.weight = weight;
    },
    record(id, checks, now) {
      for (const check of checks) insert(check.subject, { id, at: now, weight: check.weight, windowMs: check.windowMs });
    },
    entries(now) {
      const all: WindowEntry[] = [];
      for (const [subject, log] of logs) {
        for (let index = log.head; index < log.entries.length; index += 1) {
          const entry = log.entries[index] as LogEntry;
          if (entry.at > now - entry.windowMs) all.push({ subject, id: entry.id, at: entry.at, weight: entry.weight, windowMs: entry.windowMs });
        }
      }
      return all;
    },
  };
}

/** The check against a subject's live log (oldest first). */
function evaluate(check: WindowCheck, log: SubjectLog | undefined, now: number): WindowResult {
  const used = log?.total ?? 0;
  const allowed = used + check.weight <= check.limit;
  if (allowed) {
    return { subject: check.subject, limit: check.limit, used: used + check.weight, resetMs: check.windowMs, retryAfterMs: 0, allowed };
  }
  // Refused: the log is not empty (an empty one admits any weight within the limit, and a heavier one has no retry).
  let retryAfterMs = Number.POSITIVE_INFINITY;
  let resetMs = 0;
  if (log !== undefined) {
    const { entries } = log;
    if (check.weight <= check.limit) {
      let freed = 0;
      for (let index = log.head; index < entries.length; index += 1) {
        const entry = entries[index] as LogEntry;
        freed += entry.weight;
        if (used - freed + check.weight <= check.limit) {
          retryAfterMs = entry.at + check.windowMs - now;
          break;
        }
      }
    }
    const newest = entries[entries.length - 1] as LogEntry;
    resetMs = newest.at + check.windowMs - now;
  }
  return { subject: check.subject, limit: check.limit, used, resetMs, retryAfterMs, allowed };
}
