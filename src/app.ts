import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createUsageRecorder, type UsageRecorder } from './accounting/usage-recorder.js';
import { createAgentService, type AgentService } from './agents/agent-service.js';
import { createKeyAuthenticator } from './auth/key-authenticator.js';
import type { Config } from './config.js';
import { createDashboardServices } from './dashboard/dashboard-services.js';
import { createSignUpSettings, type Mailer } from './dashboard/mailer.js';
import { createServer } from './http/server.js';
import { createResponseStore } from './http/openai-responses/response-store.js';
import { startCluster, type Cluster } from './cluster/cluster.js';
import type { RequestActivity } from './lib/request-activity.js';
import type { WindowStore } from './limits/window-store.js';
import { createBudgetGuard } from './limits/budget-guard.js';
import { createBudgetSpendStore } from './limits/budget-spend-store-factory.js';
import { createRateLimits, type RateLimits } from './limits/rate-limits.js';
import { createWindowStore } from './limits/window-store-factory.js';
import { countingUpstreamErrors, createMetrics, type GatewayMetrics } from './observability/metrics.js';
import { observedUsage } from './observability/observed-usage.js';
import { createServerSecret, type ServerSecret } from './lib/server-secret.js';
import type { ChatModel } from './providers/contract.js';
import { createUpstreamDispatcher } from './providers/transport/http-client.js';
import { createOwnerProviders } from './providers/credentials/owner-providers.js';
import { createProviderRegistry } from './providers/credentials/registry.js';
import { createGuardedDispatcher } from './providers/credentials/ssrf-guard.js';
import { createLocalProviderGate, unreachableLocalProviders } from './providers/credentials/local-provider-access.js';
import { createLocalServerProbe, type LocalServerProbe } from './providers/credentials/local-server-probe.js';
import { loadShippedCatalog, type ModelCatalog } from './catalog/catalog.js';
import { createModelHealth, type ProcessModelHealth } from './routing/health/model-health.js';
import { createOwnerCatalogs } from './catalog/owner-catalog.js';
import { createRouterDirectory } from './routing/router-directory.js';
import { createChangeWatcher, type ChangeWatcher } from './storage/change-watcher.js';
import { migrateToLatest, openStorage, sqliteFilePath, type Storage } from './storage/database.js';
import { createRepositories, type Repositories } from './storage/repositories.js';
import { createUsageWriterThread } from './storage/usage-writer-thread.js';
import { createInlineUsageWriter, type UsageWriter } from './storage/usage-writer.js';
import { startRouterRefitWorker, type RouterRefitWorker } from './workers/router-refit-worker.js';
import { startRequestLogSweeper, type RequestLogSweeper } from './workers/request-log-sweeper.js';
import { startUsageRetentionSweeper, type UsageRetentionSweeper } from './workers/usage-retention-sweeper.js';
import { createSqliteReaderThread } from './storage/sqlite-reader-thread.js';
import { createSecretRedactor } from './lib/redact-secrets.js';

export interface App {
  readonly server: FastifyInstance;
  readonly storage: Storage;
  readonly repositories: Repositories;
  readonly catalog: ModelCatalog;
  readonly usage: UsageRecorder;
  readonly changes: ChangeWatcher;
  /** Model and provider health (breakers, back-offs, latency) of this process. */
  readonly health: ProcessModelHealth;
  /** Prometheus metrics (`GET /metrics`). */
  readonly metrics: GatewayMetrics;
  /** The Redis link, the instance registry and invalidation (when REDIS_URL is set). */
  readonly cluster: Cluster;
  /** Rate limits and concurrency per key and router; their logs are shared through Redis when REDIS_URL is set. */
  readonly rateLimiter: RateLimits;
  /** Seals and opens owners' provider keys (for the admin service). */
  readonly secret: ServerSecret;
  /** Owners' agents, with the routing engine to run them (the CLI's `agent run` uses it in-process). */
  readonly agents: AgentService;
  /** Refits `auto` routers from their labels in the background and prunes their routing samples. */
  readonly refit: RouterRefitWorker;
  /** Deletes logged request bodies past their router's retention. */
  readonly requestLogSweeper: RequestLogSweeper;
  /** Expires raw usage, request logs and fine rollups past their retention (tests run it at will). */
  readonly usageRetention: UsageRetentionSweeper;
  /** Checks that the configured local model servers answer (the dashboard's catalog says which do). */
  readonly localServers: LocalServerProbe;
  /** Stops accepting, lets requests in flight finish (up to the deadline), flushes usage, closes the database. */
  close(): Promise<void>;
}

