import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { NewRequestLog, RequestLogsTable } from './request-log-schema.js';
import type { UsageLatencyRollupsTable, UsageRollupsTable } from './usage-rollup-schema.js';

/** Times are Unix epoch milliseconds in every dialect. */
type Millis = number;

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  created_at: Millis;
}

export interface RoutersTable {
  id: string;
  owner_id: string;
  name: string;
  strategy: string;
  /** JSON array of `provider:model` ids, in the owner's order of preference. */
  models: string;
  /** JSON RouterSettings (weights, quality target, cost ceiling); null when every default applies. */
  settings: string | null;
  created_at: Millis;
  updated_at: Millis;
  deleted_at: Millis | null;
  /** Requests per minute across every key (0006); null: no router limit. */
  rpm_limit: number | null;
  /** Tokens per minute across every key (0006); null: no router limit. */
  tpm_limit: number | null;
}

export interface ApiKeysTable {
  id: string;
  owner_id: string;
  name: string;
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, for people to recognise it. */
  display_prefix: string;
  /** JSON array of router ids, or null for every router of the owner. */
  router_ids: string | null;
  rpm_limit: number | null;
  /** Tokens per minute (0006); null: no token limit unless the server sets a default. */
  tpm_limit: number | null;
  /** Requests in flight at once (0006); null: no cap. */
  max_concurrency: number | null;
  created_at: Millis;
  last_used_at: Millis | null;
  expires_at: Millis | null;
  revoked_at: Millis | null;
}

export interface UsageRecordsTable {
  /** The request id, so a record written twice is written once. */
  id: string;
  created_at: Millis;
  owner_id: string | null;
  key_id: string | null;
  router_id: string | null;
  model: string | null;
  status: number;
  error_code: string | null;
  streamed: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  latency_ms: number;
  carbon_grams: number;
  attempts: number;
  /** `auto` routers (0012): what the same tokens would have cost on the router's strongest model; null otherwise. */
  counterfactual_cost_usd: ColumnType<number | null, number | null | undefined, number | null>;
  /** Energy of the call, PUE included (0013); 0 on older records. */
  energy_wh: ColumnType<number, number | undefined, number>;
  /** Prompt tokens read from the provider's cache (0013). */
  cached_prompt_tokens: ColumnType<number, number | undefined, number>;
  /** Prompt tokens written to the provider's cache (0013). */
  cache_write_prompt_tokens: ColumnType<number, number | undefined, number>;
  /** Reasoning tokens, counted inside completion_tokens (0013). */
  reasoning_tokens: ColumnType<number, number | undefined, number>;
}

/** One auto-routed request's prompt features (0012), kept so feedback on it can become a label; bounded per router. */
export interface RoutingSamplesTable {
  request_id: string;
  owner_id: string;
  router_id: string;
  /** The model that answered. */
  model_id: string;
  /** The prompt vector, base64 of little-endian float32 (src/routing/auto/prompt-vector.ts). */
  vector: string;
  created_at: Millis;
}

/** What an `auto` router is fitted on (0012): an owner's calibration examples and feedback on requests. */
export interface RoutingLabelsTable {
  id: string;
  owner_id: string;
  router_id: string;
  model_id: string;
  vector: string;
  /** 0..1. */
  score: number;
  /** `calibration` or `feedback`. */
  source: string;
  /** Feedback only: the request scored. */
  request_id: string | null;
  /** Feedback only: who scored it (a key id, or `session:<userId>`); one label per request and rater. */
  key_id: string | null;
  comment: string | null;
  created_at: Millis;
  /** When the score last changed (a repeated feedback replaces it). */
  updated_at: Millis;
}

/** Which instance fits a router now (0012): one at a time, until the lease expires. */
export interface RouterRefitLeasesTable {
  router_id: string;
  holder: string;
  expires_at: Millis;
}

