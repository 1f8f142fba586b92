/**
 * The dashboard API's JSON shapes (docs/dashboard-api.md), defined once for the
 * server and the web app. The dashboard services and the routes in
 * src/http/dashboard/ are typed with them; web/src/api/types.ts imports them
 * with `import type`, so a change on either side fails the other's type check.
 *
 * This module imports nothing: the web app's compiler reads it with DOM types
 * and no Node types, so anything it imported would be compiled there too.
 *
 * Services speak epoch milliseconds; the routes answer ISO 8601 strings in the
 * fields `ISO_TIME_FIELDS` names, which `IsoTimes<T>` spells as a type.
 */

/** Fields whose epoch milliseconds the API answers as ISO 8601 strings, at any depth. */
export const ISO_TIME_FIELDS = ['createdAt', 'updatedAt', 'lastUsedAt', 'expiresAt', 'revokedAt', 'addedAt', 'time', 't', 'from', 'to', 'startedAt', 'finishedAt'] as const;

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
  /** Whether the server (or the workspace) has credentials for its provider. */
  readonly available: boolean;
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
}

export interface RouterView {
  readonly id: string;
  readonly name: string;
  /** Its models' kind: whether it serves chat completions or embeddings. */
  readonly kind: ModelKindView;
  readonly models: readonly string[];
  readonly strategy: string;
  readonly settings: RouterSettingsView;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms. */
  readonly updatedAt: number;
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
  readonly carbonGrams: number;
  readonly p50LatencyMs: number | null;
  readonly p95LatencyMs: number | null;
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
  readonly truncated: boolean;
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
  readonly attempts: number;
}

/** GET /workspaces/:ws/usage/requests. */
export interface RequestsPageView {
  readonly requests: readonly UsageRequestView[];
  /** The cursor of the next page; null on the last. */
  readonly nextBefore: string | null;
}

/** GET /workspaces/:ws/routers/:id/traffic. Times are epoch ms. */
export interface TrafficReportView {
  readonly from: number;
  readonly to: number;
  readonly hourly: readonly { readonly t: number; readonly requests: number; readonly errors: number; readonly costUsd: number }[];
  readonly recent: readonly UsageRequestView[];
}

// Agents (docs/agents.md)

/** A step of an agent definition, as saved. */
export interface AgentStepDefinitionView {
  readonly name: string;
  readonly router?: string | undefined;
  readonly model?: string | undefined;
  readonly system?: string | undefined;
  readonly prompt: string;
  readonly temperature?: number | undefined;
  readonly max_tokens?: number | undefined;
  readonly tools?: readonly unknown[] | undefined;
  readonly response_format?: { readonly type: string; readonly [key: string]: unknown } | undefined;
  readonly needs?: readonly string[] | undefined;
}

export interface AgentLimitsView {
  readonly max_steps?: number | undefined;
  readonly timeout_ms?: number | undefined;
  readonly max_cost_usd?: number | undefined;
  readonly max_parallel?: number | undefined;
}

export interface AgentDefinitionView {
  readonly name: string;
  readonly description?: string | undefined;
  readonly steps: readonly AgentStepDefinitionView[];
  readonly limits?: AgentLimitsView | undefined;
}

/**
 * An agent. Storage keeps the definition as opaque JSON (`Definition` is
 * `unknown` there); the agents layer validates it against the schema that
 * `AgentDefinitionView` mirrors (held together by dashboard-api-bindings.ts).
 */
export interface AgentView<Definition = AgentDefinitionView> {
  readonly id: string;
  readonly name: string;
  /** What to pass as `model` to run it: `agent:<name>`. */
  readonly model: string;
  readonly description: string;
  readonly version: number;
  readonly definition: Definition;
  /** Epoch ms. */
  readonly createdAt: number;
  /** Epoch ms. */
  readonly updatedAt: number;
}

export interface AgentVersionView<Definition = AgentDefinitionView> {
  readonly version: number;
  readonly definition: Definition;
  /** Epoch ms. */
  readonly createdAt: number;
}

/** GET /agents/:name: the agent and every saved version. */
export interface AgentWithVersionsView<Definition = AgentDefinitionView> extends AgentView<Definition> {
  readonly versions: readonly AgentVersionView<Definition>[];
}

export interface ExecutionErrorView {
  readonly code: string;
  readonly message: string | null;
}

export interface ExecutionStepView {
  readonly name: string;
  readonly position: number;
  readonly status: 'succeeded' | 'failed' | 'cancelled';
  readonly routerId: string | null;
  readonly model: string | null;
  readonly attempts: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  readonly output: string | null;
  readonly error: ExecutionErrorView | null;
  /** Epoch ms. */
  readonly startedAt: number;
  /** Epoch ms. */
  readonly finishedAt: number;
}

export interface ExecutionView {
  readonly id: string;
  readonly agentId: string;
  readonly agentName: string;
  readonly agentVersion: number;
  readonly keyId: string | null;
  readonly status: 'running' | 'succeeded' | 'failed';
  readonly streamed: boolean;
  readonly input: string;
  readonly output: string | null;
  readonly error: ExecutionErrorView | null;
  readonly stepsExecuted: number;
  readonly totalCostUsd: number;
  readonly totalLatencyMs: number;
  readonly totalCarbonGrams: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly modelsUsed: readonly string[];
  /** Epoch ms. */
  readonly startedAt: number;
  /** Epoch ms; null while running. */
  readonly finishedAt: number | null;
}

/** GET /executions/:id: the execution and its steps. */
export interface ExecutionWithStepsView extends ExecutionView {
  readonly steps: readonly ExecutionStepView[];
}

/** The agent form of `_meta` on a run's answer. */
export interface AgentMetaView {
  readonly execution_id: string;
  readonly agent_name: string;
  readonly agent_version: number;
  readonly steps_executed: number;
  readonly total_cost: number;
  readonly total_latency: number;
  readonly total_carbon: number;
  readonly models_used: readonly string[];
  readonly steps: readonly {
    readonly name: string;
    readonly status: string;
    readonly router: string | null;
    readonly model: string | null;
    readonly cost: number;
    readonly latency: number;
    readonly carbon: number;
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
  }[];
}

// Playground: its shapes live in a module of their own, which imports nothing either.

export type { EmbeddingItemView, PlaygroundEmbeddingsRequestView, PlaygroundEmbeddingsView, RouterMetaView } from './playground-api-types.js';
