import type { CallAccount } from '../accounting/call-accounting.js';
import type { CarbonEstimate } from '../accounting/carbon.js';
import type { AppliedPrices } from '../accounting/cost.js';
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
  /** Manufacturing emissions of the hardware for this call, apart from carbonGrams (`carbon.embodiedGrams`). */
  readonly embodiedCarbonGrams: number;
  /** The carbon estimate's inputs and result: `carbonGrams` recomputes from them (docs/carbon.md). */
  readonly carbon: CarbonEstimate;
  /** USD per million tokens this call paid: `cost` recomputes from them and the answering attempt's tokens. */
  readonly prices: AppliedPrices;
  readonly routerDecision: string;
  readonly routerId: string;
  readonly requestId: string;
  readonly provider: string;
  readonly usageEstimated: boolean;
  /** Streams only. */
  readonly timeToFirstTokenMs?: number | undefined;
  readonly attempts: readonly AttemptMeta[];
  /** The models the router considered, ranked with reasons, and those it dropped (docs/routing.md). */
  readonly routing: RouterRoutingMeta;
}

/**
 * One attempt of `_meta.attempts`, with what it was billed: an attempt that failed before answering was billed
 * nothing; the one that answered (or whose stream broke after it began) carries the call's tokens and cost.
 */
export interface AttemptMeta {
  readonly model: string;
  readonly outcome: 'ok' | 'failed' | 'skipped';
  readonly reason?: string;
  readonly status?: number;
  readonly latencyMs: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Inside promptTokens, when the provider read any from its cache. */
  readonly cachedPromptTokens?: number;
  /** Inside promptTokens, when the provider wrote any to its cache. */
  readonly cacheWritePromptTokens?: number;
  /** Inside completionTokens, billed as output. */
  readonly reasoningTokens?: number;
  /** USD. */
  readonly cost: number;
  readonly carbonGrams: number;
}

/** How a stream that had begun broke: its last attempt is reported failed, still billed. */
export interface BrokenStream {
  readonly code: string;
  readonly status: number;
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
  broken?: BrokenStream,
): RouterMeta {
  const meta: RouterMeta = {
    modelUsed: model.id,
    cost: account.costUsd,
    latencyMs: roundTo(performance.now() - call.startedAt, 2),
    carbonGrams: account.carbon.carbonGrams,
    embodiedCarbonGrams: account.carbon.embodiedGrams,
    carbon: account.carbon,
    prices: account.prices,
    routerDecision: prepared.strategy,
    routerId: prepared.router.id,
    requestId: call.requestId,
    provider: model.provider,
    usageEstimated: account.usage.estimated,
    // Absent from a whole answer's JSON (undefined is not serialised); one object shape either way.
    timeToFirstTokenMs: firstAt === undefined ? undefined : roundTo(firstAt - call.startedAt, 2),
    attempts: attemptsForMeta(attempts, account, broken),
    routing: prepared.auto === undefined ? prepared.routing : autoRoutingMeta(prepared.routing, prepared.auto, call.counterfactualCostUsd),
  };
  // `_meta` is built once per call: the request log keeps what it says (written with the usage record).
  call.detail = { routerId: meta.routerId, routing: meta.routing, attempts: meta.attempts, carbon: meta.carbon, prices: meta.prices };
  return meta;
}

function autoRoutingMeta(routing: RoutingMeta, auto: AutoRoute, counterfactual: number | null): RouterRoutingMeta {
  return {
    ...routing,
    explored: auto.explored,
    strongestModel: auto.strongestModel,
    ...(counterfactual === null ? {} : { counterfactualCostUsd: counterfactual }),
  };
}

/**
 * `_meta.attempts`: each attempt as its own object (later changes to the fallback's list never show in an answer).
 * The last `ok` attempt is the one that answered: it carries the call's usage, the others nothing.
 */
function attemptsForMeta(attempts: readonly Attempt[], account: CallAccount, broken: BrokenStream | undefined): AttemptMeta[] {
  let answered = -1;
  for (let index = attempts.length - 1; index >= 0; index -= 1) {
    if (attempts[index]?.outcome === 'ok') {
      answered = index;
      break;
    }
  }
  const result: AttemptMeta[] = [];
  for (let index = 0; index < attempts.length; index += 1) {
    const attempt = attempts[index] as Attempt;
    result.push(index === answered ? answeredAttempt(attempt, account, broken) : unbilledAttempt(attempt));
  }
  return result;
}

/** An attempt that failed (or was skipped) before answering: billed nothing. */
export function unbilledAttempt(attempt: Attempt): AttemptMeta {
  return { ...attempt, promptTokens: 0, completionTokens: 0, cost: 0, carbonGrams: 0 };
}

function answeredAttempt(attempt: Attempt, account: CallAccount, broken: BrokenStream | undefined): AttemptMeta {
  const { usage } = account;
  const meta: { -readonly [K in keyof AttemptMeta]: AttemptMeta[K] } = {
    model: attempt.model,
    outcome: broken === undefined ? attempt.outcome : 'failed',
    latencyMs: attempt.latencyMs,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cost: account.costUsd,
    carbonGrams: account.carbon.carbonGrams,
  };
  if (broken !== undefined) {
    meta.reason = broken.code;
    meta.status = broken.status;
  }
  if (usage.cachedPromptTokens) meta.cachedPromptTokens = usage.cachedPromptTokens;
  if (usage.cacheWritePromptTokens) meta.cacheWritePromptTokens = usage.cacheWritePromptTokens;
  if (usage.reasoningTokens) meta.reasoningTokens = usage.reasoningTokens;
  return meta;
}
