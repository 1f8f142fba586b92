/**
 * A router's settings as stored in its row (`routers.settings`, JSON). Storage owns the shape so that it
 * depends on nothing above it; routing reads these settings through `routing/routing-contract.ts`.
 */

/** Per-router settings the owner chooses; every field optional with documented defaults. */
export interface RouterSettings {
  /** `balanced`: weights of the four criteria, normalised to sum 1. @default all 0.25 */
  readonly weights?: { readonly cost?: number; readonly latency?: number; readonly quality?: number; readonly carbon?: number };
  /** `auto`: pick the cheapest model whose predicted probability of a good answer is at least this. @default 0.8 */
  readonly qualityTarget?: number;
  /** Models whose expected cost for this request exceeds this (USD) are not considered. */
  readonly maxCostPerRequestUsd?: number;
  /**
   * `auto`: abilities calibrated for this router from the owner's labelled
   * examples (`modelport router calibrate`), by `provider:model` id; they win
   * over the catalog-derived ones.
   */
  readonly autoAbilities?: Readonly<Record<string, CalibratedAbility>>;
}

/** A model's ability on the auto predictor's scale (src/routing/auto/model.ts), fitted from labelled examples. */
export interface CalibratedAbility {
  readonly position: number;
  readonly offset: number;
  /** How many labelled examples it was fitted on. */
  readonly examples: number;
}
