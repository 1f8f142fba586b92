import type { NewUsageRecord, UsageRecordRow } from '../storage/schema.js';

/**
 * A usage record in the gateway's own terms: what the pipeline records of a call, and what the CLI
 * (`modelport usage list`) and the dashboard's request log show of it. Times are epoch ms.
 */
export interface UsageRow {
  readonly id: string;
  readonly createdAt: number;
  readonly ownerId: string | null;
  readonly keyId: string | null;
  readonly routerId: string | null;
  readonly model: string | null;
  readonly status: number;
  readonly errorCode: string | null;
  readonly streamed: boolean;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  /** Energy of the call, data-centre overhead included (docs/carbon.md). */
  readonly energyWh: number;
  /** Prompt tokens read from the provider's cache, billed at the cached price. */
  readonly cachedPromptTokens: number;
  /** Prompt tokens written to the provider's cache, billed at the cache-write price. */
  readonly cacheWritePromptTokens: number;
  /** Reasoning tokens, inside `completionTokens` and billed as output. */
  readonly reasoningTokens: number;
  readonly attempts: number;
  /** `auto` routers: what the same tokens would have cost on the router's strongest model (catalog prices); null otherwise. */
  readonly counterfactualCostUsd: number | null;
}

/** The one mapping from a stored usage record to the row people see. */
export function toUsageRow(row: UsageRecordRow): UsageRow {
  return {
    id: row.id,
    createdAt: row.created_at,
    ownerId: row.owner_id,
    keyId: row.key_id,
    routerId: row.router_id,
    model: row.model,
    status: row.status,
    errorCode: row.error_code,
    streamed: Boolean(row.streamed),
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    totalTokens: row.total_tokens,
    costUsd: row.cost_usd,
    latencyMs: row.latency_ms,
    carbonGrams: row.carbon_grams,
    energyWh: row.energy_wh,
    cachedPromptTokens: row.cached_prompt_tokens,
    cacheWritePromptTokens: row.cache_write_prompt_tokens,
    reasoningTokens: row.reasoning_tokens,
    attempts: row.attempts,
    counterfactualCostUsd: row.counterfactual_cost_usd,
  };
}

/** What a call's usage record is made from: the row without its derived total; no counterfactual but for `auto` routers. */
export type UsageRecordInput = Omit<UsageRow, 'totalTokens' | 'counterfactualCostUsd'> & { readonly counterfactualCostUsd?: number | null | undefined };

/** The one mapping from a call's usage to the stored record (the total is derived, never passed). */
export function toUsageRecord(row: UsageRecordInput, rides: Pick<NewUsageRecord, 'routing_sample' | 'request_log'> = {}): NewUsageRecord {
  return {
    id: row.id,
    created_at: row.createdAt,
    owner_id: row.ownerId,
    key_id: row.keyId,
    router_id: row.routerId,
    model: row.model,
    status: row.status,
    error_code: row.errorCode,
    streamed: row.streamed ? 1 : 0,
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    total_tokens: row.promptTokens + row.completionTokens,
    cost_usd: row.costUsd,
    latency_ms: row.latencyMs,
    carbon_grams: row.carbonGrams,
    energy_wh: row.energyWh,
    cached_prompt_tokens: row.cachedPromptTokens,
    cache_write_prompt_tokens: row.cacheWritePromptTokens,
    reasoning_tokens: row.reasoningTokens,
    attempts: row.attempts,
    counterfactual_cost_usd: row.counterfactualCostUsd ?? null,
    // What is written in the record's batch beside it (the prompt's features of an auto call, the request log's detail).
    routing_sample: rides.routing_sample,
    request_log: rides.request_log,
  };
}
