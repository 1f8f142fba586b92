import { errors } from '../lib/errors.js';
import type { ChatMessage } from '../providers/contract.js';
import type { ModelCatalog } from '../catalog/catalog.js';
import type { AgentExecutionsRepository, ExecutionRecord, StepRecord } from '../storage/agent-executions-repository.js';
import type { AgentRecord, AgentsRepository, AgentVersionRecord } from '../storage/agents-repository.js';
import { keyMayRun, keyRunRefusal, type AgentKey } from './agent-access.js';
import { AgentDefinitionError, checkAgentDefinition, planAgent, type AgentDefinition, type AgentLimits, type AgentPlan } from './agent-definition.js';
import { runAgent, type AgentRunResult, type AgentRuntime } from './agent-executor.js';

export interface AgentServiceOptions {
  readonly agents: AgentsRepository;
  readonly executions: AgentExecutionsRepository;
  /** Whether the owner has a live router with this id. */
  readonly findRouter: (ownerId: string, routerId: string) => Promise<{ readonly models: readonly string[] } | undefined>;
  /** The owner's catalog (shipped models with their own over them). */
  readonly catalogFor: (ownerId: string) => Promise<ModelCatalog>;
  /** The server's limits (MODELPORT_AGENT_*). */
  readonly limits: AgentLimits;
  /** What running needs; without it (the CLI's listing commands) `run` refuses. */
  readonly runtime?: AgentRuntime | undefined;
}

/** The key asking to run an agent. */
export type RunningKey = AgentKey;

export interface AgentRunInput {
  readonly ownerId: string;
  readonly key: RunningKey;
  readonly name: string;
  readonly messages: readonly ChatMessage[];
  readonly stream: boolean;
  readonly signal?: AbortSignal | undefined;
  /** performance.now() when the request arrived. */
  readonly startedAt: number;
}

const MAX_EXECUTIONS_LISTED = 1000;

const listLimit = (limit: number): number => Math.min(Math.max(1, Math.floor(limit)), MAX_EXECUTIONS_LISTED);

/**
 * Agents as their owner sees them, for the dashboard and the CLI (the owner in
 * person), and through `forKey` as one API key may see them: every method is
 * scoped to one owner and throws GatewayErrors (400 with the step and field for
 * a refused definition, 404, 409, 403).
 */
