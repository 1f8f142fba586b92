import cluster from 'node:cluster';
import pino, { type Logger } from 'pino';
import { createAdminService } from './admin/admin-service.js';
import { createApp } from './app.js';
import { bootstrapBanner, bootstrapIfEmpty, prepareStorageOnce, type BootstrapResult } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { processProbe, startIdleCollector, type IdleCollector, type IdleCollectorProbe } from './lib/idle-collector.js';
import { createRequestActivity } from './lib/request-activity.js';
import { createIpcWindowStore, serveWindowStore } from './workers/ipc-window-store.js';
import { runPrimary } from './workers/primary.js';

export interface ServeHooks {
  /** Called once this process is up: listening (a worker or a single process), or its workers forked (the primary). */
  readonly started: () => void;
}

/** The server process: read config once, build, listen, drain on SIGTERM. Started by src/main.ts. */
export async function serve(hooks: ServeHooks): Promise<void> {
  const config = loadConfig(process.env);
  const logger = pino({
    level: config.logLevel,
    base: { service: 'modelport' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', 'apiKey'], censor: '[redacted]' },
  }, pino.destination({ sync: false }));

  // MODELPORT_WORKERS: this process only forks, restarts and stops the workers, and counts rate limits for them all.
  if (config.workers > 0 && cluster.isPrimary) {
    const created = await prepareStorageOnce(config);
    if (created) printBanner(config, created);
    const windows = serveWindowStore();
    runPrimary({ workers: config.workers, logger, shutdownTimeoutMs: config.shutdownTimeoutMs + 10_000 });
    hooks.started();
    if (config.idleCollectMs > 0) {
      // As a worker does before it listens: what starting left in the old generation goes back (the primary
      // serves no request, only its workers' rate-limit checks, which wait ~20 ms once).
      const heap = processProbe();
      heap.collect();
      collectWhenIdle(config, logger, heap, () => windows.dropExpired(Date.now()));
    }
    return;
  }

  const worker = cluster.isWorker ? cluster.worker : undefined;
  const activity = config.idleCollectMs > 0 ? createRequestActivity() : undefined;
  const app = await createApp(
    config,
    worker === undefined ? logger : logger.child({ worker: worker.id }),
    {
      ...(activity === undefined ? {} : { activity }),
      ...(worker === undefined ? {} : { windowStore: createIpcWindowStore(), ...(config.workerHeader ? { workerId: process.pid } : {}) }),
    },
  );
  if (config.bootstrap && worker === undefined) {
    const created = await bootstrapIfEmpty(app.repositories, createAdminService(app.repositories, app.catalog));
    if (created) printBanner(config, created);
  }
  // Start-up leaves garbage in the old generation (the young one was held small, so more of it was promoted): one
  // compacting collection once Fastify is ready (its plugins loaded, its schemas compiled) and before it listens gives
  // it back (~40 ms; no request waits for it).
  const heap = activity === undefined ? undefined : processProbe(activity);
  if (heap !== undefined) {
    await app.server.ready();
    heap.collect();
  }
  // A burst of new connections (thousands of clients opening streams at once) waits in the kernel's accept queue
  // rather than being dropped into SYN retries a second or more later; Linux caps it at net.core.somaxconn.
  await app.server.listen({ port: config.port, host: config.host, backlog: 4096 });
  hooks.started();
  const collector = heap === undefined ? undefined : collectWhenIdle(config, logger, heap, () => app.rateLimiter.dropExpired());

  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    // A second signal does not cut the drain short.
    if (signals > 1) return;
    logger.info({ signal }, 'shutting down: draining requests and flushing usage');
    collector?.stop();
    app.close().then(
      () => exit(logger, 0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(logger, 1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** Gives back, once idle, the memory a load left behind (MODELPORT_IDLE_COLLECT_MS), expired rate-limit entries first. */
function collectWhenIdle(config: Config, logger: Logger, heap: IdleCollectorProbe, onIdle: () => number | undefined): IdleCollector {
  const mib = (bytes: number) => Math.round(bytes / 1048576);
  return startIdleCollector({
    idleMs: config.idleCollectMs,
    // The rate limits' expired entries go with the collection; those of the last window before the quiet, once it has passed.
    onIdle,
    onCollected: ({ heapBeforeBytes, heapAfterBytes, ms }) =>
      logger.info({ heapBeforeMiB: mib(heapBeforeBytes), heapAfterMiB: mib(heapAfterBytes), ms: Math.round(ms) }, 'idle: garbage collected, memory given back'),
  }, heap);
}

/** Printed to stdout once, not logged: logs must never hold a key. */
function printBanner(config: Config, created: BootstrapResult): void {
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  process.stdout.write(bootstrapBanner(created, `${config.tls ? 'https' : 'http'}://${shownHost}:${config.port}`));
}

function exit(logger: Logger, code: number): void {
  logger.flush();
  process.exit(code);
}

/** What a failed start prints: a configuration error's message alone, anything else with its stack. */
export function startFailureMessage(error: unknown): string {
  return error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
}
