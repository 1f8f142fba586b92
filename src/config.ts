import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defaultTimeouts, type UpstreamTimeouts } from './providers/transport/http-client.js';
import { MIN_SECRET_LENGTH } from './lib/secret-box.js';
import { defaultHealthOptions, type HealthOptions } from './routing/health/health-options.js';
import { readOperatorBaseUrls, readProviderCredentials, readServerBaseUrls, type ProviderCredentials } from './providers/credentials/provider-presets.js';
import { LocalProviderAccessError, parseLocalProviderAccess, type LocalProviderAccess } from './providers/credentials/local-provider-access.js';
import { DEFAULT_AGENT_LIMITS, type AgentLimits } from './agents/agent-definition.js';
import { DEFAULT_FALLBACK_DEADLINE_MS } from './pipeline/pipeline-defaults.js';

/**
 * The SQLite file used when DATABASE_URL is unset: data/modelport.db in this package's folder (from src/ or dist/
 * alike), so the server and the CLI open the same file from whatever directory they are started in.
 */
export const DEFAULT_DATABASE_FILE = fileURLToPath(new URL('../data/modelport.db', import.meta.url));

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');
const int = (min: number) => z.coerce.number().int().min(min);

const environmentSchema = z.object({
  PORT: int(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().min(1).default(DEFAULT_DATABASE_FILE),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  MODELPORT_BOOTSTRAP: bool.default(true),
  MODELPORT_REQUIRE_HTTPS: bool.default(false),
  MODELPORT_TRUSTED_PROXIES: z.string().default(''),
  TLS_CERT_FILE: z.string().min(1).optional(),
  TLS_KEY_FILE: z.string().min(1).optional(),
  MODELPORT_DEFAULT_RPM: int(1).default(600),
  MODELPORT_BODY_LIMIT_BYTES: int(1024).default(10 * 1024 * 1024),
  MODELPORT_ACCOUNT_BODY_LIMIT_BYTES: int(1024).max(1024 * 1024).default(16 * 1024),
  MODELPORT_LOGIN_ATTEMPTS_PER_IP: int(1).default(100),
  MODELPORT_LOGIN_FAILURES_PER_EMAIL: int(1).default(5),
  MODELPORT_PASSWORD_HASH_CONCURRENCY: int(1).max(64).default(2),
  MODELPORT_PASSWORD_HASH_QUEUE: int(0).max(10_000).default(16),
  MODELPORT_SIM_TIME_SCALE: z.coerce.number().min(0).default(1),
  MODELPORT_CHANGE_POLL_MS: int(10).default(250),
  MODELPORT_MAX_ATTEMPTS: int(1).default(3),
  MODELPORT_FALLBACK_DEADLINE_MS: int(1).max(2 ** 31 - 1).default(DEFAULT_FALLBACK_DEADLINE_MS),
  MODELPORT_BREAKER_ENABLED: bool.default(defaultHealthOptions.enabled),
  MODELPORT_BREAKER_FAILURE_THRESHOLD: int(1).default(defaultHealthOptions.failureThreshold),
  MODELPORT_BREAKER_ERROR_RATE: z.coerce.number().gt(0).max(1).default(defaultHealthOptions.errorRateThreshold),
  MODELPORT_BREAKER_MIN_REQUESTS: int(1).default(defaultHealthOptions.minimumRequests),
  MODELPORT_BREAKER_WINDOW_MS: int(1_000).default(defaultHealthOptions.windowMs),
  MODELPORT_BREAKER_COOLDOWN_MS: int(1).default(defaultHealthOptions.cooldownMs),
  MODELPORT_BREAKER_MAX_COOLDOWN_MS: int(1).default(defaultHealthOptions.maxCooldownMs),
  MODELPORT_BREAKER_MAX_RETRY_AFTER_MS: int(0).default(defaultHealthOptions.maxRetryAfterMs),
  MODELPORT_SHUTDOWN_TIMEOUT_MS: int(0).default(20_000),
  MODELPORT_IDLE_COLLECT_MS: int(0).max(2 ** 31 - 1).default(30_000),
  MODELPORT_UPSTREAM_CONNECT_TIMEOUT_MS: int(1).default(defaultTimeouts.connectMs),
  MODELPORT_UPSTREAM_FIRST_BYTE_TIMEOUT_MS: int(1).default(defaultTimeouts.firstByteMs),
  MODELPORT_UPSTREAM_IDLE_TIMEOUT_MS: int(1).default(defaultTimeouts.idleMs),
  MODELPORT_UPSTREAM_TOTAL_TIMEOUT_MS: int(1).default(defaultTimeouts.totalMs),
  MODELPORT_USAGE_FLUSH_MS: int(10).default(1000),
  MODELPORT_USAGE_WRITER: z.enum(['thread', 'inline']).default('thread'),
  MODELPORT_SECRET_KEY: z.string().min(MIN_SECRET_LENGTH, `must have at least ${MIN_SECRET_LENGTH} characters (e.g. from "openssl rand -base64 32")`).optional(),
  MODELPORT_ALLOW_PRIVATE_UPSTREAMS: bool.default(false),
  MODELPORT_LOCAL_PROVIDERS: z
    .string()
    .default('none')
    .transform((value, context) => {
      try {
        return parseLocalProviderAccess(value);
      } catch (error) {
        if (!(error instanceof LocalProviderAccessError)) throw error;
        context.addIssue({ code: 'custom', message: `${error.message} Write none, all, or owner ids and emails separated by commas.` });
        return z.NEVER;
      }
    }),
  MODELPORT_AGENT_MAX_STEPS: int(1).max(100).default(DEFAULT_AGENT_LIMITS.maxSteps),
  MODELPORT_AGENT_TIMEOUT_MS: int(1).max(2 ** 31 - 1).default(DEFAULT_AGENT_LIMITS.timeoutMs),
  MODELPORT_AGENT_MAX_COST_USD: z.coerce.number().positive().default(DEFAULT_AGENT_LIMITS.maxCostUsd),
  MODELPORT_AGENT_MAX_PARALLEL: int(1).max(64).default(DEFAULT_AGENT_LIMITS.maxParallel),
  REDIS_URL: z.string().min(1).optional(),
  MODELPORT_REDIS_PREFIX: z.string().min(1).default('modelport:'),
  MODELPORT_DEFAULT_TPM: int(1).optional(),
  MODELPORT_RATE_WINDOW_MS: int(100).default(60_000),
  MODELPORT_REDIS_TIMEOUT_MS: int(10).max(5_000).default(250),
  MODELPORT_HEARTBEAT_MS: int(50).default(1000),
  MODELPORT_METRICS_TOKEN: z.string().min(16, 'must have at least 16 characters').optional(),
  MODELPORT_METRICS_PUBLIC: bool.optional(),
  MODELPORT_METRICS_ROUTER_LABELS: bool.default(false),
  MODELPORT_WORKERS: int(0).max(256).default(0),
  MODELPORT_WORKER_HEADER: bool.default(false),
  MODELPORT_RESPONSES_RETENTION_DAYS: int(1).max(3650).default(30),
  MODELPORT_USAGE_RETENTION_DAYS: int(1).max(3650).default(90),
  MODELPORT_USAGE_HOURLY_RETENTION_DAYS: int(1).max(3650).default(400),
  MODELPORT_RESPONSES_MAX_BYTES: int(0).default(10 * 1024 * 1024),
  MODELPORT_ROUTER_REFIT_INTERVAL_MS: int(10).max(2 ** 31 - 1).default(30_000),
  MODELPORT_ROUTING_SAMPLES_PER_ROUTER: int(1).default(20_000),
  MODELPORT_SIGNUP: z.enum(['open', 'closed']).optional(),
  MODELPORT_SMTP_URL: z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL').optional(),
  MODELPORT_MAIL_FROM: z.string().min(3).optional(),
  MODELPORT_PUBLIC_URL: z.string().regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be an http:// or https:// address').optional(),
  MODELPORT_MAX_ORGANIZATIONS_PER_ACCOUNT: int(0).default(10),
  MODELPORT_MAX_ROUTERS_PER_WORKSPACE: int(0).default(100),
  MODELPORT_MAX_KEYS_PER_WORKSPACE: int(0).default(100),
});

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  readonly logLevel: string;
  /** Server-wide provider credentials (`<PROVIDER>_API_KEY`, `<PROVIDER>_BASE_URL`), by provider name. */
  readonly providers: ReadonlyMap<string, ProviderCredentials>;
  /** Providers whose base URL the operator set (`<PREFIX>_BASE_URL`, `AZURE_OPENAI_ENDPOINT`); every other upstream address goes through the SSRF guard. */
  readonly operatorBaseUrls: ReadonlySet<string>;
  /** The base URL the operator set for each preset (`<PREFIX>_BASE_URL`), with or without a server-wide key. */
  readonly serverBaseUrls: ReadonlyMap<string, string>;
  readonly bootstrap: boolean;
  readonly requireHttps: boolean;
  /** Addresses or CIDRs whose X-Forwarded-* headers are believed. Empty: none. */
  readonly trustedProxies: readonly string[];
  readonly tls: { readonly cert: Buffer; readonly key: Buffer } | undefined;
  readonly defaultRpm: number;
  readonly bodyLimitBytes: number;
  /** What a stranger can make the server do before signing in: sign-up and sign-in bodies, attempts, password hashes. */
  readonly preAuth: PreAuthLimits;
  readonly simTimeScale: number;
  readonly changePollMs: number;
  readonly maxAttempts: number;
  /** Total time a request may spend trying models, from its arrival (MODELPORT_FALLBACK_DEADLINE_MS). */
  readonly fallbackDeadlineMs: number;
  /** Circuit breakers, 429 back-offs and the sliding window (MODELPORT_BREAKER_*). */
  readonly health: HealthOptions;
  readonly shutdownTimeoutMs: number;
  /** After this long idle, one full garbage collection gives back what a load left (src/lib/idle-collector.ts); 0: never. */
  readonly idleCollectMs: number;
  readonly upstreamTimeouts: UpstreamTimeouts;
  readonly usageFlushMs: number;
  /**
   * Where usage records and their rollups are written (MODELPORT_USAGE_WRITER): `thread`, a worker thread with its
   * own connection (SQLite or Postgres); `inline`, the main connection on the event loop. `:memory:` is always
   * inline. @default "thread"
   */
  readonly usageWriter: 'thread' | 'inline';
  /** Seals owners' provider keys (MODELPORT_SECRET_KEY); undefined: generated beside a SQLite database, refused on Postgres. */
  readonly secretKey: string | undefined;
  /** Owner-supplied base URLs may reach loopback, private and link-local addresses. */
  readonly allowPrivateUpstreams: boolean;
  /** Who may use the local servers (Ollama, vLLM…) whose base URL the operator set (MODELPORT_LOCAL_PROVIDERS). @default none */
  readonly localProviders: LocalProviderAccess;
  /** Agents' limits (MODELPORT_AGENT_*); a definition may lower them. */
  readonly agentLimits: AgentLimits;
  /** Shared state (rate limits, budgets' spend, health, invalidation) in Redis; undefined: in process. */
  readonly redisUrl: string | undefined;
  /** Prefix of every Redis key this gateway writes (MODELPORT_REDIS_PREFIX). @default "modelport:" */
  readonly redisPrefix: string;
  /** Bearer token `GET /metrics` requires (MODELPORT_METRICS_TOKEN); undefined: none, and `metricsPublic` decides. */
  readonly metricsToken: string | undefined;
  /** Without a token, anyone may scrape `/metrics` (MODELPORT_METRICS_PUBLIC); undefined: public only while sign-up is closed. */
  readonly metricsPublic: boolean | undefined;
  /** Router ids label the request, token, cost and carbon series (MODELPORT_METRICS_ROUTER_LABELS). @default false */
  readonly metricsRouterLabels: boolean;
  /** Tokens per minute of keys without their own (MODELPORT_DEFAULT_TPM); undefined: none. */
  readonly defaultTpm: number | undefined;
  /** What "per minute" means, in ms (MODELPORT_RATE_WINDOW_MS; shorter only for tests). @default 60000 */
  readonly rateWindowMs: number;
  /** Longest a request waits on one Redis command (MODELPORT_REDIS_TIMEOUT_MS). @default 250 */
  readonly redisTimeoutMs: number;
  /** How often each instance heartbeats its row in gateway_instances (MODELPORT_HEARTBEAT_MS). @default 1000 */
  readonly heartbeatMs: number;
  /** Worker processes (MODELPORT_WORKERS); 0: one process, no primary (docs/performance.md). */
  readonly workers: number;
  /** Each answer names the worker process (its pid) in `x-modelport-worker` (MODELPORT_WORKER_HEADER; for tests and debugging). */
  readonly workerHeader: boolean;
  /** How long a stored Responses API answer is kept (MODELPORT_RESPONSES_RETENTION_DAYS). @default 30, as OpenAI */
  readonly responsesRetentionDays: number;
  /**
   * How long usage is kept (docs/usage-analytics.md): raw usage records, request logs and minute rollups
   * (MODELPORT_USAGE_RETENTION_DAYS, @default 90), and hour rollups (MODELPORT_USAGE_HOURLY_RETENTION_DAYS,
   * @default 400). Day rollups are kept for ever.
   */
  readonly usageRetention: { readonly recordsDays: number; readonly hourRollupsDays: number };
  /** Largest stored form of a response, its input items included (MODELPORT_RESPONSES_MAX_BYTES); 0 stores none. @default 10 MiB */
  readonly responsesMaxBytes: number;
  /** How often each instance looks for `auto` routers whose labels changed, to refit them (MODELPORT_ROUTER_REFIT_INTERVAL_MS). @default 30000 */
  readonly routerRefitIntervalMs: number;
  /** Routing samples (prompt features of auto requests, for feedback) kept per router (MODELPORT_ROUTING_SAMPLES_PER_ROUTER). @default 20000 */
  readonly routingSamplesPerRouter: number;
  /** Dashboard accounts: who may sign up, how confirmation links reach them, what one account may create. */
  readonly accounts: AccountSettings;
}