/** What the process running the app puts in place of the defaults (the multi-process mode's workers, src/workers/). */
export interface AppOverrides {
  /** Where rate-limit logs live when REDIS_URL is not set (the workers' primary process). @default this process */
  readonly windowStore?: WindowStore;
  /** Named in `x-modelport-worker` on every answer when set (the worker's pid). */
  readonly workerId?: number;
  /** Told of every request's start and end (the idle collector reads it). */
  readonly activity?: RequestActivity;
  /** Where the dashboard's mail goes (tests read confirmation links from theirs). @default config's SMTP server, else the log */
  readonly mailer?: Mailer;
}

/** Wires the whole service from its configuration. Nothing here reads the environment. */
export async function createApp(config: Config, logger: Logger, overrides: AppOverrides = {}): Promise<App> {
  const now = Date.now;
  const storage = openStorage(config.databaseUrl);
  await migrateToLatest(storage);
  const repositories = createRepositories(storage, now);
  const catalog = loadShippedCatalog();
  const dispatcher = createUpstreamDispatcher(config.upstreamTimeouts);
  // Every upstream address the operator did not set (owners' base URLs, the presets' defaults) goes through the
  // SSRF guard, unless the operator allows private upstreams.
  const ownerDispatcher = config.allowPrivateUpstreams ? dispatcher : createGuardedDispatcher(config.upstreamTimeouts);
  const providers = createProviderRegistry(
    {
      credentials: config.providers,
      operatorBaseUrls: config.operatorBaseUrls,
      // Anthropic requires max_tokens: the model's maximum output, capped so a forgotten limit stays affordable.
      defaultMaxTokens: (provider, modelId) => Math.min(catalog.get(`${provider}:${modelId}`)?.maxOutputTokens ?? 4096, 8192),
      sim: {
        timeScale: config.simTimeScale,
        timing: (modelId) => {
          const info = catalog.get(`sim:${modelId}`);
          return { ttftMs: info?.typicalTtftMs ?? 200, tokensPerSecond: info?.typicalTokensPerSecond ?? 100 };
        },
      },
    },
    { dispatcher, timeouts: config.upstreamTimeouts },
    { dispatcher: ownerDispatcher, timeouts: config.upstreamTimeouts },
  );
  const secret = createServerSecret({ configured: config.secretKey, sqliteFile: sqliteFilePath(config.databaseUrl) });
  const unreachableLocal = unreachableLocalProviders(config.localProviders, config.providers.keys());
  if (unreachableLocal.length > 0) logger.warn({ variables: unreachableLocal }, 'local model servers configured, but MODELPORT_LOCAL_PROVIDERS=none: no owner may use them');
  // A configured local server is only an address until it answers: checked at start and every 30 s, off the request path.
  const localServers = createLocalServerProbe({ credentials: config.providers, http: { dispatcher, timeouts: config.upstreamTimeouts } });
  const ownerProviders = createOwnerProviders({
    registry: providers,
    credentials: repositories.providerCredentials,
    secret,
    serverBaseUrl: (preset) => config.providers.get(preset.name)?.baseUrl ?? config.serverBaseUrls.get(preset.name) ?? preset.defaultBaseUrl,
    operatorBaseUrls: config.operatorBaseUrls,
    http: { dispatcher, timeouts: config.upstreamTimeouts },
    ownerHttp: { dispatcher: ownerDispatcher, timeouts: config.upstreamTimeouts },
    mayUseLocal: createLocalProviderGate(config.localProviders, (ownerId) => repositories.users.findById(ownerId)),
    defaultMaxTokens: (provider, modelId) => Math.min(catalog.get(`${provider}:${modelId}`)?.maxOutputTokens ?? 4096, 8192),
    // Never the error's details beyond its message: no key is in it, and none may be.
    onUnusable: (ownerId, provider, error) =>
      logger.warn({ ownerId, provider, reason: error instanceof Error ? error.message : String(error) }, 'owner provider credentials unusable; provider skipped for this owner'),
  });
  const ownerCatalogs = createOwnerCatalogs(catalog, repositories.customModels);
  const authenticator = createKeyAuthenticator(repositories.apiKeys, now);
  const routers = createRouterDirectory(repositories.routers);
  const changes = createChangeWatcher(repositories.changes, config.changePollMs, (error) => logger.warn({ err: error }, 'change poll failed'));
  changes.onChange(() => {
    authenticator.invalidate();
    routers.invalidate();
    ownerProviders.invalidate();
    ownerCatalogs.invalidate();
  });
  const usageWriter = createUsageWriter(config, repositories, logger);
  const recorder = createUsageRecorder(
    usageWriter.writer,
    { flushIntervalMs: config.usageFlushMs, batchSize: 500, maxQueued: 100_000, wideInsertRows: usageWriter.wideInsertRows },
    (error) => logger.error({ err: error }, 'usage flush failed; will retry'),
  );
  const metrics = createMetrics({ usageQueue: () => recorder.stats(), routerLabels: config.metricsRouterLabels });
  const usage = observedUsage(recorder, metrics);
  const cluster = await startCluster({
    redisUrl: config.redisUrl,
    redisPrefix: config.redisPrefix,
    redisTimeoutMs: config.redisTimeoutMs,
    heartbeatMs: config.heartbeatMs,
    storage,
    changes,
    logger,
    now,
  });
  const rateLimiter = createRateLimits(
    // Without Redis the logs live here, or in the workers' primary process when it provides the store.
    createWindowStore({ link: cluster.link, redisPrefix: config.redisPrefix, fleetSize: cluster.fleetSize, local: overrides.windowStore, now }),
    { defaultRpm: config.defaultRpm, defaultTpm: config.defaultTpm, windowMs: config.rateWindowMs, rejections: metrics },
    now,
    (error) => logger.warn({ err: error }, 'rate limit bookkeeping failed'),
  );
  const budgetSpend = createBudgetSpendStore({
    redis: cluster.link?.client,
    keyPrefix: config.redisPrefix,
    source: (subject, since) => repositories.usage.spentSince(subject, since),
    onError: (error) => logger.warn({ err: error }, 'budget spend store unavailable; counting in process'),
  });
  const budgets = createBudgetGuard({
    budgets: repositories.budgets,
    spend: budgetSpend,
    now,
    onError: (error) => logger.warn({ err: error }, 'budget charge failed'),
    rejections: metrics,
  });
  changes.onChange(() => budgets.invalidate());
  // In memory per process; with REDIS_URL, back-offs, circuit openings and latency are shared (cluster/health-sync.ts).
  const health = createModelHealth(config.health, now);
  cluster.shareHealth(health);
  // Requests and agent steps report to the same health, and their upstream failures are counted alike.
  const observedHealth = countingUpstreamErrors(health, metrics);
  // The registry builds each server-wide model once: any other instance runs on an owner's own credentials.
  const isServerModel = (model: ChatModel) => providers.resolve(model.provider, model.modelId) === model;
  const agents = createAgentService({
    agents: repositories.agents,
    executions: repositories.agentExecutions,
    findRouter: async (ownerId, routerId) => {
      const router = await repositories.routers.findById(routerId);
      return router?.ownerId === ownerId ? router : undefined;
    },
    catalogFor: async (ownerId) => ownerCatalogs.forOwner(ownerId),
    limits: config.agentLimits,
    runtime: {
      ownerCatalogs,
      providers: ownerProviders,
      health: observedHealth,
      isServerModel,
      now,
      settings: { maxAttempts: config.maxAttempts, fallbackDeadlineMs: config.fallbackDeadlineMs },
      routers,
      usage,
      executions: repositories.agentExecutions,
      budgets,
    },
  });
  const loadAutoModel = async () => (await import('./routing/auto/shipped-model.js')).loadShippedAutoModel();
  const routerLearning = {
    repositories,
    catalog,
    now,
    autoModel: loadAutoModel,
    flushUsage: () => usage.flush(),
    // A request's record waits about one flush interval in another instance's queue; feedback waits no longer than 5 s.
    usageSettleMs: Math.min(config.usageFlushMs + 250, 5000),
  };
  const refit = startRouterRefitWorker(
    {
      repositories,
      now,
      catalogFor: async (ownerId) => ownerCatalogs.forOwner(ownerId),
      autoModel: loadAutoModel,
      onError: (error, routerId) => logger.warn({ err: error, routerId }, 'router refit failed; will retry'),
    },
    { intervalMs: config.routerRefitIntervalMs, samplesPerRouter: config.routingSamplesPerRouter },
  );
  const responses = createResponseStore(repositories.responses, {
    retentionMs: config.responsesRetentionDays * 86_400_000,
    maxBytes: config.responsesMaxBytes,
    now,
    onError: (error, action) => logger.warn({ err: error }, `${action} failed`),
  });
  const requestLogSweeper = startRequestLogSweeper({ requestLogs: repositories.requestLogs, now, onError: (error) => logger.warn({ err: error }, 'request log sweep failed') });
  const usageRetention = startUsageRetentionSweeper({
    db: storage.db,
    dialect: storage.dialect,
    writer: usageWriter.writer,
    retention: config.usageRetention,
    now,
    onError: (error) => logger.warn({ err: error }, 'usage retention sweep failed'),
  });
  // Reports on a SQLite file read on a thread of their own: better-sqlite3 would hold the event loop for each query.
  const readerFile = sqliteFilePath(config.databaseUrl);
  const usageReader = readerFile === undefined || readerFile === ':memory:' ? undefined : createSqliteReaderThread({ file: readerFile });
  const server = await createServer(
    {
      logger,
      now,
      authenticator,
      rateLimiter,
      routers,
      catalog,
      ownerCatalogs,
      providers: ownerProviders,
      usage,
      health: observedHealth,
      budgets,
      metrics,
      isServerModel,
      localServers,
      agents,
      responses,
      routerLearning,
      redactSecrets: createSecretRedactor([...config.providers.values()].flatMap((credentials) => [credentials.apiKey, ...Object.values(credentials.options ?? {})])),
      dashboard: {
        services: createDashboardServices(storage, repositories, catalog, now, {
          loginThrottle: { attemptsPerIp: config.preAuth.attemptsPerIp, failuresPerEmail: config.preAuth.failuresPerEmail, redis: cluster.link?.client, redisPrefix: config.redisPrefix },
          passwordHashing: { concurrency: config.preAuth.hashConcurrency, queue: config.preAuth.hashQueue },
          learning: routerLearning,
          usageReports: { readerDb: usageReader?.db, retention: config.usageRetention },
          providers: { secret, allowPrivateUpstreams: config.allowPrivateUpstreams, serverBaseUrl: (preset) => config.providers.get(preset.name)?.baseUrl ?? config.serverBaseUrls.get(preset.name) ?? preset.defaultBaseUrl },
          signUp: createSignUpSettings(
            config.accounts,
            `${config.tls ? 'https' : 'http'}://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${config.port}`,
            logger,
            overrides.mailer,
          ),
          quotas: {
            organizationsPerAccount: config.accounts.maxOrganizationsPerAccount,
            routersPerWorkspace: config.accounts.maxRoutersPerWorkspace,
            keysPerWorkspace: config.accounts.maxKeysPerWorkspace,
          },
        }),
      },
      settings: {
        bodyLimitBytes: config.bodyLimitBytes,
        accountBodyLimitBytes: config.preAuth.bodyLimitBytes,
        defaultRpm: config.defaultRpm,
        requireHttps: config.requireHttps,
        trustedProxies: config.trustedProxies,
        maxAttempts: config.maxAttempts,
        fallbackDeadlineMs: config.fallbackDeadlineMs,
        metricsToken: config.metricsToken,
        // Where anyone can sign up, anyone could read every tenant's traffic: without a token, public only if the operator says so.
        metricsPublic: config.metricsPublic ?? config.accounts.signUp === 'closed',
      },
    },
    { tls: config.tls, workerId: overrides.workerId, activity: overrides.activity },
  );

  let closing: Promise<void> | undefined;
  return {
    server,
    storage,
    repositories,
    catalog,
    usage,
    changes,
    health,
    metrics,
    cluster,
    rateLimiter,
    secret,
    agents,
    refit,
    requestLogSweeper,
    usageRetention,
    localServers,
    close() {
      closing ??= (async () => {
        changes.stop();
        const deadline = new Promise<void>((resolve) => setTimeout(resolve, config.shutdownTimeoutMs).unref());
        await Promise.race([server.close(), deadline]);
        responses.close();
        await refit.stop();
        await requestLogSweeper.stop();
        await usageRetention.stop();
        await usageReader?.close();
        await localServers.stop();
        await usage.close().catch((error: unknown) => logger.error({ err: error }, 'final usage flush failed'));
        await dispatcher.close();
        if (ownerDispatcher !== dispatcher) await ownerDispatcher.close();
        await cluster.close();
        await storage.close();
      })();
      return closing;
    },
  };
}

/**
 * The usage writer: a worker thread with its own connection (docs/performance.md), on a SQLite file and on Postgres,
 * unless MODELPORT_USAGE_WRITER=inline or the database is `:memory:`. On the thread, a full flush (500 rows) goes in
 * one INSERT and one commit with its rollups, so index pages and rollup rows many records share are written once; on
 * the event loop (inline) at most 50 rows at a time, so one batch holds it about a millisecond.
 */
function createUsageWriter(config: Config, repositories: Repositories, logger: Logger): { writer: UsageWriter; wideInsertRows: number | undefined } {
  const file = sqliteFilePath(config.databaseUrl);
  if (config.usageWriter === 'inline' || file === ':memory:') {
    return { writer: createInlineUsageWriter(repositories.usage, repositories.apiKeys, repositories.retention), wideInsertRows: undefined };
  }
  const writer = createUsageWriterThread({
    databaseUrl: config.databaseUrl,
    fallback: repositories,
    onLost: (reason, next) =>
      logger.warn({ reason, next }, next === 'restarted' ? 'usage writer thread stopped; restarted' : 'usage writer thread stopped; writing usage on the main connection'),
  });
  return { writer, wideInsertRows: 500 };
}
