import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';

export interface PrimaryOptions {
  /** Worker processes to keep running (MODELPORT_WORKERS). */
  readonly workers: number;
  /** Environment variables added to each worker's (its slot number, for logs and the debug header). */
  readonly workerEnvironment?: (slot: number) => Record<string, string>;
  /**
   * Restarts allowed per slot within `restartWindowMs`; a worker that keeps crashing beyond that is not restarted
   * again, and when no worker is left the primary exits 1.
   * @default 5
   */
  readonly maxRestarts?: number;
  /** @default 60000 */
  readonly restartWindowMs?: number;
  /** Time the workers get to drain after SIGTERM before they are killed. @default 30000 */
  readonly shutdownTimeoutMs?: number;
  readonly logger: Logger;
  /** Clock for the restart window. @default Date.now */
  readonly now?: () => number;
}

/**
 * The primary of the multi-process mode: forks the workers (each one a whole
 * gateway: `node:cluster` shares the listening socket and hands connections out
 * round-robin), restarts a worker that dies, and on SIGTERM or SIGINT passes the
 * signal on so every worker drains its requests and flushes its usage records,
 * then exits once they all have. It serves no HTTP itself.
 */
export function runPrimary(options: PrimaryOptions): void {
  const now = options.now ?? Date.now;
  const maxRestarts = options.maxRestarts ?? 5;
  const windowMs = options.restartWindowMs ?? 60_000;
  const { logger } = options;
  const slots = new Map<number, number>();
  const restarts = new Map<number, number[]>();
  let stopping = false;

  const fork = (slot: number): Worker => {
    const worker = cluster.fork({ ...options.workerEnvironment?.(slot), MODELPORT_WORKER_SLOT: String(slot) });
    slots.set(worker.id, slot);
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker.id);
    slots.delete(worker.id);
    if (stopping || slot === undefined) {
      if (stopping && slots.size === 0) process.exit(0);
      return;
    }
    const recent = (restarts.get(slot) ?? []).filter((time) => now() - time < windowMs);
    if (recent.length >= maxRestarts) {
      logger.error({ slot, code, signal, restarts: recent.length }, 'worker keeps dying; not restarting it');
      if (slots.size === 0) process.exit(1);
      return;
    }
    recent.push(now());
    restarts.set(slot, recent);
    logger.warn({ slot, pid: worker.process.pid, code, signal }, 'worker died; starting a new one');
    fork(slot);
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: slots.size }, 'shutting down: workers drain their requests and flush usage');
    if (slots.size === 0) process.exit(0);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, options.shutdownTimeoutMs ?? 30_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  for (let slot = 1; slot <= options.workers; slot += 1) fork(slot);
  logger.info({ workers: options.workers, pid: process.pid }, 'started workers');
}
