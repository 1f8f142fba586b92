import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

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
  created_at: Millis;
  updated_at: Millis;
  deleted_at: Millis | null;
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
}

export interface ChangeCounterTable {
  id: number;
  version: ColumnType<number, number, number>;
}

export interface Database {
  users: UsersTable;
  routers: RoutersTable;
  api_keys: ApiKeysTable;
  usage_records: UsageRecordsTable;
  change_counter: ChangeCounterTable;
}

export type UserRow = Selectable<UsersTable>;
export type RouterRow = Selectable<RoutersTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type UsageRecordRow = Selectable<UsageRecordsTable>;
export type NewUsageRecord = Insertable<UsageRecordsTable>;
export type { Generated };
