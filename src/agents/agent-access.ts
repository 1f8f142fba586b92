import { errors, GatewayError } from '../lib/errors.js';

/** The API key that reads or runs its owner's agents. */
export interface AgentKey {
  /** Undefined for a run made with no key (the CLI's `agent run`). */
  readonly id: string | undefined;
  /** Undefined: every router of the owner. */
  readonly routerIds: readonly string[] | undefined;
}

type Refusal = { readonly router: string } | { readonly directStep: string };

/**
 * The one rule for what a key restricted to some routers may run, and so read: an agent whose every step goes
 * through a router the key may use. A step that calls a model directly is refused too, since it would reach a
 * model outside the key's routers. The definition is read as stored (opaque JSON), so a listing needs no plan.
 */
function refusal(definition: unknown, routerIds: readonly string[] | undefined): Refusal | undefined {
  if (routerIds === undefined) return undefined;
  const steps = stepsOf(definition);
  const router = steps.find((step) => typeof step.router === 'string' && !routerIds.includes(step.router))?.router;
  if (typeof router === 'string') return { router };
  const direct = steps.find((step) => typeof step.router !== 'string');
  if (direct !== undefined) return { directStep: typeof direct.name === 'string' ? direct.name : '' };
  return steps.length === 0 ? { directStep: '' } : undefined;
}

/** Whether the key may run (and therefore see) an agent with this definition. */
export function keyMayRun(definition: unknown, routerIds: readonly string[] | undefined): boolean {
  return refusal(definition, routerIds) === undefined;
}

/**
 * The 403 for a key that may not run an agent, or undefined when it may. Running and reading give the same
 * answer, so a name the key cannot use looks the same whichever it tries.
 */
export function keyRunRefusal(agentName: string, definition: unknown, routerIds: readonly string[] | undefined): GatewayError | undefined {
  const refused = refusal(definition, routerIds);
  if (refused === undefined) return undefined;
  if ('router' in refused) return errors.routerAccessDenied(refused.router);
  const error = errors.routerAccessDenied(`agent:${agentName}`);
  return new GatewayError(
    error.status,
    error.type,
    error.code,
    `This API key is restricted to some routers, and step "${refused.directStep}" of agent "${agentName}" calls a model directly rather than through a router.`,
  );
}

function stepsOf(definition: unknown): { readonly name?: unknown; readonly router?: unknown }[] {
  const steps = (definition as { steps?: unknown } | null)?.steps;
  // Anything but a step object counts as a step with no router, so a malformed definition is refused, not let through.
  return Array.isArray(steps) ? steps.map((step: unknown) => (typeof step === 'object' && step !== null ? (step as Record<string, unknown>) : {})) : [];
}
