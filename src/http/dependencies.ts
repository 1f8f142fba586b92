import type { Logger } from 'pino';
import type { AgentService } from '../agents/agent-service.js';
import type { UsageRecorder } from '../accounting/usage-recorder.js';
import type { KeyAuthenticator } from '../auth/key-authenticator.js';
import type { RequestRateLimiter } from '../limits/request-rate-limiter.js';
import type { DashboardServices } from '../dashboard/dashboard-services.js';
import type { BudgetGuard } from '../limits/budget-guard.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { ChatModel } from '../providers/contract.js';
import type { OwnerProviders } from '../providers/credentials/owner-providers.js';
import type { LocalServerProbe } from '../providers/credentials/local-server-probe.js';
import type { ModelCatalog } from '../catalog/catalog.js';
import type { OwnerCatalogs } from '../catalog/owner-catalog.js';
import type { RouterDirectory } from '../routing/router-directory.js';
import type { ModelHealth } from '../routing/routing-contract.js';
import type { PipelineDependencies } from '../pipeline/routed-call.js';
import type { ResponseStore } from './openai-responses/response-store.js';
import type { RouterLearningDependencies } from '../admin/router-learning.js';

/**
 * Everything the HTTP layer needs, built once by app.ts (or a test) and passed in: the pipeline's dependencies
 * (src/pipeline) and what only HTTP uses (keys, the dashboard, metrics, settings).
 */
export interface AppDependencies extends PipelineDependencies {
  readonly logger: Logger;
  readonly now: () => number;
  readonly authenticator: KeyAuthenticator;
  readonly rateLimiter: RequestRateLimiter;
  readonly routers: RouterDirectory;
  /** The shipped catalog. */
  readonly catalog: ModelCatalog;
  /** The catalog as each owner sees it: the shipped one with their own models and prices over it. */
  readonly ownerCatalogs: OwnerCatalogs;
  /** The models each owner's routers call: their own credentials first, then the server-wide ones. */
  readonly providers: OwnerProviders;
  readonly usage: UsageRecorder;
  readonly settings: HttpSettings;
  /**
   * Live health of models and providers (circuit breakers, 429 back-offs, error
   * rates, latency moving averages), one per process; its clock is `now`.
   * Strategies read it, fallback skips by it and reports every call to it.
   * Absent: nothing is skipped for health or measured.
   */
  readonly health?: ModelHealth;
  /**
   * Whether a model client runs on the server's credentials (its health is the
   * model's) rather than an owner's own (kept apart per owner).
   * @default every model is the server's
   */
  readonly isServerModel?: (model: ChatModel) => boolean;
  /**
   * Which providers the environment configured and whether its local model servers answer, for the dashboard's
   * catalog. Absent: a configured provider counts as available.
   */
  readonly localServers?: LocalServerProbe;
  /** Spend caps per key and router: checked before the call, charged after. Absent: no budgets. */
  readonly budgets?: BudgetGuard;
  /** Prometheus metrics (`GET /metrics`). Absent: nothing measured, no endpoint. */
  readonly metrics?: GatewayMetrics;
  /** Uniform in [0, 1), for routing's exploration (latency_optimized). @default Math.random */
  readonly random?: () => number;
  /** The dashboard's API (/api/dashboard) and web app (/). Absent: neither is served. */
  readonly dashboard?: { readonly services: DashboardServices; /** Built web app. @default web/dist */ readonly webRoot?: string };
  /** Owners' agents (`model: "agent:<name>"`, /api/v1/agents). Absent: every agent is 404 agent_not_found. */
  readonly agents?: AgentService;
  /** Stored Responses API answers (`store`, `previous_response_id`, …/responses/{id}). Absent: none is stored or found. */
  readonly responses?: ResponseStore;
  /** What `POST {base}/feedback` stores labels with (src/admin/router-learning.ts). Absent: every feedback is 404. */
  readonly routerLearning?: RouterLearningDependencies;
}

export interface HttpSettings {
  readonly bodyLimitBytes: number;
  /** Largest sign-up or sign-in body (MODELPORT_ACCOUNT_BODY_LIMIT_BYTES). @default 16384 */
  readonly accountBodyLimitBytes?: number;
  readonly defaultRpm: number;
  readonly requireHttps: boolean;
  readonly trustedProxies: readonly string[];
  readonly maxAttempts: number;
  /** Total time a request may spend trying models, from its arrival. @default 300000 */
  readonly fallbackDeadlineMs?: number;
  /** Bearer token `GET /metrics` requires; undefined: none (then `metricsPublic` decides). */
  readonly metricsToken?: string | undefined;
  /** Without a token, anyone may scrape `GET /metrics`; otherwise every scrape is 401. @default false */
  readonly metricsPublic?: boolean;
}
