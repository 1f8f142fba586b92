import type { RedisLink } from '../storage/redis-link.js';
import type { MemoryWindowStore } from './memory-window-store.js';
import type { RedisWindowStore } from './redis-window-store.js';
import type { WindowAdmission, WindowCheck, WindowStore } from './window-store.js';

export interface FleetWindowStoreOptions {
  readonly shared: RedisWindowStore;
  /** This instance's own admissions (always mirrored), and its log while Redis is down. */
  readonly local: MemoryWindowStore;
  readonly link: RedisLink;
  /** The most instances live at any moment within the last `spanMs` (instance-registry.ts). */
  readonly fleetSize: (spanMs: number) => number;
  readonly now: () => number;
}

/**
 * Shared limits with a safe mode (docs/limits.md). While Redis is up every
 * admission goes through Redis and is mirrored in this instance's memory.
 * When Redis goes down:
 *  1. For one window after the outage began (plus a second for commands that
 *     were in flight), requests are refused with 503: entries other instances
 *     made in Redis are unknown here, so nothing could be admitted safely.
 *  2. After that every pre-outage entry has left the window, and each instance
 *     admits at most ⌊limit ÷ n⌋ in its own log, n being the most instances live
 *     in the last window: across the fleet no subject exceeds its limit.
 * When Redis is back, each instance replays its remembered entries (and the
 * releases and corrections it could not send) before using Redis again, so
 * Redis holds every admission still inside the window.
 */
export function createFleetWindowStore(options: FleetWindowStoreOptions): WindowStore {
  const { shared, local, link, now } = options;
  const pending: Array<() => Promise<void>> = [];

  link.onRecover(async () => {
    const at = now();
    await shared.replay(local.entries(at), at);
    while (pending.length > 0) {
      const operation = pending[0] as () => Promise<void>;
      await operation();
      pending.shift();
    }
  });

  const safeAdmit = async (id: string, checks: readonly WindowCheck[], at: number): Promise<WindowAdmission> => {
    const windowMs = Math.max(...checks.map((check) => check.windowMs));
    const refusingUntil = (link.downSince() ?? at) + windowMs + 1000;
    if (at < refusingUntil) return { allowed: false, results: [], unavailableMs: refusingUntil - at };
    const instances = options.fleetSize(windowMs);
    const shares = checks.map((check) => ({ ...check, limit: Math.floor(check.limit / instances) }));
    return local.admit(id, shares, at);
  };

  const orQueue = async (operation: () => Promise<void>): Promise<void> => {
    if (!link.isUp()) {
      // Bounded: past this, stale entries simply expire with their window or lease.
      if (pending.length < 100_000) pending.push(operation);
      return;
    }
    try {
      await operation();
    } catch (error) {
      link.reportFailure(error);
      pending.push(operation);
    }
  };

  return {
    async admit(id, checks, at) {
      if (checks.length === 0) return { allowed: true, results: [] };
      if (link.isUp()) {
        try {
          const admission = await shared.admit(id, checks, at);
          if (admission.allowed) local.record(id, checks, at);
          return admission;
        } catch (error) {
          link.reportFailure(error);
        }
      }
      return safeAdmit(id, checks, at);
    },
    async release(id, subjects, at) {
      local.release(id, subjects, at);
      await orQueue(() => shared.release(id, subjects));
    },
    async adjust(id, subject, weight, at) {
      local.adjust(id, subject, weight, at);
      await orQueue(() => shared.adjust(id, subject, weight));
    },
    // This instance's own record (for replay and the safe mode); Redis expires its logs itself.
    dropExpired: (at) => local.dropExpired(at),
  };
}
