import type { Attempt } from '../routing/fallback.js';
import type { RoutingMeta } from '../routing/plan-route.js';

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
  readonly routing: RoutingMeta;
}

/** `_meta.attempts`: each attempt as its own object, so later changes to the fallback's list never show in an answer. */
export function attemptsForMeta(attempts: readonly Attempt[]): RouterMeta['attempts'] {
  return attempts.map((attempt) => ({ ...attempt }));
}
