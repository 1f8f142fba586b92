import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadGlibcMalloc } from './glibc-malloc.js';
import type { RequestActivity } from './request-activity.js';

/**
 * The event loop busy for more than this share of `idleMs` counts as work, not idleness. Measured over the quiet period
 * so far rather than each check interval alone: the upstream connections a load opened close on their own after their
 * keep-alive time, one short burst of work that would otherwise restart the wait just before the collection was due.
 */
const BUSY_SHARE = 0.02;
/** The committed heap must have grown by this much since the last collection for another one to be worth its pause. */
const GROWTH_BYTES = 16 * 1024 * 1024;
/**
 * Quiet time after the full collection before the young one. V8 shrinks the young generation after a collection only
 * when its recent allocation rate is low, and right after a load the rate it remembers is the load's.
 */
const YOUNG_DELAY_MS = 5_000;

export interface IdleCollectorOptions {
  /** How long the process must have been idle before it collects (MODELPORT_IDLE_COLLECT_MS). */
  readonly idleMs: number;
  /** How often idleness is checked. @default a fifth of idleMs, at most 5 s */
  readonly checkMs?: number;
  /**
   * Called once a quiet period has lasted `idleMs`, before the collection is decided (again only after more work):
   * what the process can let go of then (the rate limits' expired entries) is garbage for that collection. It may
   * return in how many ms more of it will be garbage (the entries of the last window before the quiet, once that has
   * passed): if the process is still quiet then, it is called again and a collection follows, however little the heap
   * grew.
   */
  readonly onIdle?: () => number | undefined;
  /** Told after each full collection: committed heap before and after, and how long the collection took. */
  readonly onCollected?: (collection: { readonly heapBeforeBytes: number; readonly heapAfterBytes: number; readonly ms: number }) => void;
}

/** What the collector reads and does; the process's own by default (tests pass their own). */
export interface IdleCollectorProbe {
  /** A full, synchronous garbage collection that compacts the old generation (every page, not only the most fragmented). */
  readonly collect: () => void;
  /** A young-generation collection (a scavenge), after which V8 shrinks the young generation if allocation is low. */
  readonly collectYoung: () => void;
  /**
   * Hands the allocator's free pages back to the system (glibc's malloc_trim: lib/glibc-malloc.ts), where it can.
   * Node's native side (sockets, HTTP parsers, buffers outside V8's heap) leaves them behind a load.
   */
  readonly trim?: () => void;
  /** The heap V8 has committed (what it holds from the OS), bytes. */
  readonly committedHeapBytes: () => number;
  /** The share of the time since the previous call the event loop spent working, 0 to 1. */
  readonly busyShare: () => number;
  /**
   * Requests started and ended so far (request-activity.ts), in a process that serves requests. With it, idleness is
   * counted from the last request that started or ended, and work that is not a request (idle connections closing,
   * chunks of streams already open) delays the collection without restarting the wait. Without it (the cluster's
   * primary), any work over 2 % of the quiet period restarts the wait.
   */
  readonly requestEvents?: () => number;
  readonly now: () => number;
}

export interface IdleCollector {
  /** One check: collects when idle long enough and the heap grew enough. Called by the timer; exposed for tests. */
  check(): void;
  stop(): void;
}

/**
 * Gives back the memory a load left behind, once the process is idle.
 *
 * V8 keeps the heap it grew under load: its young generation stays at 2 × 16 MiB and the old generation keeps the
 * garbage of the load until it next reaches its limit, which an idle process never does. V8's own memory reducer only
 * starts after a full collection that shrank the heap, which does not happen while a load grows it, so a gateway idle
 * after 2,000 streams held ~330 MiB for as long as it stayed idle (docs/performance.md, idle memory). After `idleMs`
 * with no request started or ended (health and metrics probes aside) and the event loop under 2 % busy since the last
 * check, or, in a process that serves no requests, with the event loop busy less than 2 % of that time, and only if
 * the committed heap grew by 16 MiB or more since the last collection, this runs one full collection that compacts the whole old generation (V8's
 * `--compact-on-every-full-gc` for that one collection: a plain full collection frees the garbage but leaves the pages
 * it was on committed), so V8 returns the emptied pages; 5 s later, if still idle, a young-generation collection,
 * after which V8 shrinks the young generation back to its initial size (allocation being low by then).
 *
 * The price is one pause of the event loop (about 20 ms for a just-started gateway's heap, 50 to 200 ms after thousands
 * of streams), paid only after `idleMs` of idleness and at most once per load. A request that arrives during it waits
 * for it. `idleMs` 0 (MODELPORT_IDLE_COLLECT_MS=0) turns this off.
 */
export function startIdleCollector(options: IdleCollectorOptions, probe: IdleCollectorProbe = processProbe()): IdleCollector {
  const collector = createIdleCollector(options, probe);
  const timer = setInterval(() => collector.check(), options.checkMs ?? Math.min(5_000, Math.max(100, options.idleMs / 5)));
  timer.unref();
  return {
    check: () => collector.check(),
    stop() {
      clearInterval(timer);
      collector.stop();
    },
  };
}

