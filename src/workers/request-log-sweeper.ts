import type { RequestLogRepository } from '../storage/request-log-repository.js';

/**
 * Deletes logged request and response bodies once their router's retention has passed (each row carries its own
 * expiry, set when it was written), off the request path: a timer on every instance, small batches with a turn of the
 * event loop between them. Two instances sweeping at once only repeat a harmless UPDATE. The rest of each row (routing,
 * attempts, carbon, prices) stays, as long as its usage record does.
 */

export interface RequestLogSweeperOptions {
  /** Between two sweeps. @default 600000 (10 minutes) */
  readonly intervalMs?: number;
  /** Rows cleared per statement. @default 200 */
  readonly batch?: number;
}

export interface RequestLogSweeper {
  /** One sweep now: resolves with how many rows' bodies it deleted. */
  runOnce(): Promise<number>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

export function startRequestLogSweeper(
  deps: { readonly requestLogs: Pick<RequestLogRepository, 'expireBodies'>; readonly now: () => number; readonly onError: (error: unknown) => void },
  options: RequestLogSweeperOptions = {},
): RequestLogSweeper {
  const batch = options.batch ?? 200;
  let stopped = false;
  let running: Promise<number> | undefined;

  const sweep = async (): Promise<number> => {
    const now = deps.now();
    let total = 0;
    for (;;) {
      const cleared = await deps.requestLogs.expireBodies(now, batch);
      total += cleared;
      if (cleared < batch || stopped) return total;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  };

  const runOnce = (): Promise<number> => {
    running ??= sweep().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    runOnce().catch(deps.onError);
  }, options.intervalMs ?? 600_000);
  timer.unref();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
