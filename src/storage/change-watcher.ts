import type { ChangesRepository } from './changes-repository.js';

export interface ChangeWatcher {
  /** Called with no argument whenever keys or routers may have changed. */
  onChange(listener: () => void): void;
  /** Polls once now (also used by tests instead of waiting). */
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
  let running = false;

  const poll = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const version = await changes.current();
      if (known !== undefined && version !== known) for (const listener of listeners) listener();
      known = version;
    } catch (error) {
      onError(error);
    } finally {
      running = false;
    }
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
