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
  /**
   * `auto`: which model wins on which kind of prompt for this router, fitted from its labels (calibration
   * uploads and feedback) in the background; wins over `autoAbilities`.
   */
  readonly autoFit?: RouterFit;
  /** `auto`: the share (0..1) of requests routed by Thompson sampling, so models with few labels get some. @default 0.05 */
  readonly exploration?: number;
  /** The request log's bodies (docs/dashboard.md). @default not kept */
  readonly requestLog?: RequestLogSettings;
}

/** Whether a router's request and response bodies are kept in the request log, how long and how much of each. */
export interface RequestLogSettings {
  readonly bodies: boolean;
  /** 1 to 90. @default 7 */
  readonly retentionDays?: number;
  /** Each body's cap, UTF-8 bytes, at most 1 MiB. @default 65536 */
  readonly maxBodyBytes?: number;
}

export const REQUEST_LOG_DEFAULTS = { retentionDays: 7, maxBodyBytes: 65_536, maxBodyBytesLimit: 1_048_576, retentionDaysLimit: 90 } as const;

/** A router's own fit over the auto predictor's prompt vector (src/routing/auto/router-fit.ts). */
export interface RouterFit {
  readonly version: 1;
  /** The prompt-vector layout the weights read; a fit for another layout is ignored. */
  readonly vectorVersion: number;
  /** ISO time of the fit. */
  readonly fittedAt: string;
  /** Labels it was fitted on. */
  readonly labels: number;
  readonly models: Readonly<Record<string, FittedModel>>;
}

/** One model's correction to the prior's log-odds, linear in the prompt vector. */
export interface FittedModel {
  readonly weights: readonly number[];
  readonly labels: number;
  /** Standard deviation of the log-odds, for Thompson sampling. */
  readonly uncertainty: number;
  /**
   * How much of the prior's per-prompt gap (how much more a stronger model gains on this prompt) the fit keeps:
   * 1, or 0 when cross-validation found that the gap the base model reads from prompts does not hold on this
   * router's traffic; the prompt's difficulty, shared by every model, stays. @default 1
   */
  readonly gapScale?: number;
  /** The model's ability (position, offset) calibrated on its labels, which the weights correct; absent: the catalog's. */
  readonly ability?: { readonly position: number; readonly offset: number };
}

/** A model's ability on the auto predictor's scale (src/routing/auto/model.ts), fitted from labelled examples. */
export interface CalibratedAbility {
  readonly position: number;
  readonly offset: number;
  /** How many labelled examples it was fitted on. */
  readonly examples: number;
}
