import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseWholeNumber } from '../admin/admin-service.js';
import { AdminInputError } from '../admin/admin-errors.js';
import { agentJson, executionJson, stepJson, versionJson } from '../agents/agent-views.js';
import { GatewayError } from '../lib/errors.js';
import { UsageError, type CommandContext, type CommandSpec, type OptionSpec } from './command.js';
import { formatUsd, usdDigits } from '../lib/money.js';
import { formatNumber, renderTable, shortTime, type JsonObject } from './output.js';

const OWNER: OptionSpec = { type: 'string', valueName: 'email', required: true, description: 'Email of the user who owns the agent' };
const asJson = (value: Record<string, unknown>): JsonObject => JSON.parse(JSON.stringify(value)) as JsonObject;

function requireName(name: string | undefined, command: string): string {
  if (name === undefined || name === '') throw new UsageError(`"${command}" needs the agent name: modelport ${command} <name>.`, command);
  return name;
}

/** A definition file: YAML for .yaml/.yml, JSON otherwise (and YAML when it is not JSON). */
async function readDefinition(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AdminInputError(`Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const yaml = ['.yaml', '.yml'].includes(extname(path).toLowerCase());
  try {
    return yaml ? (parseYaml(text) as unknown) : (JSON.parse(text) as unknown);
  } catch (jsonError) {
    if (!yaml) {
      try {
        return parseYaml(text) as unknown;
      } catch {
        throw new AdminInputError(`${path} is neither JSON nor YAML: ${jsonError instanceof Error ? jsonError.message : String(jsonError)}`);
      }
    }
    throw new AdminInputError(`${path} is not valid YAML: ${jsonError instanceof Error ? jsonError.message : String(jsonError)}`);
  }
}

const createAgent: CommandSpec = {
  noun: 'agent',
  verb: 'create',
  summary: 'Create an agent from a JSON or YAML file, or save a new version of it',
  description:
    'Checks the definition (steps, templates, needs, routers, models, limits; see docs/agents.md) and stores it. An agent of the same name gets a new version; executions remember which version ran. Clients run it with model "agent:<name>".',
  options: { owner: OWNER, file: { type: 'string', valueName: 'path', required: true, description: 'The definition, .json or .yaml' } },
  examples: ['modelport agent create --owner owner@example.com --file research.yaml'],
  async run(options, context) {
    const admin = await context.admin();
    const agent = await admin.saveAgent(options.requiredString('owner'), await readDefinition(options.requiredString('file')));
    return {
      json: { agent: asJson(agentJson(agent)) },
      stdout: `${agent.name}\n`,
      stderr: `Saved agent "${agent.name}" version ${agent.version}: clients run it with model "agent:${agent.name}".\n`,
    };
  },
};

const listAgents: CommandSpec = {
  noun: 'agent',
  verb: 'list',
  readsOnly: true,
  summary: "List an owner's agents",
  description: 'Lists the agents of one owner with their current version and step count.',
  options: { owner: OWNER },
  examples: ['modelport agent list --owner owner@example.com'],
  async run(options, context) {
    const agents = await (await context.admin()).listAgents(options.requiredString('owner'));
    const steps = (definition: unknown) => ((definition as { steps?: unknown[] }).steps ?? []).length;
    return {
      json: { agents: agents.map((agent) => asJson(agentJson(agent))) },
      stdout:
        agents.length === 0
          ? '(no agents)\n'
          : renderTable(
              ['NAME', 'VERSION', 'STEPS', 'UPDATED', 'DESCRIPTION'],
              agents.map((agent) => [agent.name, String(agent.version), String(steps(agent.definition)), shortTime(agent.updatedAt), agent.description]),
            ),
    };
  },
};

const showAgent: CommandSpec = {
  noun: 'agent',
  verb: 'show',
  readsOnly: true,
  summary: "Show an agent's current definition and its versions",
  description: 'Prints the current definition as JSON, then the list of saved versions.',
  options: { owner: OWNER },
  positional: { valueName: 'name', description: 'The agent name' },
  examples: ['modelport agent show research --owner owner@example.com'],
  async run(options, context) {
    const name = requireName(options.positional(), 'agent show');
    const { agent, versions } = await (await context.admin()).showAgent(options.requiredString('owner'), name);
    return {
      json: { agent: asJson({ ...agentJson(agent), versions: versions.map(versionJson) }) },
      stdout: `${JSON.stringify(agent.definition, null, 2)}\n`,
      stderr: `Agent "${agent.name}" (${agent.id}), version ${agent.version}; versions: ${versions.map((version) => version.version).join(', ')}.\n`,
    };
  },
};

const agentRuns: CommandSpec = {
  noun: 'agent',
  verb: 'runs',
  readsOnly: true,
  summary: "List an agent's executions, newest first",
  description: 'Lists executions of the agent with their status, steps, cost and latency. "agent execution <id>" shows one with its steps.',
  options: { owner: OWNER, limit: { type: 'string', valueName: 'n', description: 'At most this many (default 50)' } },
  positional: { valueName: 'name', description: 'The agent name' },
  examples: ['modelport agent runs research --owner owner@example.com --limit 10'],
  async run(options, context) {
    const name = requireName(options.positional(), 'agent runs');
    const limitText = options.string('limit');
    const runs = await (await context.admin()).agentRuns(options.requiredString('owner'), name, limitText === undefined ? undefined : parseWholeNumber(limitText, '--limit'));
    return {
      json: { executions: runs.map((run) => asJson(executionJson(run))) },
      stdout:
        runs.length === 0
          ? '(no executions)\n'
          : renderTable(
              ['EXECUTION', 'STARTED', 'VERSION', 'STATUS', 'STEPS', 'COST $', 'LATENCY ms'],
              runs.map((run) => [
                run.id,
                shortTime(run.startedAt),
                String(run.agentVersion),
                run.errorCode === null ? run.status : `${run.status} ${run.errorCode}`,
                String(run.stepsExecuted),
                usdDigits(run.totalCostUsd),
                formatNumber(run.totalLatencyMs, 0),
              ]),
            ),
    };
  },
};

const showExecution: CommandSpec = {
  noun: 'agent',
  verb: 'execution',
  readsOnly: true,
  summary: 'Show one execution with every step (model, tokens, cost, latency, carbon, output, error)',
  description: 'Shows an execution by its id (the execution_id of the answer or of the error).',
  options: { owner: OWNER },
  positional: { valueName: 'execution_id', description: 'exe_...' },
  examples: ['modelport agent execution exe_AbCdEf --owner owner@example.com --json'],
  async run(options, context) {
    const id = options.positional();
    if (id === undefined) throw new UsageError('"agent execution" needs the execution id.', 'agent execution');
    const { execution, steps } = await (await context.admin()).showExecution(options.requiredString('owner'), id);
    const table = renderTable(
      ['STEP', 'STATUS', 'MODEL', 'TOKENS', 'COST $', 'LATENCY ms', 'CO2 g'],
      steps.map((step) => [
        step.name,
        step.errorCode === null ? step.status : `${step.status} ${step.errorCode}`,
        step.model ?? '-',
        String(step.promptTokens + step.completionTokens),
        usdDigits(step.costUsd),
        formatNumber(step.latencyMs, 0),
        formatNumber(step.carbonGrams, 4),
      ]),
    );
    const head = `${execution.id} agent ${execution.agentName} v${execution.agentVersion}: ${execution.status}${execution.errorCode === null ? '' : ` (${execution.errorCode}: ${execution.errorMessage ?? ''})`}\n`;
    return {
      json: { execution: asJson({ ...executionJson(execution), steps: steps.map(stepJson) }) },
      stdout: `${head}${table}${execution.output === null ? '' : `\n${execution.output}\n`}`,
    };
  },
};

const deleteAgent: CommandSpec = {
  noun: 'agent',
  verb: 'delete',
  summary: 'Delete an agent (its executions stay readable)',
  description: 'Deletes the agent; its name becomes free. Its executions and their records stay.',
  options: { owner: OWNER },
  positional: { valueName: 'name', description: 'The agent name' },
  examples: ['modelport agent delete research --owner owner@example.com'],
  async run(options, context) {
    const name = requireName(options.positional(), 'agent delete');
    await (await context.admin()).deleteAgent(options.requiredString('owner'), name);
    return { json: { deleted: name }, stdout: `Deleted agent "${name}".\n` };
  },
};

const runAgentCommand: CommandSpec = {
  noun: 'agent',
  verb: 'run',
  summary: 'Run an agent once, in this process, and print its answer',
  description:
    'Builds the gateway in-process from the same environment as the server (DATABASE_URL, provider keys, MODELPORT_*), runs the agent on the input as the owner would with an unrestricted key, records the execution and its usage, and prints the answer (the execution id on stderr). The sim provider works offline.',
  options: { owner: OWNER, input: { type: 'string', valueName: 'text', required: true, description: 'The user message ({{input}})' } },
  positional: { valueName: 'name', description: 'The agent name' },
  examples: ['modelport agent run research --owner owner@example.com --input "heat pumps"'],
  async run(options, context) {
    const name = requireName(options.positional(), 'agent run');
    return runInProcess(context, options.requiredString('owner'), name, options.requiredString('input'));
  },
};

async function runInProcess(context: CommandContext, ownerEmail: string, name: string, input: string) {
  const app = await context.gateway();
  try {
    const owner = await app.repositories.users.findByEmail(ownerEmail);
    if (owner === undefined) throw new AdminInputError(`No user with email ${ownerEmail}.`);
    const result = await app.agents.run({
      ownerId: owner.id,
      key: { id: undefined, routerIds: undefined },
      name,
      messages: [{ role: 'user', content: input }],
      stream: false,
      startedAt: performance.now(),
    });
    if (result.kind !== 'answer') throw new Error('a run that was not asked to stream answered with a stream');
    const content = result.answer.result.message.content ?? '';
    const meta = result.meta;
    return {
      json: { execution_id: meta.execution_id, output: content, model: result.answer.model.id, _meta: asJson({ ...meta }) },
      stdout: `${content}\n`,
      stderr: `Execution ${meta.execution_id}: ${meta.steps_executed} steps, ${formatUsd(meta.total_cost)}, ${formatNumber(meta.total_latency, 0)} ms, models ${meta.models_used.join(', ')}.\n`,
    };
  } catch (error) {
    if (error instanceof GatewayError) {
      const execution = typeof error.details.execution_id === 'string' ? ` (execution ${error.details.execution_id})` : '';
      throw new AdminInputError(`${error.message}${execution}`);
    }
    throw error;
  } finally {
    await app.close();
  }
}

export const agentCommands: readonly CommandSpec[] = [createAgent, listAgents, showAgent, agentRuns, showExecution, runAgentCommand, deleteAgent];
