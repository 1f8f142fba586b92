import pino from 'pino';
import { createAdminService } from './admin/admin-service.js';
import { createApp } from './app.js';
import { bootstrapBanner, bootstrapIfEmpty } from './bootstrap.js';
import { ConfigError, loadConfig } from './config.js';

/** The server's entry point: read config once, build, listen, drain on SIGTERM. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = pino({
    level: config.logLevel,
    base: { service: 'modelport' },
    redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', 'apiKey'], censor: '[redacted]' },
  }, pino.destination({ sync: false }));

  const app = await createApp(config, logger);
  if (config.bootstrap) {
    const created = await bootstrapIfEmpty(app.repositories, createAdminService(app.repositories, app.catalog));
    const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
    // Printed to stdout once, not logged: logs must never hold a key.
    if (created) process.stdout.write(bootstrapBanner(created, `${config.tls ? 'https' : 'http'}://${shownHost}:${config.port}`));
  }
  await app.server.listen({ port: config.port, host: config.host });

  let signals = 0;
  const shutdown = (signal: string) => {
    signals += 1;
    // A second signal does not cut the drain short.
    if (signals > 1) return;
    logger.info({ signal }, 'shutting down: draining requests and flushing usage');
    app.close().then(
      () => {
        logger.flush();
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        logger.flush();
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