/** The decision alone, without a timer. */
export function createIdleCollector(options: IdleCollectorOptions, probe: IdleCollectorProbe): IdleCollector {
  let quietSince = probe.now();
  let lastCheck = quietSince;
  // Event-loop busy time since quietSince, ms.
  let busyMs = 0;
  let heapAfterLast = probe.committedHeapBytes();
  let youngPending = false;
  let stopped = false;
  let requestEventsSeen = probe.requestEvents?.();
  /** Work happened since glibc's free pages were last handed back. */
  let trimPending = false;
  /** onIdle was called in this quiet period. */
  let idleNoted = false;
  /** When onIdle asked to be called again in this quiet period (probe time). */
  let idleAgainAt: number | undefined;
  /** Work (a request, or a busy event loop): the quiet period starts over. */
  const workSeen = (now: number): void => {
    quietSince = now;
    busyMs = 0;
    trimPending = true;
    idleNoted = false;
    idleAgainAt = undefined;
  };
  const trim = () => {
    trimPending = false;
    probe.trim?.();
  };
  return {
    check() {
      if (stopped) return;
      const now = probe.now();
      const share = probe.busyShare();
      const elapsedMs = now - lastCheck;
      lastCheck = now;
      const events = probe.requestEvents?.();
      if (events !== undefined) {
        if (events !== requestEventsSeen) {
          requestEventsSeen = events;
          workSeen(now);
          return;
        }
        // No pause in the middle of work, even work that is not a request; it does not restart the wait either.
        if (share > BUSY_SHARE) return;
      } else {
        busyMs += share * elapsedMs;
        if (busyMs > BUSY_SHARE * options.idleMs) {
          workSeen(now);
          return;
        }
      }
      if (youngPending && now - quietSince >= YOUNG_DELAY_MS) {
        youngPending = false;
        probe.collectYoung();
        trim();
        heapAfterLast = probe.committedHeapBytes();
        probe.busyShare();
        lastCheck = probe.now();
        return;
      }
      if (now - quietSince < options.idleMs) return;
      // The entries onIdle still held are garbage now: worth a collection of their own.
      const again = idleAgainAt !== undefined && now >= idleAgainAt;
      if (!idleNoted || again) {
        idleNoted = true;
        const laterMs = options.onIdle?.();
        idleAgainAt = laterMs !== undefined && laterMs >= 0 ? now + laterMs : undefined;
      }
      const heapBeforeBytes = probe.committedHeapBytes();
      if (!again && heapBeforeBytes < heapAfterLast + GROWTH_BYTES) {
        // Nothing worth a pause; a heap that shrank on its own is the new baseline. V8's own collections may have
        // done the work (its memory reducer, once allocation stopped): what the load freed outside its heap is still
        // in glibc's arenas, so hand that back once per quiet period after work (a few ms, no collection).
        heapAfterLast = Math.min(heapAfterLast, heapBeforeBytes);
        if (trimPending) trim();
        return;
      }
      const started = probe.now();
      probe.collect();
      // What V8 gave back (compacted pages) and what Node's native side freed during the load lies in glibc's arenas.
      trim();
      const heapAfterBytes = probe.committedHeapBytes();
      heapAfterLast = heapAfterBytes;
      youngPending = true;
      // The collection's own busy time is not work: start the next quiet period from here.
      probe.busyShare();
      quietSince = probe.now();
      lastCheck = quietSince;
      busyMs = 0;
      options.onCollected?.({ heapBeforeBytes, heapAfterBytes, ms: quietSince - started });
    },
    stop() {
      stopped = true;
    },
  };
}

/** V8's gc(), which Node exposes only under --expose-gc: set at run time, it is installed in contexts created after. */
function exposedGc(): (options?: { readonly type: 'minor' | 'major' }) => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as (options?: { readonly type: 'minor' | 'major' }) => void;
}

/** The running process: V8's gc(), its committed heap, its event loop's utilisation, and its requests when it serves any. */
export function processProbe(activity?: RequestActivity, trim: (() => boolean) | undefined = loadGlibcMalloc()?.mallocTrim): IdleCollectorProbe {
  let gc: ReturnType<typeof exposedGc> | undefined;
  let previous: EventLoopUtilization = performance.eventLoopUtilization();
  return {
    collect() {
      gc ??= exposedGc();
      setFlagsFromString('--compact-on-every-full-gc');
      try {
        gc();
      } finally {
        setFlagsFromString('--no-compact-on-every-full-gc');
      }
    },
    collectYoung() {
      gc ??= exposedGc();
      gc({ type: 'minor' });
    },
    ...(trim === undefined ? {} : { trim: () => void trim() }),
    committedHeapBytes: () => getHeapStatistics().total_heap_size,
    busyShare() {
      const current = performance.eventLoopUtilization();
      const share = performance.eventLoopUtilization(current, previous).utilization;
      previous = current;
      return share;
    },
    now: () => performance.now(),
    ...(activity === undefined ? {} : { requestEvents: () => activity.events }),
  };
}
