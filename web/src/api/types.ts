/** Shapes of the dashboard JSON API (docs/dashboard-api.md). */

export type Role = 'owner' | 'admin' | 'viewer';

export interface User {
  readonly id: string;
  readonly email: string;
}

export interface Workspace {
  readonly id: string;
  readonly name: string;
  readonly kind: 'personal' | 'organization';
  readonly role: Role;
}

export interface Session {
  readonly user: User;
  readonly csrfToken: string;
  readonly workspaces: readonly Workspace[];
}

export interface AuthResponse {
  readonly user: User;
  readonly csrfToken: string;
}

export interface Member {
  readonly userId: string;
  readonly email: string;
  readonly role: Role;
  readonly addedAt?: string | null;
}

export interface CatalogModel {
  readonly id: string;
  readonly provider: string;
  readonly name: string;
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cachedInputPerMTok?: number | null;
  readonly contextWindow: number;
  readonly maxOutputTokens?: number | null;
  readonly capabilities: { readonly tools?: boolean; readonly vision?: boolean; readonly json?: boolean; readonly streaming?: boolean };
  /** LMArena-style rating, e.g. 1270. */
  readonly quality?: number | null;
  readonly available: boolean;
  readonly retired?: boolean;
}

export interface Strategy {
  readonly id: string;
  readonly label: string;
  readonly description: string;
}

export interface RouterSettings {
  readonly weights?: { readonly cost?: number; readonly latency?: number; readonly quality?: number; readonly carbon?: number };
  readonly qualityTarget?: number;
  readonly maxCostPerRequestUsd?: number;
}

export interface Router {
  readonly id: string;
  readonly name: string;
  readonly models: readonly string[];
  readonly strategy: string;
  readonly settings?: RouterSettings;
  readonly createdAt?: number | string;
  readonly updatedAt?: number | string;
}

export type KeyStatus = 'active' | 'expired' | 'revoked' | 'rotating';

export interface ApiKey {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly routerIds: readonly string[] | null;
  readonly rpmLimit: number | null;
  readonly createdAt: number | string;
  readonly lastUsedAt: number | string | null;
  readonly expiresAt: number | string | null;
  readonly revokedAt: number | string | null;
  readonly status: KeyStatus;
  readonly flags: readonly string[];
  readonly replacedBy?: string | null;
}

/** A key as created: its plaintext appears once. */
export interface CreatedKey extends ApiKey {
  readonly key: string;
}

export interface UsagePoint {
  readonly t: number | string;
  readonly requests: number;
  readonly errors: number;
  readonly costUsd: number;
  readonly tokens: number;
  readonly carbonGrams: number;
  readonly p50LatencyMs: number | null;
  readonly p95LatencyMs: number | null;
}

export interface UsageTotals {
  readonly requests: number;
  readonly errors?: number;
  readonly costUsd: number;
  readonly promptTokens?: number;
  readonly completionTokens?: number;
  readonly carbonGrams: number;
  readonly p50LatencyMs?: number | null;
  readonly p95LatencyMs?: number | null;
}

/** One row of a breakdown: `id` names the router, model or key. */
export interface UsageBreakdownRow {
  readonly id: string | null;
  readonly name?: string | null;
  readonly prefix?: string | null;
  readonly requests: number;
  readonly costUsd: number;
  readonly tokens: number;
  readonly carbonGrams?: number;
}

export interface UsageReport {
  readonly from?: string;
  readonly to?: string;
  readonly bucket?: 'hour' | 'day';
  readonly truncated?: boolean;
  readonly totals: UsageTotals;
  readonly series: readonly UsagePoint[];
  readonly byRouter: readonly UsageBreakdownRow[];
  readonly byModel: readonly UsageBreakdownRow[];
  readonly byKey: readonly UsageBreakdownRow[];
}

/** A request record: what the gateway answered, the figures of its `_meta`. */
export interface UsageRequest {
  readonly id: string;
  readonly time: string;
  readonly routerId: string | null;
  readonly routerName: string | null;
  readonly model: string | null;
  readonly keyId: string | null;
  readonly keyName: string | null;
  readonly status: number;
  readonly errorCode: string | null;
  readonly streamed: boolean;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  readonly attempts: number;
}

export interface RequestsPage {
  readonly requests: readonly UsageRequest[];
  readonly nextBefore: string | null;
}

export interface TrafficReport {
  readonly from: string;
  readonly to: string;
  readonly hourly: readonly { readonly t: string; readonly requests: number; readonly errors: number; readonly costUsd: number }[];
  readonly recent: readonly UsageRequest[];
}

/** A step of an agent definition (docs/agents.md), as saved. */
export interface AgentStep {
  readonly name: string;
  readonly router?: string;
  readonly model?: string;
  readonly system?: string;
  readonly prompt: string;
  readonly temperature?: number;
  readonly max_tokens?: number;
  readonly tools?: readonly unknown[];
  readonly response_format?: { readonly type: string; readonly [key: string]: unknown };
  readonly needs?: readonly string[];
}

export interface AgentLimits {
  readonly max_steps?: number;
  readonly timeout_ms?: number;
  readonly max_cost_usd?: number;
  readonly max_parallel?: number;
}

export interface AgentDefinition {
  readonly name: string;
  readonly description?: string;
  readonly steps: readonly AgentStep[];
  readonly limits?: AgentLimits;
}

export interface AgentVersion {
  readonly version: number;
  readonly definition: AgentDefinition;
  readonly createdAt: string;
}

export interface Agent {
  readonly id: string;
  readonly name: string;
  readonly model: string;
  readonly description: string;
  readonly version: number;
  readonly definition: AgentDefinition;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** On `GET /agents/:name` only. */
  readonly versions?: readonly AgentVersion[];
}

export interface ExecutionError {
  readonly code: string;
  readonly message: string | null;
}

export interface ExecutionStep {
  readonly name: string;
  readonly position: number;
  readonly status: string;
  readonly routerId: string | null;
  readonly model: string | null;
  readonly attempts: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  readonly output: string | null;
  readonly error: ExecutionError | null;
  readonly startedAt: string;
  readonly finishedAt: string;
}

export interface Execution {
  readonly id: string;
  readonly agentId: string;
  readonly agentName: string;
  readonly agentVersion: number;
  readonly keyId: string | null;
  readonly status: string;
  readonly streamed: boolean;
  readonly input: string;
  readonly output: string | null;
  readonly error: ExecutionError | null;
  readonly stepsExecuted: number;
  readonly totalCostUsd: number;
  readonly totalLatencyMs: number;
  readonly totalCarbonGrams: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly modelsUsed: readonly string[];
  readonly startedAt: string;
  readonly finishedAt: string | null;
  /** On `GET /executions/:id` only. */
  readonly steps?: readonly ExecutionStep[];
}

/** The agent form of `_meta` on a run's answer. */
export interface AgentMeta {
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