/** docs/configuration.md, Accounts; docs/security.md. */
export interface AccountSettings {
  /** Who may sign up (MODELPORT_SIGNUP). @default "open" with MODELPORT_SMTP_URL, else "closed" */
  readonly signUp: 'open' | 'closed';
  /** Mail goes through this SMTP server (MODELPORT_SMTP_URL, MODELPORT_MAIL_FROM); undefined: links go to the log. */
  readonly smtp: { readonly url: string; readonly from: string } | undefined;
  /** Where links in mails point, without a trailing slash (MODELPORT_PUBLIC_URL); undefined: this server's own address. */
  readonly publicUrl: string | undefined;
  /** (MODELPORT_MAX_ORGANIZATIONS_PER_ACCOUNT) @default 10 */
  readonly maxOrganizationsPerAccount: number;
  /** (MODELPORT_MAX_ROUTERS_PER_WORKSPACE) @default 100 */
  readonly maxRoutersPerWorkspace: number;
  /** Keys that still work, per workspace (MODELPORT_MAX_KEYS_PER_WORKSPACE). @default 100 */
  readonly maxKeysPerWorkspace: number;
}

/** Bounds on the account endpoints anyone can call (docs/configuration.md, Accounts). */
export interface PreAuthLimits {
  /** Largest sign-up or sign-in body, refused with 413 while it is read (MODELPORT_ACCOUNT_BODY_LIMIT_BYTES). @default 16384 */
  readonly bodyLimitBytes: number;
  /** Sign-up and sign-in attempts per client IP in 15 minutes, counted before the body is read (MODELPORT_LOGIN_ATTEMPTS_PER_IP). @default 100 */
  readonly attemptsPerIp: number;
  /** Failed sign-ins per email and IP in 15 minutes before that pair is blocked for 15 minutes (MODELPORT_LOGIN_FAILURES_PER_EMAIL). @default 5 */
  readonly failuresPerEmail: number;
  /** Password hashes computed at once per process (MODELPORT_PASSWORD_HASH_CONCURRENCY). @default 2 */
  readonly hashConcurrency: number;
  /** Hashes waiting for a slot; more are refused with 503 auth_busy (MODELPORT_PASSWORD_HASH_QUEUE). @default 16 */
  readonly hashQueue: number;
}

