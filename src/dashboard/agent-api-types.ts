/**
 * The agents' JSON shapes (docs/agents.md, docs/dashboard-api.md), beside dashboard-api-types.ts, which re-exports
 * them, and under the same rule: this module imports nothing, since the web app compiles it with DOM types only.
 */

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
