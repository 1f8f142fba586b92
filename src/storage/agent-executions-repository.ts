import type { Kysely } from 'kysely';
import type { AgentExecutionRow, AgentExecutionStepRow, Database } from './schema.js';

export type ExecutionStatus = 'running' | 'succeeded' | 'failed';
export type StepStatus = 'succeeded' | 'failed' | 'cancelled';

export interface NewExecution {
  readonly id: string;
  readonly ownerId: string;
  readonly agentId: string;
  readonly agentName: string;
  readonly agentVersion: number;
  readonly keyId: string | undefined;
  readonly streamed: boolean;
  readonly input: string;
  readonly startedAt: number;
}

/** How an execution ended. */
export interface ExecutionEnd {
  readonly status: Exclude<ExecutionStatus, 'running'>;
  readonly output: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly stepsExecuted: number;
  readonly totalCostUsd: number;
  readonly totalLatencyMs: number;
  readonly totalCarbonGrams: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly modelsUsed: readonly string[];
  readonly finishedAt: number;
}

export interface StepRecord {
  readonly name: string;
  readonly position: number;
  readonly status: StepStatus;
  readonly routerId: string | null;
  readonly model: string | null;
  readonly attempts: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly costUsd: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  readonly output: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly startedAt: number;
  readonly finishedAt: number;
}

export interface ExecutionRecord {
  readonly id: string;
  readonly ownerId: string;
  readonly agentId: string;
  readonly agentName: string;
  readonly agentVersion: number;
  readonly keyId: string | null;
  readonly status: ExecutionStatus;
  readonly streamed: boolean;
  readonly input: string;
  readonly output: string | null;
  readonly errorCode: string | null;
  readonly errorMessage: string | null;
  readonly stepsExecuted: number;
  readonly totalCostUsd: number;
  readonly totalLatencyMs: number;
  readonly totalCarbonGrams: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly modelsUsed: readonly string[];
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

function toExecution(row: AgentExecutionRow): ExecutionRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    agentId: row.agent_id,
    agentName: row.agent_name,
    agentVersion: row.agent_version,
    keyId: row.key_id,
    status: row.status as ExecutionStatus,
    streamed: row.streamed === 1,
    input: row.input,
    output: row.output,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    stepsExecuted: row.steps_executed,
    totalCostUsd: row.total_cost_usd,
    totalLatencyMs: row.total_latency_ms,
    totalCarbonGrams: row.total_carbon_grams,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    modelsUsed: JSON.parse(row.models_used) as string[],
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

function toStep(row: AgentExecutionStepRow): StepRecord {
  return {
    name: row.name,
    position: row.position,
    status: row.status as StepStatus,
    routerId: row.router_id,
    model: row.model,
    attempts: row.attempts,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    costUsd: row.cost_usd,
    latencyMs: row.latency_ms,
    carbonGrams: row.carbon_grams,
    output: row.output,
    errorCode: row.error_code,
    errorMessage: row.error_message,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** Executions are written when they start, each step as it ends, and the totals when the run ends: a crash keeps the partial run. */
export function createAgentExecutionsRepository(db: Kysely<Database>) {
  return {
    async start(execution: NewExecution): Promise<void> {
      await db
        .insertInto('agent_executions')
        .values({
          id: execution.id,
          owner_id: execution.ownerId,
          agent_id: execution.agentId,
          agent_name: execution.agentName,
          agent_version: execution.agentVersion,
          key_id: execution.keyId ?? null,
          status: 'running',
          streamed: execution.streamed ? 1 : 0,
          input: execution.input,
          output: null,
          error_code: null,
          error_message: null,
          steps_executed: 0,
          total_cost_usd: 0,
          total_latency_ms: 0,
          total_carbon_grams: 0,
          prompt_tokens: 0,
          completion_tokens: 0,
          models_used: '[]',
          started_at: execution.startedAt,
          finished_at: null,
        })
        .execute();
    },
    async recordStep(executionId: string, step: StepRecord): Promise<void> {
      await db
        .insertInto('agent_execution_steps')
        .values({
          execution_id: executionId,
          name: step.name,
          position: step.position,
          status: step.status,
          router_id: step.routerId,
          model: step.model,
          attempts: step.attempts,
          prompt_tokens: step.promptTokens,
          completion_tokens: step.completionTokens,
          cost_usd: step.costUsd,
          latency_ms: step.latencyMs,
          carbon_grams: step.carbonGrams,
          output: step.output,
          error_code: step.errorCode,
          error_message: step.errorMessage,
          started_at: step.startedAt,
          finished_at: step.finishedAt,
        })
        .execute();
    },
    async finish(executionId: string, end: ExecutionEnd): Promise<void> {
      await db
        .updateTable('agent_executions')
        .set({
          status: end.status,
          output: end.output,
          error_code: end.errorCode,
          error_message: end.errorMessage,
          steps_executed: end.stepsExecuted,
          total_cost_usd: end.totalCostUsd,
          total_latency_ms: end.totalLatencyMs,
          total_carbon_grams: end.totalCarbonGrams,
          prompt_tokens: end.promptTokens,
          completion_tokens: end.completionTokens,
          models_used: JSON.stringify(end.modelsUsed),
          finished_at: end.finishedAt,
        })
        .where('id', '=', executionId)
        .execute();
    },
    /** One execution of the owner; with `madeWith`, only if it was made with that key id. */
    async find(ownerId: string, executionId: string, madeWith?: string): Promise<{ execution: ExecutionRecord; steps: StepRecord[] } | undefined> {
      let query = db.selectFrom('agent_executions').selectAll().where('id', '=', executionId).where('owner_id', '=', ownerId);
      if (madeWith !== undefined) query = query.where('key_id', '=', madeWith);
      const row = await query.executeTakeFirst();
      if (row === undefined) return undefined;
      const steps = await db.selectFrom('agent_execution_steps').selectAll().where('execution_id', '=', executionId).orderBy('started_at').orderBy('position').execute();
      return { execution: toExecution(row), steps: steps.map(toStep) };
    },
    /** The agent's executions, newest first; with `madeWith`, only those made with that key id. */
    async listByAgent(ownerId: string, agentId: string, limit: number, madeWith?: string): Promise<ExecutionRecord[]> {
      let query = db.selectFrom('agent_executions').selectAll().where('owner_id', '=', ownerId).where('agent_id', '=', agentId);
      if (madeWith !== undefined) query = query.where('key_id', '=', madeWith);
      const rows = await query
        .orderBy('started_at', 'desc')
        .orderBy('id')
        .limit(limit)
        .execute();
      return rows.map(toExecution);
    },
  };
}

export type AgentExecutionsRepository = ReturnType<typeof createAgentExecutionsRepository>;
