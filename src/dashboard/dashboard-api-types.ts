/**
 * The dashboard API's JSON shapes (docs/dashboard-api.md), defined once for the
 * server and the web app. The dashboard services and the routes in
 * src/http/dashboard/ are typed with them; web/src/api/types.ts imports them
 * with `import type`, so a change on either side fails the other's type check.
 *
 * This module imports only its sibling shape modules, which import nothing: the
 * web app's compiler reads them with DOM types and no Node types, so anything
 * they imported would be compiled there too.
 *
 * Services speak epoch milliseconds; the routes answer ISO 8601 strings in the
 * fields `ISO_TIME_FIELDS` names, which `IsoTimes<T>` spells as a type.
 */

import type { RouterFitView } from './router-learning-api-types.js';

/** Fields whose epoch milliseconds the API answers as ISO 8601 strings, at any depth. */
export const ISO_TIME_FIELDS = ['createdAt', 'updatedAt', 'lastUsedAt', 'expiresAt', 'revokedAt', 'addedAt', 'time', 't', 'from', 'to', 'startedAt', 'finishedAt', 'expiredBefore'] as const;

export type IsoTimeField = (typeof ISO_TIME_FIELDS)[number];

type IsoTime<V> = V extends number ? string : V;

/** `T` as the API answers it: every number in an `ISO_TIME_FIELDS` field is an ISO 8601 string. */
export type IsoTimes<T> = T extends readonly (infer Item)[]
  ? readonly IsoTimes<Item>[]
  : T extends object
    ? { readonly [K in keyof T]: K extends IsoTimeField ? IsoTime<T[K]> : IsoTimes<T[K]> }
    : T;

// Accounts and workspaces

export type WorkspaceRoleName = 'owner' | 'admin' | 'viewer';

export interface UserView {
  readonly id: string;
  readonly email: string;
}

/** A workspace as the session lists it. */
export interface WorkspaceView {
  readonly id: string;
  readonly name: string;
  readonly kind: 'personal' | 'organization';
  readonly role: WorkspaceRoleName;
}

/** GET /session. */
export interface SessionView {
  readonly user: UserView;
  readonly csrfToken: string;
  readonly workspaces: readonly WorkspaceView[];
}

/** POST /auth/verify and /auth/signin. */
export interface AuthView {
  readonly user: UserView;
  readonly csrfToken: string;
}

/** POST /auth/signup: the same answer whether or not the address already has an account. */
export interface SignUpView {
  /** A link went (or, for an address mailed often lately, did not go) to the address: it finishes the sign-up. */
  readonly verification: 'sent';
}

/** GET /auth/signup: whether this server takes sign-ups (MODELPORT_SIGNUP). */
export interface SignUpStatusView {
  readonly open: boolean;
  /** The only account is the owner the first start created: the sign-in page points at the credentials it printed. */
  readonly firstStart: boolean;
}

export interface MemberView {
  readonly userId: string;
  readonly email: string;
  readonly role: WorkspaceRoleName;
  /** Epoch ms. */
  readonly addedAt: number;
}

// Catalog and routers

/** What a model (and so a router of such models) does: answer chat requests, or turn text into vectors. */
export type ModelKindView = 'chat' | 'embedding';

/** An embedding model's vectors. */
export interface EmbeddingView {
  /** Default vector length. */
  readonly dimensions: number;
  /** Whether a request's `dimensions` may shorten the vectors. */
  readonly shortenable: boolean;
  /** Models of one space give comparable vectors; a router's models all share one. */
  readonly space: string;
}

