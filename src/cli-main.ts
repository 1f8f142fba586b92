import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { AdminInputError } from './admin/admin-errors.js';
import { createAdminService } from './admin/admin-service.js';
import type { ProviderAdminOptions } from './admin/provider-admin.js';
import { loadShippedCatalog } from './catalog/catalog.js';
import { InvalidConfigurationError, type InProcessGateway } from './cli/command.js';
import { runCommandLine, type CliIo, type CliWiring } from './cli/main.js';
import type { Config } from './config.js';
import { createServerSecret } from './lib/server-secret.js';

export type { CliIo } from './cli/main.js';

/**
 * The command-line client's entry (bin/modelport): the commands of src/cli/, wired to the config, the
 * database and the gateway here. Those are loaded on first use, so `--help`, `models` and usage
 * mistakes answer without loading the config or the database drivers.
 */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommandLine(argv, io, cliWiring);
}

const cliWiring: CliWiring = {
  async openAdmin(env, onOpened, { mustExist }) {
    const [{ ConfigError, loadConfig }, { migrateToLatest, openStorage, sqliteFilePath }, { createRepositories }] = await Promise.all([
      import('./config.js'),
      import('./storage/database.js'),
      import('./storage/repositories.js'),
    ]);
    let config: Config;
    try {
      config = loadConfig(env);
    } catch (error) {
      throw error instanceof ConfigError ? new InvalidConfigurationError(error.message) : error;
    }
    const file = sqliteFilePath(config.databaseUrl);
    const database = file === undefined ? withoutPassword(config.databaseUrl) : file === ':memory:' ? file : resolve(file);
    // A read on a database that is not there would otherwise create an empty one and answer "nothing": say so instead.
    if (mustExist && file !== undefined && file !== ':memory:' && !existsSync(database)) {
      const source = env.DATABASE_URL === undefined || env.DATABASE_URL === '' ? 'the default database' : 'DATABASE_URL';
      throw new InvalidConfigurationError(
        `No database at ${database} (${source}). Set DATABASE_URL to the server's database, or start the server once to create this one.`,
      );
    }
    const storage = openStorage(config.databaseUrl);
    onOpened(storage, database);
    await migrateToLatest(storage);
    return createAdminService(createRepositories(storage), loadShippedCatalog(), Date.now, providerAdminOptionsFrom(config, sqliteFilePath(config.databaseUrl)), config.agentLimits);
  },

  async openGateway(env): Promise<InProcessGateway> {
    const [{ loadConfig, ConfigError }, { createApp }, pino] = await Promise.all([import('./config.js'), import('./app.js'), import('pino')]);
    let config: Config;
    try {
      config = loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) throw new AdminInputError(error.message);
      throw error;
    }
    return createApp(config, pino.default({ level: 'silent' }));
  },
};

/** A Postgres URL as it may be shown: its password replaced. */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@');
  }
}

/** The settings an admin process (the CLI) reads from the same environment as the server. */
function providerAdminOptionsFrom(config: Config, sqliteFile: string | undefined): ProviderAdminOptions {
  return {
    secret: createServerSecret({ configured: config.secretKey, sqliteFile }),
    allowPrivateUpstreams: config.allowPrivateUpstreams,
    serverBaseUrl: (preset) => config.providers.get(preset.name)?.baseUrl ?? config.serverBaseUrls.get(preset.name) ?? preset.defaultBaseUrl,
    timeouts: { ...config.upstreamTimeouts, firstByteMs: Math.min(config.upstreamTimeouts.firstByteMs, 30_000) },
  };
}
