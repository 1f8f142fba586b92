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

export interface AgentStep {
  readonly name?: string;
  readonly router?: string;
  readonly prompt?: string;
  readonly [key: string]: unknown;
}

export interface Agent {
  readonly name: string;
  readonly description?: string;
  readonly steps: readonly AgentStep[];
  readonly [key: string]: unknown;
}

export interface Execution {
  readonly id: string;
  readonly agentName?: string;
  readonly status?: string;
  readonly createdAt?: number | string;
  readonly totalCost?: number;
  readonly totalLatencyMs?: number;
  readonly steps?: readonly Record<string, unknown>[];
  readonly [key: string]: unknown;
}
