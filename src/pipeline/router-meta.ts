import type { CallAccount } from '../accounting/call-accounting.js';
import type { ModelInfo } from '../catalog/catalog.js';
import type { Attempt } from '../routing/fallback.js';
import type { RoutingMeta } from '../routing/plan-route.js';
import { roundTo, type CallState } from './call-state.js';
import type { AutoRoute } from './route-and-call.js';

/** The `_meta` object of a router response (spec 2.3), plus ModelPort's extra fields: the same in every wire format. */
export interface RouterMeta {
  readonly modelUsed: string;
  readonly cost: number;
  readonly latencyMs: number;
  readonly carbonGrams: number;
  /** Manufacturing emissions of the hardware for this call, apart from carbonGrams. */
  readonly embodiedCarbonGrams: number;
  readonly routerDecision: string;
  readonly routerId: string;
  readonly requestId: string;
  readonly provider: string;
  readonly usageEstimated: boolean;
  /** Streams only. */
  readonly timeToFirstTokenMs?: number | undefined;
  readonly attempts: readonly { model: string; outcome: string; reason?: string; status?: number; latencyMs: number }[];
  /** The models the router considered, ranked with reasons, and those it dropped (docs/routing.md). */
  readonly routing: RouterRoutingMeta;
}

/** `_meta.routing`: the plan's account, and for `auto` routers what this request saved. */
export interface RouterRoutingMeta extends RoutingMeta {
  /** `auto` only: what the same tokens would have cost on `strongestModel`, at catalog prices. */
  readonly counterfactualCostUsd?: number;
  /** `auto` only: the candidate with the highest predicted quality. */
  readonly strongestModel?: string;
}

/** `_meta` of a routed answer, whole or streamed, in every wire format: built here only. */
export function routerMeta(
  call: CallState,
  prepared: { readonly strategy: string; readonly router: { readonly id: string }; readonly routing: RoutingMeta; readonly auto: AutoRoute | undefined },
  model: ModelInfo,
  account: CallAccount,
  attempts: readonly Attempt[],
  firstAt: number | undefined,
): RouterMeta {
  return {
    modelUsed: model.id,
    cost: account.costUsd,
    latencyMs: roundTo(performance.now() - call.startedAt, 2),
    carbonGrams: account.carbonGrams,
    embodiedCarbonGrams: account.embodiedCarbonGrams,
    routerDecision: prepared.strategy,
    routerId: prepared.router.id,
    requestId: call.requestId,
    provider: model.provider,
    usageEstimated: account.usage.estimated,
    // Absent from a whole answer's JSON (undefined is not serialised); one object shape either way.
    timeToFirstTokenMs: firstAt === undefined ? undefined : roundTo(firstAt - call.startedAt, 2),
    attempts: attemptsForMeta(attempts),
    routing: prepared.auto === undefined ? prepared.routing : autoRoutingMeta(prepared.routing, prepared.auto, call.counterfactualCostUsd),
  };
}

function autoRoutingMeta(routing: RoutingMeta, auto: AutoRoute, counterfactual: number | null): RouterRoutingMeta {
  return {
    ...routing,
    explored: auto.explored,
    strongestModel: auto.strongestModel,
    ...(counterfactual === null ? {} : { counterfactualCostUsd: counterfactual }),
  };
}

/** `_meta.attempts`: each attempt as its own object, so later changes to the fallback's list never show in an answer. */
function attemptsForMeta(attempts: readonly Attempt[]): RouterMeta['attempts'] {
  return attempts.map((attempt) => ({ ...attempt }));
}
