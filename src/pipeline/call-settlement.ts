import type { UsageRecorder } from '../accounting/usage-recorder.js';
import { chargeQuietly, type BudgetGuard } from '../limits/budget-guard.js';
import type { RateLimits } from '../limits/rate-limits.js';
import type { MaybePromise } from '../lib/maybe-promise.js';
import { toUsageRecord } from '../accounting/usage-row.js';
import { createSecretRedactor, type SecretRedactor } from '../lib/redact-secrets.js';
import type { NewRequestLog } from '../storage/schema.js';
import { requestUsage, type CallState } from './call-state.js';

/**
 * How a routed call ends, whatever ends it (an answer, an error, a client that
 * left, a stream cut mid-way): its cost charged to the budgets once it is known,
 * its usage record queued exactly once, its rate-limit admissions freed exactly
 * once. Every surface ends its calls through these functions and nothing else
 * touches the usage recorder, the budgets' charge or the limits' release.
 */

/** What the settle-up needs. */
export interface SettlementDependencies {
  readonly rateLimiter: Pick<RateLimits, 'finish'>;
  readonly usage: Pick<UsageRecorder, 'record'>;
  /** Spend caps per key and router. Absent: nothing is charged. */
  readonly budgets?: BudgetGuard | undefined;
  /** Removes secrets from logged bodies (the server's provider keys besides key patterns). @default key patterns only */
  readonly redactSecrets?: SecretRedactor | undefined;
}

const patternsOnly = createSecretRedactor();

/** Where a failed charge is reported (a pino logger fits); the request still completes. */
export interface CallLog {
  warn(details: object, message: string): void;
}

/**
 * Queues the call's usage record with its final status, once: later calls are
 * no-ops. A call that never got a key (refused before authentication) has no
 * owner to record against and is not recorded.
 */
export function settleCall(call: CallState, status: number, errorCode: string | null, deps: SettlementDependencies): void {
  if (call.settled) return;
  call.settled = true;
  if (call.key === undefined) return;
  // An answered auto request keeps its prompt's features for feedback, and every routed call the request log's detail
  // (serialised, its bodies redacted, when the batch is written): both ride with the record, in one object.
  deps.usage.record(
    toUsageRecord(requestUsage(call, status, errorCode, Date.now()), {
      routing_sample: status < 400 ? call.routingSample : undefined,
      request_log: call.detail === undefined ? undefined : requestLog(call, deps.redactSecrets ?? patternsOnly),
    }),
  );
}

function requestLog(call: CallState, redact: SecretRedactor): NewRequestLog {
  const detail = call.detail as NonNullable<CallState['detail']>;
  const bodies = call.bodies;
  return {
    router_id: detail.routerId,
    routing: detail.routing,
    attempts: detail.attempts,
    carbon: detail.carbon,
    prices: detail.prices,
    bodies: bodies === undefined ? undefined : { ...bodies, redact },
  };
}

/**
 * Ends a call whose usage is recorded elsewhere (an agent run: each step has a record of its own) or is not usage
 * at all (the agents' JSON API): nothing will be recorded for it. Its limits are still freed by `releaseCall`.
 */
export function dismissCall(call: CallState): void {
  call.settled = true;
}

/**
 * Frees the call's rate-limit admissions, corrected to the tokens it really used, once. Called when the client's
 * connection closes, which happens for every call, streamed or not, and for clients that leave.
 */
export function releaseCall(call: CallState, deps: Pick<SettlementDependencies, 'rateLimiter'>): void {
  const ticket = call.rateTicket;
  if (ticket === undefined) return;
  call.rateTicket = undefined;
  deps.rateLimiter.finish(ticket, call.promptTokens + call.completionTokens);
}

/**
 * Charges a call's real cost to its key's and router's budgets, before the answer's last byte leaves, so the
 * client's next request (to any instance) sees it. Never throws; a promise only when there is something to wait for.
 */
export function chargeCall(deps: Pick<SettlementDependencies, 'budgets'>, keyId: string | undefined, routerId: string | undefined, costUsd: number, log: CallLog): MaybePromise<void> {
  return chargeQuietly(deps.budgets, keyId, routerId, costUsd, (error) => log.warn({ err: error }, 'budget charge failed'));
}
