import type { ExecutionRecord, StepRecord } from '../storage/agent-executions-repository.js';
import type { AgentRecord, AgentVersionRecord } from '../storage/agents-repository.js';

/** The JSON shapes of agents and executions, shared by the JSON API and the CLI's --json. */

export function agentJson(agent: AgentRecord): Record<string, unknown> {
  return {
    object: 'agent',
    id: agent.id,
    name: agent.name,
    model: `agent:${agent.name}`,
    description: agent.description,
    version: agent.version,
    definition: agent.definition,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}

export function versionJson(version: AgentVersionRecord): Record<string, unknown> {
  return { version: version.version, created_at: version.createdAt, definition: version.definition };
}

export function executionJson(execution: ExecutionRecord): Record<string, unknown> {
  return {
    object: 'agent.execution',
    id: execution.id,
    agent_id: execution.agentId,
    agent_name: execution.agentName,
    agent_version: execution.agentVersion,
    key_id: execution.keyId,
    status: execution.status,
    streamed: execution.streamed,
    input: execution.input,
    output: execution.output,
    error: execution.errorCode === null ? null : { code: execution.errorCode, message: execution.errorMessage },
    steps_executed: execution.stepsExecuted,
    total_cost: execution.totalCostUsd,
    total_latency: execution.totalLatencyMs,
    total_carbon: execution.totalCarbonGrams,
    prompt_tokens: execution.promptTokens,
    completion_tokens: execution.completionTokens,
    models_used: execution.modelsUsed,
    started_at: execution.startedAt,
    finished_at: execution.finishedAt,
  };
}

export function stepJson(step: StepRecord): Record<string, unknown> {
  return {
    name: step.name,
    position: step.position,
    status: step.status,
    router: step.routerId,
    model: step.model,
    attempts: step.attempts,
    prompt_tokens: step.promptTokens,
    completion_tokens: step.completionTokens,
    cost: step.costUsd,
    latency: step.latencyMs,
    carbon: step.carbonGrams,
    output: step.output,
    error: step.errorCode === null ? null : { code: step.errorCode, message: step.errorMessage },
    started_at: step.startedAt,
    finished_at: step.finishedAt,
  };
}