export class ConfigError extends Error {}

/** Reads and validates the environment once; main.ts passes the result down. */
export function loadConfig(environment: Record<string, string | undefined>): Config {
  const parsed = environmentSchema.safeParse(
    Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== undefined && value !== '')),
  );
  if (!parsed.success) {
    const detail = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${detail}`);
  }
  const env = parsed.data;
  if (env.MODELPORT_BREAKER_MAX_COOLDOWN_MS < env.MODELPORT_BREAKER_COOLDOWN_MS) {
    throw new ConfigError('Invalid configuration: MODELPORT_BREAKER_MAX_COOLDOWN_MS must be at least MODELPORT_BREAKER_COOLDOWN_MS.');
  }
  if ((env.TLS_CERT_FILE === undefined) !== (env.TLS_KEY_FILE === undefined)) {
    throw new ConfigError('Invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE must be set together.');
  }
  if (env.MODELPORT_WORKERS > 0 && /^(sqlite:(\/\/)?)?:memory:$/.test(env.DATABASE_URL)) {
    throw new ConfigError('Invalid configuration: MODELPORT_WORKERS needs a database the workers share, not DATABASE_URL=:memory:.');
  }
  if (env.MODELPORT_SMTP_URL !== undefined && (env.MODELPORT_MAIL_FROM === undefined || env.MODELPORT_PUBLIC_URL === undefined)) {
    throw new ConfigError('Invalid configuration: MODELPORT_SMTP_URL needs MODELPORT_MAIL_FROM (the sender) and MODELPORT_PUBLIC_URL (where links in mails point).');
  }
  return {
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    logLevel: env.LOG_LEVEL,
    providers: readProviderCredentials(environment),
    operatorBaseUrls: readOperatorBaseUrls(environment),
    serverBaseUrls: readServerBaseUrls(environment),
    bootstrap: env.MODELPORT_BOOTSTRAP,
    requireHttps: env.MODELPORT_REQUIRE_HTTPS,
    trustedProxies: env.MODELPORT_TRUSTED_PROXIES.split(',').map((entry) => entry.trim()).filter((entry) => entry !== ''),
    tls:
      env.TLS_CERT_FILE && env.TLS_KEY_FILE
        ? { cert: readFileSync(env.TLS_CERT_FILE), key: readFileSync(env.TLS_KEY_FILE) }
        : undefined,
    defaultRpm: env.MODELPORT_DEFAULT_RPM,
    bodyLimitBytes: env.MODELPORT_BODY_LIMIT_BYTES,
    preAuth: {
      bodyLimitBytes: env.MODELPORT_ACCOUNT_BODY_LIMIT_BYTES,
      attemptsPerIp: env.MODELPORT_LOGIN_ATTEMPTS_PER_IP,
      failuresPerEmail: env.MODELPORT_LOGIN_FAILURES_PER_EMAIL,
      hashConcurrency: env.MODELPORT_PASSWORD_HASH_CONCURRENCY,
      hashQueue: env.MODELPORT_PASSWORD_HASH_QUEUE,
    },
    simTimeScale: env.MODELPORT_SIM_TIME_SCALE,
    changePollMs: env.MODELPORT_CHANGE_POLL_MS,
    maxAttempts: env.MODELPORT_MAX_ATTEMPTS,
    fallbackDeadlineMs: env.MODELPORT_FALLBACK_DEADLINE_MS,
    health: {
      ...defaultHealthOptions,
      enabled: env.MODELPORT_BREAKER_ENABLED,
      failureThreshold: env.MODELPORT_BREAKER_FAILURE_THRESHOLD,
      errorRateThreshold: env.MODELPORT_BREAKER_ERROR_RATE,
      minimumRequests: env.MODELPORT_BREAKER_MIN_REQUESTS,
      windowMs: env.MODELPORT_BREAKER_WINDOW_MS,
      cooldownMs: env.MODELPORT_BREAKER_COOLDOWN_MS,
      maxCooldownMs: env.MODELPORT_BREAKER_MAX_COOLDOWN_MS,
      maxRetryAfterMs: env.MODELPORT_BREAKER_MAX_RETRY_AFTER_MS,
    },
    shutdownTimeoutMs: env.MODELPORT_SHUTDOWN_TIMEOUT_MS,
    idleCollectMs: env.MODELPORT_IDLE_COLLECT_MS,
    upstreamTimeouts: {
      connectMs: env.MODELPORT_UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteMs: env.MODELPORT_UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleMs: env.MODELPORT_UPSTREAM_IDLE_TIMEOUT_MS,
      totalMs: env.MODELPORT_UPSTREAM_TOTAL_TIMEOUT_MS,
    },
    usageFlushMs: env.MODELPORT_USAGE_FLUSH_MS,
    usageWriter: env.MODELPORT_USAGE_WRITER,
    secretKey: env.MODELPORT_SECRET_KEY,
    allowPrivateUpstreams: env.MODELPORT_ALLOW_PRIVATE_UPSTREAMS,
    localProviders: env.MODELPORT_LOCAL_PROVIDERS,
    agentLimits: {
      maxSteps: env.MODELPORT_AGENT_MAX_STEPS,
      timeoutMs: env.MODELPORT_AGENT_TIMEOUT_MS,
      maxCostUsd: env.MODELPORT_AGENT_MAX_COST_USD,
      maxParallel: env.MODELPORT_AGENT_MAX_PARALLEL,
    },
    redisUrl: env.REDIS_URL,
    redisPrefix: env.MODELPORT_REDIS_PREFIX,
    metricsToken: env.MODELPORT_METRICS_TOKEN,
    metricsPublic: env.MODELPORT_METRICS_PUBLIC,
    metricsRouterLabels: env.MODELPORT_METRICS_ROUTER_LABELS,
    defaultTpm: env.MODELPORT_DEFAULT_TPM,
    rateWindowMs: env.MODELPORT_RATE_WINDOW_MS,
    redisTimeoutMs: env.MODELPORT_REDIS_TIMEOUT_MS,
    heartbeatMs: env.MODELPORT_HEARTBEAT_MS,
    workers: env.MODELPORT_WORKERS,
    workerHeader: env.MODELPORT_WORKER_HEADER,
    responsesRetentionDays: env.MODELPORT_RESPONSES_RETENTION_DAYS,
    usageRetention: { recordsDays: env.MODELPORT_USAGE_RETENTION_DAYS, hourRollupsDays: Math.max(env.MODELPORT_USAGE_HOURLY_RETENTION_DAYS, env.MODELPORT_USAGE_RETENTION_DAYS) },
    responsesMaxBytes: env.MODELPORT_RESPONSES_MAX_BYTES,
    routerRefitIntervalMs: env.MODELPORT_ROUTER_REFIT_INTERVAL_MS,
    routingSamplesPerRouter: env.MODELPORT_ROUTING_SAMPLES_PER_ROUTER,
    accounts: {
      signUp: env.MODELPORT_SIGNUP ?? (env.MODELPORT_SMTP_URL !== undefined ? 'open' : 'closed'),
      smtp: env.MODELPORT_SMTP_URL !== undefined && env.MODELPORT_MAIL_FROM !== undefined ? { url: env.MODELPORT_SMTP_URL, from: env.MODELPORT_MAIL_FROM } : undefined,
      publicUrl: env.MODELPORT_PUBLIC_URL?.replace(/\/+$/, ''),
      maxOrganizationsPerAccount: env.MODELPORT_MAX_ORGANIZATIONS_PER_ACCOUNT,
      maxRoutersPerWorkspace: env.MODELPORT_MAX_ROUTERS_PER_WORKSPACE,
      maxKeysPerWorkspace: env.MODELPORT_MAX_KEYS_PER_WORKSPACE,
    },
  };
}
