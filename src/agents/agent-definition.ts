import { z } from 'zod';
import { modelKind, parseModelRef, type ModelCatalog } from '../catalog/catalog.js';
import { routerKind } from '../catalog/router-kind.js';
import { parseTemplate, referencedSteps, TemplateError, type TemplatePiece } from './agent-template.js';

/**
 * The agent definition format (docs/agents.md) and its save-time checks: every
 * mistake that would fail a run (unknown variables, cycles, missing routers or
 * models, too many steps, limits above the server's) is refused here with the
 * step and field it is in.
 */

/** The server's limits (MODELPORT_AGENT_*); a definition may only lower them. */
export interface AgentLimits {
  /** Steps in one agent. @default 20 */
  readonly maxSteps: number;
  /** Wall-clock time of one run, ms. @default 120000 */
  readonly timeoutMs: number;
  /** No step starts once a run has cost this much (USD). @default 1 */
  readonly maxCostUsd: number;
  /** Steps of one run called at the same time. @default 4 */
  readonly maxParallel: number;
}

export const DEFAULT_AGENT_LIMITS: AgentLimits = { maxSteps: 20, timeoutMs: 120_000, maxCostUsd: 1, maxParallel: 4 };

const SLUG = /^[a-z][a-z0-9_-]{0,63}$/;
const slug = (what: string) => z.string().regex(SLUG, `${what} must be a slug: lowercase letters, digits, "-" or "_", starting with a letter, at most 64 characters`);

const toolSchema = z.object({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'tool names are 1-64 letters, digits, "_" or "-"'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

const responseFormatSchema = z.union([
  z.object({ type: z.literal('json_object') }),
  z.object({ type: z.literal('json_schema'), json_schema: z.looseObject({ name: z.string().min(1), schema: z.record(z.string(), z.unknown()).optional() }) }),
  z.object({ type: z.literal('text') }),
]);

const stepSchema = z.strictObject({
  name: slug('a step name'),
  router: z.string().min(1).max(128).optional(),
  model: z.string().min(3).max(200).optional(),
  system: z.string().max(100_000).optional(),
  prompt: z.string().min(1, 'a step needs a prompt').max(100_000),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).optional(),
  tools: z.array(toolSchema).max(128).optional(),
  response_format: responseFormatSchema.optional(),
  needs: z.array(z.string()).max(64).optional(),
});

const limitsSchema = z.strictObject({
  max_steps: z.number().int().min(1).optional(),
  timeout_ms: z.number().int().min(1).optional(),
  max_cost_usd: z.number().positive().optional(),
  max_parallel: z.number().int().min(1).optional(),
});

const definitionSchema = z.strictObject({
  name: slug('the agent name'),
  description: z.string().max(2000).optional(),
  steps: z.array(stepSchema).min(1, 'an agent needs at least one step'),
  limits: limitsSchema.optional(),
});

export type AgentStepDefinition = z.infer<typeof stepSchema>;
export type AgentDefinition = z.infer<typeof definitionSchema>;

/** A refused definition: `path` names the field (e.g. `steps[1].prompt`). */
export class AgentDefinitionError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(path === '' ? message : `${path}: ${message}`);
    this.name = 'AgentDefinitionError';
    this.path = path;
  }
}

/** One step, ready to run. */
export interface PlannedStep {
  readonly position: number;
  readonly definition: AgentStepDefinition;
  readonly system: readonly TemplatePiece[] | undefined;
  readonly prompt: readonly TemplatePiece[];
  /** Steps that must have finished first: `needs`, the steps its templates read, and for the last step every other step. */
  readonly dependsOn: readonly string[];
}

/** A checked definition with its steps' templates parsed and their order known. */
export interface AgentPlan {
  readonly definition: AgentDefinition;
  readonly steps: readonly PlannedStep[];
  /** The step whose output is the answer: the last one listed. */
  readonly finalStep: string;
  readonly limits: AgentLimits;
  /** Every router the agent uses. */
  readonly routerIds: readonly string[];
}

/** What checking a definition needs to know about its owner. */
export interface DefinitionContext {
  /** The owner's live router with this id (its models tell its kind), or undefined. */
  readonly findRouter: (id: string) => Promise<{ readonly models: readonly string[] } | undefined>;
  /** The owner's catalog, for `model` steps. */
  readonly catalog: ModelCatalog;
  readonly limits: AgentLimits;
}

/** Checks a definition as sent (JSON or YAML parsed) and plans it; throws AgentDefinitionError. */
export async function checkAgentDefinition(input: unknown, context: DefinitionContext): Promise<AgentPlan> {
  const parsed = definitionSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentDefinitionError(formatPath(issue?.path ?? []), issue?.message ?? 'invalid agent definition');
  }
  const plan = planAgent(parsed.data, context.limits);
  for (const step of plan.steps) {
    const where = `steps[${step.position}]`;
    const { router, model } = step.definition;
    if (router !== undefined) {
      const found = await context.findRouter(router);
      if (found === undefined) throw new AgentDefinitionError(`${where}.router`, `no router "${router}" of yours exists`);
      // A step sends a chat request: an embedding router would refuse every run.
      if (routerKind(found.models, context.catalog) === 'embedding') {
        throw new AgentDefinitionError(`${where}.router`, `router "${router}" serves embeddings; a step needs a chat router`);
      }
    }
    if (model !== undefined) {
      const info = context.catalog.get(model);
      if (info === undefined) throw new AgentDefinitionError(`${where}.model`, `unknown model "${model}"; see "modelport models list" for provider:model ids`);
      if (modelKind(info) === 'embedding') throw new AgentDefinitionError(`${where}.model`, `"${model}" is an embedding model; a step needs a chat model`);
    }
  }
  return plan;
}