export function createAgentService(options: AgentServiceOptions) {
  const check = async (ownerId: string, input: unknown): Promise<AgentPlan> => {
    try {
      return await checkAgentDefinition(input, {
        findRouter: (id) => options.findRouter(ownerId, id),
        catalog: await options.catalogFor(ownerId),
        limits: options.limits,
      });
    } catch (error) {
      if (error instanceof AgentDefinitionError) throw errors.invalidAgent(`Invalid agent definition: ${error.message}`, error.path === '' ? null : error.path);
      throw error;
    }
  };
  const findAgent = async (ownerId: string, name: string): Promise<AgentRecord> => {
    const agent = await options.agents.findByName(ownerId, name);
    if (agent === undefined) throw errors.agentNotFound(name);
    return agent;
  };

  return {
    /** Checks and stores a new agent as version 1. */
    async create(ownerId: string, input: unknown): Promise<AgentRecord> {
      const plan = await check(ownerId, input);
      const definition = plan.definition;
      if ((await options.agents.findByName(ownerId, definition.name)) !== undefined) throw errors.agentExists(definition.name);
      try {
        return await options.agents.create(ownerId, definition.name, definition.description ?? '', definition);
      } catch (error) {
        // Two saves of the same new name at once: the unique index keeps one.
        if ((await options.agents.findByName(ownerId, definition.name)) !== undefined) throw errors.agentExists(definition.name);
        throw error;
      }
    },

    /** Checks and stores a new version of an existing agent; the name in the body may be left out. */
    async update(ownerId: string, name: string, input: unknown): Promise<AgentRecord> {
      const body = typeof input === 'object' && input !== null && !Array.isArray(input) ? { name, ...(input as Record<string, unknown>) } : input;
      const plan = await check(ownerId, body);
      if (plan.definition.name !== name) throw errors.invalidAgent(`Invalid agent definition: name: "${plan.definition.name}" differs from the agent being saved, "${name}"; an agent cannot be renamed.`, 'name');
      const saved = await options.agents.update(ownerId, name, plan.definition.description ?? '', plan.definition);
      if (saved === undefined) throw errors.agentNotFound(name);
      return saved;
    },

    /** Creates the agent, or saves a new version when it exists (the CLI's `agent create`). */
    async save(ownerId: string, input: unknown): Promise<AgentRecord> {
      const plan = await check(ownerId, input);
      const existing = await options.agents.findByName(ownerId, plan.definition.name);
      if (existing === undefined) return this.create(ownerId, input);
      return this.update(ownerId, plan.definition.name, input);
    },

    async get(ownerId: string, name: string): Promise<{ agent: AgentRecord; versions: AgentVersionRecord[] }> {
      const agent = await findAgent(ownerId, name);
      return { agent, versions: await options.agents.listVersions(agent.id) };
    },

    list: (ownerId: string): Promise<AgentRecord[]> => options.agents.listByOwner(ownerId),

    async remove(ownerId: string, name: string): Promise<void> {
      if (!(await options.agents.remove(ownerId, name))) throw errors.agentNotFound(name);
    },

    async listExecutions(ownerId: string, name: string, limit = 50): Promise<ExecutionRecord[]> {
      const agent = await findAgent(ownerId, name);
      return options.executions.listByAgent(ownerId, agent.id, listLimit(limit));
    },

    async getExecution(ownerId: string, id: string): Promise<{ execution: ExecutionRecord; steps: StepRecord[] }> {
      const found = await options.executions.find(ownerId, id);
      if (found === undefined) throw errors.executionNotFound(id);
      return found;
    },

    /**
     * The owner's agents and executions as one API key may read them (docs/agents.md, "What a key sees"). An
     * unrestricted key sees them all, dashboard and CLI runs included. A key restricted to some routers sees the
     * agents it may run (and those of their versions), answering an agent it may not run with the same 403 as
     * running it, and only the executions made with itself: any other execution id is a 404, as another
     * owner's is.
     */
    forKey(ownerId: string, key: AgentKey) {
      // Undefined: every execution of the owner. Null: none, for a restricted key with no id (none is made so),
      // which must not read the CLI's runs, recorded with no key id either.
      const madeWith = key.routerIds === undefined ? undefined : (key.id ?? null);
      const readable = async (name: string): Promise<AgentRecord> => {
        const agent = await findAgent(ownerId, name);
        const refused = keyRunRefusal(agent.name, agent.definition, key.routerIds);
        if (refused !== undefined) throw refused;
        return agent;
      };
      return {
        list: async (): Promise<AgentRecord[]> => (await options.agents.listByOwner(ownerId)).filter((agent) => keyMayRun(agent.definition, key.routerIds)),
        async get(name: string): Promise<{ agent: AgentRecord; versions: AgentVersionRecord[] }> {
          const agent = await readable(name);
          const versions = await options.agents.listVersions(agent.id);
          return { agent, versions: versions.filter((version) => keyMayRun(version.definition, key.routerIds)) };
        },
        async listExecutions(name: string, limit = 50): Promise<ExecutionRecord[]> {
          const agent = await readable(name);
          if (madeWith === null) return [];
          return options.executions.listByAgent(ownerId, agent.id, listLimit(limit), madeWith);
        },
        async getExecution(id: string): Promise<{ execution: ExecutionRecord; steps: StepRecord[] }> {
          const found = madeWith === null ? undefined : await options.executions.find(ownerId, id, madeWith);
          if (found === undefined) throw errors.executionNotFound(id);
          return found;
        },
      };
    },

    /**
     * Runs the owner's agent for a key: 404 when there is none by that name,
     * 403 when the key is restricted to routers and the agent uses another one
     * or calls a model directly.
     */
    async run(input: AgentRunInput): Promise<AgentRunResult> {
      const runtime = options.runtime;
      if (runtime === undefined) throw new Error('this agent service was built without a runtime');
      const agent = await findAgent(input.ownerId, input.name);
      let plan: AgentPlan;
      try {
        plan = planAgent(agent.definition as AgentDefinition, options.limits);
      } catch (error) {
        // The server's limits were lowered since it was saved.
        if (error instanceof AgentDefinitionError) throw errors.invalidAgent(`Agent "${agent.name}" no longer fits this server's limits: ${error.message}`, 'model');
        throw error;
      }
      const refused = keyRunRefusal(agent.name, plan.definition, input.key.routerIds);
      if (refused !== undefined) throw refused;
      return runAgent(runtime, {
        ownerId: input.ownerId,
        keyId: input.key.id,
        agent,
        plan,
        messages: input.messages,
        stream: input.stream,
        signal: input.signal,
        startedAt: input.startedAt,
      });
    },
  };
}

export type AgentService = ReturnType<typeof createAgentService>;
