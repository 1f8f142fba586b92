import type { AgentDefinition, AgentLimits, AgentStep } from '../api/types';

export { movedToEnd, readersOfLastStep, withNewStep } from './agents-step-order';

/** One step as the form edits it; `key` only keeps React's identity across reorders. */
export interface StepValues {
  key: number;
  name: string;
  target: 'router' | 'model';
  router: string;
  model: string;
  system: string;
  prompt: string;
  needs: string[];
  temperature: number | '';
  maxTokens: number | '';
  json: boolean;
  /** Fields the form does not edit (tools, a json_schema format), kept as saved. */
  kept: Pick<AgentStep, 'tools' | 'response_format'>;
}

export type LimitKey = keyof AgentLimits;
export const LIMIT_FIELDS: readonly { readonly key: LimitKey; readonly label: string; readonly description: string; readonly decimals: number }[] = [
  { key: 'max_steps', label: 'Max steps', description: 'Lower than the server limit only.', decimals: 0 },
  { key: 'timeout_ms', label: 'Timeout (ms)', description: 'Whole run, from the request.', decimals: 0 },
  { key: 'max_cost_usd', label: 'Max cost (USD)', description: 'The run stops above it.', decimals: 6 },
  { key: 'max_parallel', label: 'Max parallel steps', description: 'Steps called at the same time.', decimals: 0 },
];

export interface AgentFormValues {
  name: string;
  description: string;
  limits: Record<LimitKey, number | ''>;
  steps: StepValues[];
}

let nextKey = 1;

export function emptyStep(name = ''): StepValues {
  return { key: nextKey++, name, target: 'router', router: '', model: '', system: '', prompt: '{{input}}', needs: [], temperature: '', maxTokens: '', json: false, kept: {} };
}

function stepValues(step: AgentStep): StepValues {
  const json = step.response_format !== undefined && step.response_format.type !== 'text';
  return {
    key: nextKey++,
    name: step.name,
    target: step.model !== undefined && step.router === undefined ? 'model' : 'router',
    router: step.router ?? '',
    model: step.model ?? '',
    system: step.system ?? '',
    prompt: step.prompt,
    needs: [...(step.needs ?? [])],
    temperature: step.temperature ?? '',
    maxTokens: step.max_tokens ?? '',
    json,
    kept: { ...(step.tools === undefined ? {} : { tools: step.tools }), ...(step.response_format?.type === 'json_schema' ? { response_format: step.response_format } : {}) },
  };
}

export function formValuesOf(definition: AgentDefinition | undefined): AgentFormValues {
  const limits = definition?.limits ?? {};
  return {
    name: definition?.name ?? '',
    description: definition?.description ?? '',
    limits: { max_steps: limits.max_steps ?? '', timeout_ms: limits.timeout_ms ?? '', max_cost_usd: limits.max_cost_usd ?? '', max_parallel: limits.max_parallel ?? '' },
    steps: definition === undefined ? [emptyStep('answer')] : definition.steps.map(stepValues),
  };
}

/** The definition as the API takes it: empty fields left out, so the server's checks name what is really wrong. */
export function definitionOf(values: AgentFormValues): AgentDefinition {
  const limits = Object.fromEntries(Object.entries(values.limits).filter(([, value]) => value !== '')) as AgentLimits;
  const steps = values.steps.map((step): AgentStep => {
    const out: Record<string, unknown> = { name: step.name.trim() };
    if (step.target === 'router') out.router = step.router;
    else out.model = step.model;
    if (step.system.trim() !== '') out.system = step.system;
    out.prompt = step.prompt;
    if (step.temperature !== '') out.temperature = step.temperature;
    if (step.maxTokens !== '') out.max_tokens = step.maxTokens;
    if (step.kept.tools !== undefined) out.tools = step.kept.tools;
    if (step.json) out.response_format = step.kept.response_format ?? { type: 'json_object' };
    const needs = step.needs.filter((name) => name !== step.name);
    if (needs.length > 0) out.needs = needs;
    return out as unknown as AgentStep;
  });
  return {
    name: values.name.trim(),
    ...(values.description.trim() === '' ? {} : { description: values.description.trim() }),
    steps,
    ...(Object.keys(limits).length === 0 ? {} : { limits }),
  };
}

/** `steps[2].prompt` → step 2, field `prompt`; `steps[2]` → step 2, field ''. */
export function stepParam(param: string): { index: number; field: string } | undefined {
  const match = /^steps\[(\d+)\](?:\.(\w+))?/.exec(param);
  if (match === null) return undefined;
  return { index: Number(match[1]), field: match[2] ?? '' };
}
