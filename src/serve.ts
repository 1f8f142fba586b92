import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import pino, { type Logger } from 'pino';
import { createAdminService } from './admin/admin-service.js';
import { createApp } from './app.js';
import { bootstrapBanner, bootstrapIfEmpty, dashboardLine, prepareStorageOnce, type BootstrapResult } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { processProbe, startIdleCollector, type IdleCollector, type IdleCollectorProbe } from './lib/idle-collector.js';
import { createRequestActivity } from './lib/request-activity.js';
import { createSignupVerificationsRepository } from './storage/signup-verifications-repository.js';
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
    printStart(config, config.port, await prepareStorageOnce(config));
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
  const created =
    config.bootstrap && worker === undefined
      ? await bootstrapIfEmpty(app.repositories, createAdminService(app.repositories, app.catalog), createSignupVerificationsRepository(app.storage.db))
      : undefined;
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
  if (worker === undefined) printStart(config, listeningPort(app.server.server.address(), config.port), created);
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

/**
 * The first start's banner (printed to stdout once, not logged: logs must never hold a key or the sign-in link), or on
 * every later start one line with the dashboard's address.
 */
function printStart(config: Config, port: number, created: BootstrapResult | undefined): void {
  const origin = serverOrigin(config, port);
  process.stdout.write(created === undefined ? dashboardLine(origin) : bootstrapBanner(created, origin));
}

/** Where users reach this server: MODELPORT_PUBLIC_URL, else its own address (localhost when it listens on every interface). */
export function serverOrigin(config: Pick<Config, 'host' | 'tls' | 'accounts'>, port: number): string {
  if (config.accounts.publicUrl !== undefined) return config.accounts.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${host}:${port}`;
}

/** The port the server really listens on (PORT=0 picks a free one). */
function listeningPort(address: AddressInfo | string | null, configured: number): number {
  return typeof address === 'object' && address !== null ? address.port : configured;
}

function exit(logger: Logger, code: number): void {
  logger.flush();
  process.exit(code);
}

/** What a failed start prints: a configuration error's message alone, anything else with its stack. */
export function startFailureMessage(error: unknown): string {
  return error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
}