export interface CatalogModelView {
  readonly id: string;
  readonly provider: string;
  readonly name: string;
  readonly kind: ModelKindView;
  /** Embedding models only. */
  readonly embedding?: EmbeddingView | undefined;
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cachedInputPerMTok: number | null;
  readonly contextWindow: number;
  readonly maxOutputTokens?: number | undefined;
  readonly capabilities: { readonly tools?: boolean | undefined; readonly vision?: boolean | undefined; readonly json?: boolean | undefined; readonly streaming?: boolean | undefined };
  /** LMArena-style rating, e.g. 1270; absent for embedding models. */
  readonly quality?: number | undefined;
  /**
   * Whether it can be called now: the server (or the workspace) has credentials for its provider and, for a local
   * model server (Ollama, vLLM, LM Studio, llama.cpp), the server answered its last check.
   */
  readonly available: boolean;
  /** When not available: what would make it so (the variable to set, the key to add, the server to start). */
  readonly unavailableReason?: string | undefined;
  readonly retired: boolean;
}

export interface StrategyView {
  readonly id: string;
  readonly label: string;
  readonly description: string;
}

export interface RouterSettingsView {
  readonly weights?: { readonly cost?: number; readonly latency?: number; readonly quality?: number; readonly carbon?: number };
  readonly qualityTarget?: number;
  readonly maxCostPerRequestUsd?: number;
  /** Calibrated by `modelport router calibrate`; by `provider:model` id. */
  readonly autoAbilities?: Readonly<Record<string, { readonly position: number; readonly offset: number; readonly examples: number }>>;
  /** `auto`: the router's own fit from its labels (calibration uploads and feedback), summarised. */
  readonly autoFit?: RouterFitView;
  /** `auto`: the share (0..1) of requests routed by exploration; absent: the default, 0.05. */
  readonly exploration?: number;
  /** Request log bodies (docs/dashboard.md); absent: not kept. */
  readonly requestLog?: { readonly bodies: boolean; readonly retentionDays?: number; readonly maxBodyBytes?: number };
}

export interface RouterView {
  readonly id: string;
  readonly name: string;
  /** Its models' kind: whether it serves chat completions or embeddings. */
  readonly kind: ModelKindView;
  readonly models: readonly string[];
  readonly strategy: string;
  readonly settings: RouterSettingsView;
  /** Requests / tokens per minute across every key of the router; null: no router limit. */
  readonly rpmLimit: number | null;
  readonly tpmLimit: number | null;
  /** Spend cap of the router (every key together); null: none. */
  readonly budget: BudgetView | null;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms. */
  readonly updatedAt: number;
}

/** A spend cap in USD over a UTC calendar day or month (`modelport ... --budget-usd --budget-period`). */
export interface BudgetView {
  readonly usd: number;
  readonly period: 'day' | 'month';
}

// API keys

export type KeyStatus = 'active' | 'expired' | 'revoked' | 'rotating';

/** What the dashboard shows of a key, its status and its warnings. Times are epoch ms. */
export interface KeyView {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly routerIds: readonly string[] | null;
  readonly rpmLimit: number | null;
  /** Tokens per minute; null: the server default, if any. */
  readonly tpmLimit: number | null;
  /** Requests in flight at once; null: no cap. */
  readonly maxConcurrency: number | null;
  /** Spend cap of the key; null: none. */
  readonly budget: BudgetView | null;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly expiresAt: number | null;
  readonly revokedAt: number | null;
  readonly status: KeyStatus;
  readonly flags: readonly ('old' | 'unused')[];
  readonly replacedBy: string | null;
}

/** A key as created: its plaintext appears once. */
export interface CreatedKeyView extends KeyView {
  readonly key: string;
}

/** A key made by rotation, and the key it replaces. */
export interface RotatedKeyView extends CreatedKeyView {
  readonly replaces: string;
}

// Usage

/** One bucket of the usage series. `t` is the bucket's start, epoch ms. */
export interface UsagePointView {
  readonly t: number;
  readonly requests: number;
  readonly errors: number;
  readonly costUsd: number;
  readonly tokens: number;
  readonly carbonGrams: number;
  readonly p50LatencyMs: number | null;
  readonly p95LatencyMs: number | null;
}

