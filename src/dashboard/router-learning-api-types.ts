/**
 * The JSON shapes of an `auto` router's calibration, savings and feedback (docs/dashboard-api.md), beside
 * dashboard-api-types.ts, which re-exports them, and under the same rule: this module imports nothing, since the web
 * app compiles it with DOM types only.
 */

/** What the router page shows of an `auto` router's fit; its weights stay on the server. */
export interface RouterFitView {
  /** ISO 8601 time of the fit, as stored. */
  readonly fittedAt: string;
  /** Labels it was fitted on. */
  readonly labels: number;
  /** Per `provider:model` id: the labels that scored it. */
  readonly models: Readonly<Record<string, { readonly labels: number }>>;
}

/**
 * POST /workspaces/:ws/routers/:id/calibration: a JSON-lines body (`Content-Type: application/x-ndjson`) in the
 * format of `modelport router calibrate`, one `{"prompt": "...", "scores": {"provider:model": 0|1}}` a line. The
 * examples replace the router's earlier calibration labels and the router is fitted at once.
 */
export interface CalibrationView {
  /** Examples read from the upload. */
  readonly examples: number;
  /** Router models the examples score. */
  readonly modelsFitted: readonly string[];
  /** Models the examples score that the router does not have. */
  readonly ignored: readonly string[];
  /** The router's fit now (also in its `settings.autoFit`). */
  readonly fit: RouterFitView;
}

/** Measured quality: feedback labels on a router's requests. */
export interface FeedbackSummaryView {
  readonly count: number;
  /** Mean score 0..1; null without feedback. */
  readonly meanScore: number | null;
}

/** One bucket of an `auto` router's savings. `t` is the bucket's start, epoch ms. */
export interface SavingsPointView {
  readonly t: number;
  readonly requests: number;
  readonly costUsd: number;
  /** What the same tokens would have cost on the router's strongest model for each prompt, at catalog prices. */
  readonly counterfactualCostUsd: number;
  readonly feedback: FeedbackSummaryView;
}

/** GET /workspaces/:ws/routers/:id/savings?from&to&bucket (the usage report's range rules). Times are epoch ms. */
export interface SavingsReportView {
  readonly from: number;
  readonly to: number;
  readonly bucket: 'hour' | 'day';
  readonly points: readonly SavingsPointView[];
  readonly totals: {
    readonly requests: number;
    readonly costUsd: number;
    readonly counterfactualCostUsd: number;
    /** counterfactualCostUsd − costUsd. */
    readonly savedUsd: number;
    readonly feedback: FeedbackSummaryView;
  };
}

/** POST /workspaces/:ws/usage/requests/:id/feedback: a person's score of an `auto` request's answer (thumbs: 1 or 0). */
export interface FeedbackRequestView {
  /** 0..1. */
  readonly score: number;
  /** At most 2,000 characters. */
  readonly comment?: string | undefined;
}

/** The stored label; a repeat by the same person replaces its score and comment. */
export interface FeedbackView {
  readonly requestId: string;
  readonly score: number;
  readonly comment: string | null;
  /** Epoch ms. */
  readonly createdAt: number;
}
