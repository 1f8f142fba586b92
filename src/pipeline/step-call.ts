import { chargeQuietly } from '../limits/budget-guard.js';
import { errors } from '../lib/errors.js';
import type { ChatRequest } from '../providers/contract.js';
import type { RouterDirectory } from '../routing/router-directory.js';
import type { SettlementDependencies } from './call-settlement.js';
import { toUsageRecord } from '../accounting/usage-row.js';
import type { CallUsage } from './call-state.js';
import { prepareRoute, type PreparedRoute, type RouteCallDependencies } from './route-and-call.js';

/**
 * The pipeline for one step of an agent run: the run was admitted once as a
 * request (rate limits, concurrency), so a step checks the budgets, plans,
 * calls with fallback and accounts exactly as a request to its router would
 * (route-and-call.ts), then settles with a usage record of its own.
 */

export interface StepDependencies extends RouteCallDependencies, Pick<SettlementDependencies, 'usage' | 'budgets'> {
  readonly routers: Pick<RouterDirectory, 'find'>;
}

/** What a step runs on: a router of the owner's, or one model alone. */
export interface StepTarget {
  readonly ownerId: string;
  /** The key the run was asked with; its budget is checked and charged. */
  readonly keyId: string | undefined;
  readonly routerId?: string | undefined;
  readonly model?: string | undefined;
}

/** Checks the key's and the router's budgets (429 insufficient_quota), then ranks the router's models for the step. */
export async function prepareStep(target: StepTarget, chatRequest: ChatRequest, deps: StepDependencies): Promise<PreparedRoute> {
  if (target.keyId !== undefined) await deps.budgets?.check({ keyId: target.keyId, routerId: target.routerId ?? '' });
  if (target.routerId !== undefined) {
    const router = await deps.routers.find(target.routerId);
    if (router === undefined || router.ownerId !== target.ownerId) throw errors.routerNotFound(target.routerId);
    return prepareRoute(router, chatRequest, deps);
  }
  // One model, no fallback: routed as a router of that model alone, so eligibility, health and accounting are the same.
  return prepareRoute({ ownerId: target.ownerId, strategy: 'cost_optimized', models: [target.model ?? ''] }, chatRequest, deps);
}

/** The settle-up of one step, whatever ended it: its usage record, and its cost charged to the key's and router's budgets. */
export function settleStep(usage: CallUsage, deps: Pick<SettlementDependencies, 'usage' | 'budgets'>): void {
  deps.usage.record(toUsageRecord(usage));
  void chargeQuietly(deps.budgets, usage.keyId ?? undefined, usage.routerId ?? undefined, usage.costUsd, () => undefined);
}