export interface UsageTotalsView {
  readonly requests: number;
  readonly errors: number;
  readonly costUsd: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Prompt tokens read from and written to the provider's cache, and reasoning tokens inside the completions. */
  readonly cachedPromptTokens: number;
  readonly cacheWritePromptTokens: number;
  readonly reasoningTokens: number;
  readonly carbonGrams: number;
  /** Energy of the range's calls, data-centre overhead included (EcoLogits' method). */
  readonly energyWh: number;
  readonly p50LatencyMs: number | null;
  readonly p95LatencyMs: number | null;
  readonly p99LatencyMs: number | null;
}

/** One row of a breakdown: `id` names the router, model or key (null: none). */
export interface UsageBreakdownRowView {
  readonly id: string | null;
  readonly name?: string | null;
  readonly prefix?: string | null;
  readonly requests: number;
  readonly costUsd: number;
  readonly tokens: number;
  readonly carbonGrams: number;
}

/** GET /workspaces/:ws/usage. `from` and `to` are epoch ms. */
export interface UsageReportView {
  readonly from: number;
  readonly to: number;
  readonly bucket: 'hour' | 'day';
  readonly totals: UsageTotalsView;
  readonly series: readonly UsagePointView[];
  readonly byRouter: readonly UsageBreakdownRowView[];
  readonly byModel: readonly UsageBreakdownRowView[];
  readonly byKey: readonly UsageBreakdownRowView[];
}

/** A request's usage record: what the gateway answered, the figures of its `_meta`. `time` is epoch ms. */
export interface UsageRequestView {
  readonly id: string;
  readonly time: number;
  readonly routerId: string | null;
  readonly routerName: string | null;
  readonly model: string | null;
  readonly keyId: string | null;
  readonly keyName: string | null;
  readonly status: number;
  readonly errorCode: string | null;
  readonly streamed: boolean;
  /** An embedding call (by the model that served it): its tokens are all input, `completionTokens` 0. */
  readonly kind: ModelKindView;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  /** Energy of the call, data-centre overhead included (EcoLogits' method); 0 for records older than the figure. */
  readonly energyWh: number;
  /** Inside promptTokens: read from, and written to, the provider's cache. */
  readonly cachedPromptTokens: number;
  readonly cacheWritePromptTokens: number;
  /** Inside completionTokens, billed as output. */
  readonly reasoningTokens: number;
  readonly attempts: number;
  /** `auto` routers: what the router's strongest model would have cost for the same tokens; null for other requests. */
  readonly counterfactualCostUsd: number | null;
}

/** GET /workspaces/:ws/usage/requests. */
export interface RequestsPageView {
  readonly requests: readonly UsageRequestView[];
  /** The cursor of the next page; null on the last. */
  readonly nextBefore: string | null;
  /** Requests made before this time (epoch ms) have expired: the deployment keeps raw usage this long. */
  readonly expiredBefore: number;
}

/** GET /workspaces/:ws/routers/:id/traffic. Times are epoch ms. */
export interface TrafficReportView {
  readonly from: number;
  readonly to: number;
  readonly hourly: readonly { readonly t: number; readonly requests: number; readonly errors: number; readonly costUsd: number }[];
  readonly recent: readonly UsageRequestView[];
}

// Agents (docs/agents.md): their shapes live in a module of their own, which imports nothing either.

export type {
  AgentDefinitionView,
  AgentLimitsView,
  AgentMetaView,
  AgentStepDefinitionView,
  AgentVersionView,
  AgentView,
  AgentWithVersionsView,
  ExecutionErrorView,
  ExecutionStepView,
  ExecutionView,
  ExecutionWithStepsView,
} from './agent-api-types.js';

// Playground: its shapes live in a module of their own, which imports nothing either.

export type { EmbeddingItemView, PlaygroundEmbeddingsRequestView, PlaygroundEmbeddingsView, RouterMetaView } from './playground-api-types.js';

// An `auto` router's calibration, savings and feedback: also a module of its own.

export type {
  CalibrationView,
  FeedbackRequestView,
  FeedbackSummaryView,
  FeedbackView,
  RouterFitView,
  SavingsPointView,
  SavingsReportView,
} from './router-learning-api-types.js';