export interface ProviderCredentialsTable {
  id: string;
  owner_id: string;
  /** A preset name (`openai`…) or the owner's custom OpenAI-compatible provider. */
  provider: string;
  /** The owner's base URL; null means the preset's (as the server uses it). */
  base_url: string | null;
  /** The key sealed with AES-256-GCM (`v1:iv:ciphertext:tag`, base64); null when the provider needs none. */
  encrypted_key: string | null;
  /** The key's last characters, for people to recognise it. */
  key_hint: string | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface CustomModelsTable {
  owner_id: string;
  provider: string;
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  cached_input_per_mtok: number | null;
  context_window: number;
  max_output_tokens: number;
  /** 0 or 1. */
  supports_tools: number;
  /** 0 or 1. */
  supports_vision: number;
  quality_score: number | null;
  active_params_b: number | null;
  /** 'chat' or 'embedding' (0010). */
  kind: Generated<string>;
  /** Embedding models only: default vector length. */
  embedding_dimensions: number | null;
  /** Embedding models only: 0 or 1, whether a request's `dimensions` may shorten the vectors. */
  embedding_shortenable: number | null;
  /** Embedding models only: models of one space give comparable vectors. */
  embedding_space: string | null;
  created_at: Millis;
  updated_at: Millis;
}

export interface AgentsTable {
  id: string;
  owner_id: string;
  /** Slug, unique among the owner's live agents. */
  name: string;
  description: string;
  /** The current version (1, 2…). */
  version: number;
  /** The current version's definition, JSON. */
  definition: string;
  created_at: Millis;
  updated_at: Millis;
  deleted_at: Millis | null;
}

export interface AgentVersionsTable {
  agent_id: string;
  version: number;
  definition: string;
  created_at: Millis;
}

export interface AgentExecutionsTable {
  id: string;
  owner_id: string;
  agent_id: string;
  agent_name: string;
  agent_version: number;
  key_id: string | null;
  /** running, succeeded or failed. */
  status: string;
  /** 0 or 1. */
  streamed: number;
  input: string;
  output: string | null;
  error_code: string | null;
  error_message: string | null;
  steps_executed: number;
  total_cost_usd: number;
  total_latency_ms: number;
  total_carbon_grams: number;
  prompt_tokens: number;
  completion_tokens: number;
  /** JSON array of provider:model ids. */
  models_used: string;
  started_at: Millis;
  finished_at: Millis | null;
}

export interface AgentExecutionStepsTable {
  execution_id: string;
  name: string;
  position: number;
  /** succeeded, failed or cancelled. */
  status: string;
  router_id: string | null;
  model: string | null;
  attempts: number;
  prompt_tokens: number;
  completion_tokens: number;
  cost_usd: number;
  latency_ms: number;
  carbon_grams: number;
  output: string | null;
  error_code: string | null;
  error_message: string | null;
  started_at: Millis;
  finished_at: Millis;
}

export interface BudgetsTable {
  /** `key` or `router`. */
  subject_kind: string;
  subject_id: string;
  amount_usd: number;
  /** `day` or `month`: UTC calendar periods. */
  period: string;
  created_at: Millis;
  updated_at: Millis;
}

/** Stored answers of the Responses API (0009), scoped to their owner. */
export interface ResponsesTable {
  /** `resp_…`. */
  id: string;
  owner_id: string;
  /** The key that made it; null once unknown. */
  key_id: string | null;
  created_at: Millis;
  expires_at: Millis;
  /** The response object, JSON. */
  response: string;
  /** The input items it was made from, earlier turns included: JSON array. */
  input_items: string;
  /** UTF-8 bytes of `response` and `input_items`. */
  size_bytes: number;
}

export interface ChangeCounterTable {
  id: number;
  version: ColumnType<number, number, number>;
}

/**
 * A sign-up waiting for its address to be confirmed: the account is created from it only when the link mailed
 * to `email` comes back with the password chosen at sign-up (docs/dashboard-api.md, Sign-up and verification).
 */
export interface SignupVerificationsTable {
  /** Hex SHA-256 of the token in the link; the token itself is never stored. */
  token_hash: string;
  email: string;
  /** The chosen password's scrypt hash, the account's once confirmed. */
  password_hash: string;
  created_at: Millis;
  expires_at: Millis;
}

export interface SessionsTable {
  /** Hex SHA-256 of the cookie's value; the value itself is never stored. */
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: Millis;
  last_seen_at: Millis;
}

export interface OrganizationsTable {
  /** Also the id of the organisation's principal row in `users`, and the `owner_id` of what it owns. */
  id: string;
  name: string;
  created_by: string;
  created_at: Millis;
}

export interface OrganizationMembersTable {
  organization_id: string;
  user_id: string;
  /** owner | admin | viewer */
  role: string;
  created_at: Millis;
}

export interface KeyRotationsTable {
  old_key_id: string;
  new_key_id: string;
  created_at: Millis;
}

/** Live gateway processes (0006): each heartbeats its row, so the fleet size is known without Redis. */
export interface GatewayInstancesTable {
  id: string;
  started_at: Millis;
  heartbeat_at: Millis;
}

export interface Database {
  users: UsersTable;
  routers: RoutersTable;
  api_keys: ApiKeysTable;
  usage_records: UsageRecordsTable;
  change_counter: ChangeCounterTable;
  provider_credentials: ProviderCredentialsTable;
  custom_models: CustomModelsTable;
  sessions: SessionsTable;
  signup_verifications: SignupVerificationsTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  key_rotations: KeyRotationsTable;
  agents: AgentsTable;
  agent_versions: AgentVersionsTable;
  agent_executions: AgentExecutionsTable;
  agent_execution_steps: AgentExecutionStepsTable;
  budgets: BudgetsTable;
  gateway_instances: GatewayInstancesTable;
  responses: ResponsesTable;
  routing_samples: RoutingSamplesTable;
  routing_labels: RoutingLabelsTable;
  router_refit_leases: RouterRefitLeasesTable;
  request_logs: RequestLogsTable;
  usage_rollups: UsageRollupsTable;
  usage_latency_rollups: UsageLatencyRollupsTable;
}

export type UserRow = Selectable<UsersTable>;
export type RouterRow = Selectable<RoutersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type ProviderCredentialRow = Selectable<ProviderCredentialsTable>;
export type CustomModelRow = Selectable<CustomModelsTable>;
export type UsageRecordRow = Selectable<UsageRecordsTable>;
/**
 * A usage record as queued; an auto-routed request's prompt features ride with it, so the usage writer stores both
 * in the same batch, off the request path (the sample is not a column of usage_records).
 */
export type NewUsageRecord = Insertable<UsageRecordsTable> & { readonly routing_sample?: NewRoutingSample | undefined; readonly request_log?: NewRequestLog | undefined };
/** A routing sample as the pipeline hands it over; its request id and owner are the usage record's. */
export interface NewRoutingSample {
  readonly router_id: string;
  readonly model_id: string;
  readonly vector: string;
}
export type RoutingSampleRow = Selectable<RoutingSamplesTable>;
export type RoutingLabelRow = Selectable<RoutingLabelsTable>;
export type AgentRow = Selectable<AgentsTable>;
export type AgentExecutionRow = Selectable<AgentExecutionsTable>;
export type AgentExecutionStepRow = Selectable<AgentExecutionStepsTable>;
export type BudgetRow = Selectable<BudgetsTable>;
export type StoredResponseRow = Selectable<ResponsesTable>;
export type { Generated };
export type { UsageLatencyRollupsTable, UsageRollupsTable } from './usage-rollup-schema.js';
export type { NewRequestBodies, NewRequestLog, RequestLogRow, RequestLogsTable } from './request-log-schema.js';
