import type { ChangesRepository } from './changes-repository.js';

export interface ChangeWatcher {
  /** Called with no argument whenever keys or routers may have changed. */
  onChange(listener: () => void): void;
  /**
   * Reads the counter and resolves once a read that started after this call
   * has been compared (tests and in-process writers use it instead of waiting).
   */
  poll(): Promise<void>;
  stop(): void;
}

/**
 * Polls the change counter; any change (from this process, another instance,
 * the CLI or a hand edit that bumps the counter) invalidates the caches.
 */
export function createChangeWatcher(
  changes: ChangesRepository,
  intervalMs: number,
  onError: (error: unknown) => void,
): ChangeWatcher {
  const listeners: Array<() => void> = [];
  let known: number | undefined;
  let reading: Promise<void> | undefined;
  let next: Promise<void> | undefined;

  const readOnce = async (): Promise<void> => {
    try {
      const version = await changes.current();
      if (known !== undefined && version !== known) for (const listener of listeners) listener();
      known = version;
    } catch (error) {
      onError(error);
    }
  };

  // At most one read at a time. A read already under way may have read the
  // counter before the caller's write, so a caller arriving during it waits
  // for one more read after it; callers arriving meanwhile share that one.
  const poll = (): Promise<void> => {
    if (reading === undefined) {
      reading = readOnce().finally(() => {
        reading = undefined;
      });
      return reading;
    }
    next ??= reading.then(() => {
      next = undefined;
      return poll();
    });
    return next;
  };

  const timer = setInterval(() => void poll(), intervalMs);
  timer.unref();
  void poll();

  return {
    onChange: (listener) => listeners.push(listener),
    poll,
    stop: () => clearInterval(timer),
  };
}