/**
 * Plans a definition that passed the schema: templates, dependencies, cycles
 * and limits. Stored definitions are planned again at run time (the server's
 * limits may have changed since), without the router lookups.
 */
export function planAgent(definition: AgentDefinition, serverLimits: AgentLimits): AgentPlan {
  const limits = effectiveLimits(definition, serverLimits);
  if (definition.steps.length > limits.maxSteps) {
    throw new AgentDefinitionError('steps', `${definition.steps.length} steps is more than the limit of ${limits.maxSteps}`);
  }
  const names = new Map<string, number>();
  definition.steps.forEach((step, position) => {
    if (names.has(step.name)) throw new AgentDefinitionError(`steps[${position}].name`, `the step name "${step.name}" is used twice`);
    names.set(step.name, position);
    if ((step.router === undefined) === (step.model === undefined)) {
      throw new AgentDefinitionError(`steps[${position}]`, 'a step needs either "router" (a router id) or "model" (provider:model), not both');
    }
    if (step.model !== undefined && parseModelRef(step.model) === undefined) {
      throw new AgentDefinitionError(`steps[${position}].model`, `"${step.model}" is not a provider:model id`);
    }
  });
  const finalStep = definition.steps[definition.steps.length - 1]?.name ?? '';
  const steps = definition.steps.map((step, position): PlannedStep => {
    const where = `steps[${position}]`;
    const system = step.system === undefined ? undefined : parsePieces(step.system, `${where}.system`);
    const prompt = parsePieces(step.prompt, `${where}.prompt`);
    const dependsOn = new Set<string>();
    (step.needs ?? []).forEach((need, index) => {
      if (!names.has(need)) throw new AgentDefinitionError(`${where}.needs[${index}]`, `no step is named "${need}"`);
      dependsOn.add(need);
    });
    for (const [field, pieces] of [['prompt', prompt], ['system', system ?? []]] as const) {
      for (const name of referencedSteps(pieces)) {
        if (!names.has(name)) throw new AgentDefinitionError(`${where}.${field}`, `{{steps.${name}…}} names no step of this agent`);
        dependsOn.add(name);
      }
      for (const piece of pieces) {
        if ('variable' in piece && piece.variable.kind === 'json') {
          const read = definition.steps[names.get(piece.variable.step) ?? -1];
          const format = read?.response_format?.type;
          if (format !== 'json_object' && format !== 'json_schema') {
            throw new AgentDefinitionError(`${where}.${field}`, `${piece.source} reads JSON, but step "${piece.variable.step}" has no JSON response_format`);
          }
        }
      }
    }
    if (dependsOn.has(step.name)) throw new AgentDefinitionError(where, `step "${step.name}" depends on itself`);
    // The answer is the last step's output: it runs after everything else.
    if (step.name === finalStep) for (const other of names.keys()) if (other !== finalStep) dependsOn.add(other);
    return { position, definition: step, system, prompt, dependsOn: [...dependsOn] };
  });
  const cycle = findCycle(steps);
  if (cycle !== undefined) throw new AgentDefinitionError('steps', `the steps depend on each other in a cycle: ${cycle.join(' → ')}`);
  const routerIds = [...new Set(definition.steps.flatMap((step) => (step.router === undefined ? [] : [step.router])))];
  return { definition, steps, finalStep, limits, routerIds };
}

function effectiveLimits(definition: AgentDefinition, server: AgentLimits): AgentLimits {
  const asked = definition.limits ?? {};
  const pick = (field: string, value: number | undefined, max: number): number => {
    if (value === undefined) return max;
    if (value > max) throw new AgentDefinitionError(`limits.${field}`, `${value} is above this server's limit of ${max}`);
    return value;
  };
  return {
    maxSteps: pick('max_steps', asked.max_steps, server.maxSteps),
    timeoutMs: pick('timeout_ms', asked.timeout_ms, server.timeoutMs),
    maxCostUsd: pick('max_cost_usd', asked.max_cost_usd, server.maxCostUsd),
    maxParallel: pick('max_parallel', asked.max_parallel, server.maxParallel),
  };
}

function parsePieces(template: string, path: string): TemplatePiece[] {
  try {
    return parseTemplate(template);
  } catch (error) {
    if (error instanceof TemplateError) throw new AgentDefinitionError(path, error.message);
    throw error;
  }
}

/** A dependency cycle as step names (first repeated at the end), or undefined. */
export function findCycle(steps: readonly Pick<PlannedStep, 'definition' | 'dependsOn'>[]): string[] | undefined {
  const byName = new Map(steps.map((step) => [step.definition.name, step]));
  const state = new Map<string, 'visiting' | 'done'>();
  const trail: string[] = [];
  const visit = (name: string): string[] | undefined => {
    const seen = state.get(name);
    if (seen === 'done') return undefined;
    if (seen === 'visiting') return [...trail.slice(trail.indexOf(name)), name];
    state.set(name, 'visiting');
    trail.push(name);
    for (const next of byName.get(name)?.dependsOn ?? []) {
      const cycle = visit(next);
      if (cycle !== undefined) return cycle;
    }
    trail.pop();
    state.set(name, 'done');
    return undefined;
  };
  for (const step of steps) {
    const cycle = visit(step.definition.name);
    if (cycle !== undefined) return cycle;
  }
  return undefined;
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) text += typeof part === 'number' ? `[${part}]` : `${text === '' ? '' : '.'}${String(part)}`;
  return text;
}
